/**
 * Graph's delta query on the stand-in, as Microsoft describes it (learn.microsoft.com/graph/
 * delta-query-overview, delta-query-groups; msgraph-metadata: `delta` bound to
 * Collection(graph.user) and Collection(graph.group)): `GET /v1.0/users/delta` and
 * `/v1.0/groups/delta`, `$deltatoken=latest` for a deltaLink without the data ("sync from now"),
 * pages joined by opaque `@odata.nextLink`s and ended by an `@odata.deltaLink`, changed objects
 * in their latest state, `@removed` for a deleted object, and a group's membership changes as
 * `members@delta` (a removed member carries `@removed`). A token older than the log keeps (see
 * `expire`) answers 410 Gone `syncStateNotFound`: the client must start again.
 *
 * Tests change the tenant through `TenantChanges`, which keeps the log the answers come from.
 */
import { createHmac, randomBytes } from "node:crypto";
import type { Directory, GraphUser } from "./directory.js";
import { GraphQueryError, project } from "./query.js";

export interface DeltaEvent {
  seq: number;
  kind: "user" | "group";
  id: string;
  /** A group's member added or removed. */
  member?: { id: string; removed: boolean };
}

const KEY = randomBytes(16);
/** Changed objects a delta page holds (Graph chooses its own page size for delta). */
export const DELTA_PAGE = 200;

interface TokenState {
  /** Changes after this sequence number. */
  since: number;
  /** The sequence number the round started at (the deltaLink's). */
  upTo: number;
  offset: number;
  select: string[] | undefined;
  resource: string;
  /** The stand-in's token generation: `expire()` ends every earlier one. */
  epoch: number;
}

function sign(state: TokenState): string {
  const payload = Buffer.from(JSON.stringify(state)).toString("base64url");
  const mac = createHmac("sha256", KEY).update(payload).digest("base64url").slice(0, 16);
  return `${payload}.${mac}`;
}

function read(token: string, resource: string): TokenState {
  const [payload, mac] = token.split(".");
  const ok = payload && mac === createHmac("sha256", KEY).update(payload).digest("base64url").slice(0, 16);
  const state = ok ? (JSON.parse(Buffer.from(payload, "base64url").toString()) as TokenState) : undefined;
  if (state === undefined || state.resource !== resource)
    throw new GraphQueryError(400, "Request_BadRequest", "Badly formed token.");
  return state;
}

/** The tenant's changes in order; what the delta answers are made of. */
export class TenantChanges {
  seq = 0;
  /** Tokens of an earlier generation are gone (410 syncStateNotFound). */
  epoch = 0;
  readonly events: DeltaEvent[] = [];
  constructor(readonly directory: Directory) {}

  private log(e: Omit<DeltaEvent, "seq">): void {
    this.events.push({ ...e, seq: ++this.seq });
  }

  /** A user's properties changed (`{accountEnabled: false}`: a leaver). */
  updateUser(id: string, patch: Partial<GraphUser>): void {
    const u = this.directory.tenant.users.find((x) => x.id === id);
    if (u === undefined) throw new Error(`no user ${id}`);
    Object.assign(u, patch);
    this.log({ kind: "user", id });
  }

  addUser(user: GraphUser): void {
    this.directory.add({ type: "user", value: user });
    this.log({ kind: "user", id: user.id });
  }

  /** Deleted: gone from every group too. */
  deleteUser(id: string): void {
    for (const g of this.directory.tenant.groups) if (g.members.includes(id)) this.removeMember(g.id, id);
    this.directory.remove(id);
    this.log({ kind: "user", id });
  }

  addMember(groupId: string, memberId: string): void {
    const g = this.directory.group(groupId);
    if (g === undefined) throw new Error(`no group ${groupId}`);
    if (!g.members.includes(memberId)) g.members.push(memberId);
    this.log({ kind: "group", id: groupId, member: { id: memberId, removed: false } });
  }

  removeMember(groupId: string, memberId: string): void {
    const g = this.directory.group(groupId);
    if (g === undefined) throw new Error(`no group ${groupId}`);
    g.members = g.members.filter((m) => m !== memberId);
    this.log({ kind: "group", id: groupId, member: { id: memberId, removed: true } });
  }

  renameGroup(groupId: string, displayName: string): void {
    const g = this.directory.group(groupId);
    if (g === undefined) throw new Error(`no group ${groupId}`);
    g.displayName = displayName;
    this.log({ kind: "group", id: groupId });
  }

  /** Every token handed out so far expires, as Graph's do after days unused. */
  expire(): void {
    this.epoch += 1;
  }

  /** One delta page of `users` or `groups`; `token` is `$deltatoken` or `$skiptoken`, if any. */
  page(o: {
    resource: "users" | "groups";
    params: URLSearchParams;
    base: string;
    typeName: (id: string) => string | undefined;
  }): Record<string, unknown> {
    const link = (name: "$deltatoken" | "$skiptoken", state: TokenState) =>
      `${o.base}/v1.0/${o.resource}/delta?${name}=${encodeURIComponent(sign(state))}`;
    const delta = o.params.get("$deltatoken");
    const skip = o.params.get("$skiptoken");
    const selectText = o.params.get("$select");
    const select = selectText === null ? undefined : selectText.split(",").map((s) => s.trim());
    const context = `${o.base}/v1.0/$metadata#${o.resource}`;
    if (delta === "latest")
      return {
        "@odata.context": context,
        value: [],
        "@odata.deltaLink": link("$deltatoken", {
          since: this.seq,
          upTo: this.seq,
          offset: 0,
          select,
          resource: o.resource,
          epoch: this.epoch,
        }),
      };
    const state: TokenState =
      skip !== null
        ? read(skip, o.resource)
        : delta !== null
          ? { ...read(delta, o.resource), upTo: this.seq, offset: 0 }
          : { since: -1, upTo: this.seq, offset: 0, select, resource: o.resource, epoch: this.epoch };
    if (state.epoch < this.epoch)
      throw new GraphQueryError(
        410,
        "syncStateNotFound",
        "The sync state is not found (the delta token expired). Start a new round of change tracking without a token.",
      );
    const items =
      state.since < 0
        ? this.everything(o.resource, state.select, o.typeName)
        : this.changes(o.resource, state, o.typeName);
    const body: Record<string, unknown> = {
      "@odata.context": context,
      value: items.slice(state.offset, state.offset + DELTA_PAGE),
    };
    if (state.offset + DELTA_PAGE < items.length)
      body["@odata.nextLink"] = link("$skiptoken", { ...state, offset: state.offset + DELTA_PAGE });
    else body["@odata.deltaLink"] = link("$deltatoken", { ...state, since: state.upTo, offset: 0 });
    return body;
  }

  /** The first round: every object as it is now; a group's members all as `members@delta`. */
  private everything(
    resource: "users" | "groups",
    select: string[] | undefined,
    typeName: (id: string) => string | undefined,
  ): Record<string, unknown>[] {
    const t = this.directory.tenant;
    if (resource === "users") return t.users.map((u) => project(u as never, without(select, "members")));
    return t.groups.map((g) => ({
      ...project(g as never, without(select, "members")),
      ...(select === undefined || select.includes("members")
        ? { "members@delta": g.members.flatMap((id) => member(id, false, typeName)) }
        : {}),
    }));
  }

  /** Objects changed after `since` up to `upTo`, each once in its latest state, in the order first changed. */
  private changes(
    resource: "users" | "groups",
    state: TokenState,
    typeName: (id: string) => string | undefined,
  ): Record<string, unknown>[] {
    const kind = resource === "users" ? "user" : "group";
    const events = this.events.filter((e) => e.kind === kind && e.seq > state.since && e.seq <= state.upTo);
    const ids = [...new Set(events.map((e) => e.id))];
    const select = without(state.select, "members");
    return ids.map((id) => {
      const o = this.directory.object(id);
      if (o === undefined) return { id, "@removed": { reason: "deleted" } };
      if (kind === "user") return project(o.value as never, select);
      const members = new Map<string, boolean>();
      for (const e of events)
        if (e.id === id && e.kind === "group" && e.member) members.set(e.member.id, e.member.removed);
      return {
        ...project(o.value as never, select),
        ...(members.size > 0 && (state.select === undefined || state.select.includes("members"))
          ? { "members@delta": [...members].flatMap(([m, removed]) => member(m, removed, typeName)) }
          : {}),
      };
    });
  }
}

function without(select: string[] | undefined, name: string): string[] | undefined {
  return select?.filter((s) => s !== name);
}

function member(
  id: string,
  removed: boolean,
  typeName: (id: string) => string | undefined,
): Record<string, unknown>[] {
  const type = typeName(id) ?? "#microsoft.graph.user";
  return [{ "@odata.type": type, id, ...(removed ? { "@removed": { reason: "deleted" } } : {}) }];
}
