/**
 * Google's admin events in the picture's terms (changes.ts reads them): USER_SETTINGS events about
 * a person of the picture read that person as they are now; ADD_GROUP_MEMBER / REMOVE_GROUP_MEMBER
 * in a group of the picture's tree change the picked groups above it (a person leaving one that
 * holds nested groups: that picked group is listed again, as they may still be a member through
 * one); what the picture cannot prove whole is a fallback (changes.ts's docblock lists them).
 */
import type { DirectoryChange, Picture, WholeReason } from "../changes/feed.js";
import { reachable } from "../changes/apply.js";
import type { GoogleUserJson } from "./api.js";
import { personOf } from "./picture.js";
import type { GoogleConfig } from "./schema.js";

/** Why a batch cannot be proved whole: the run reads whole instead. */
export class Fallback extends Error {
  constructor(
    readonly reason: WholeReason,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** One admin event: when, its type (USER_SETTINGS...), its name and parameters. */
export interface AdminEvent {
  time: string;
  type: string;
  name: string;
  params: Record<string, string>;
}

interface Known {
  personByEmail: Map<string, string>;
  groupByEmail: Map<string, string>;
  /** For each group of the tree, the picked groups that reach it (itself included). */
  above: Map<string, string[]>;
  /** Picked groups that hold nested groups. */
  nesting: Set<string>;
}

const lower = (s: string | undefined) => (s ?? "").toLowerCase();

function known(picture: Picture): Known {
  const groups = new Map(picture.groups.map((g) => [g.id, g]));
  const above = new Map<string, string[]>();
  const nesting = new Set<string>();
  for (const g of picture.groups) {
    if (g.rule === undefined) continue;
    const below = reachable(groups, g.id);
    if (below.size > 1) nesting.add(g.id);
    for (const id of below) above.set(id, [...(above.get(id) ?? []), g.id]);
  }
  return {
    personByEmail: new Map(picture.people.map((p) => [lower(String(p.attributes.primaryEmail ?? "")), p.id])),
    groupByEmail: new Map(picture.groups.map((g) => [lower(String(g.attributes.email ?? g.name)), g.id])),
    above,
    nesting,
  };
}

type Read = (key: string) => Promise<GoogleUserJson | null>;
/** A picked group's members at any depth as they are now: people ids, and the groups listed. */
export type ListMembers = (id: string, email: string) => Promise<{ people: string[]; groups: string[] }>;

/** The changes of a membership event; `relist` collects picked groups to read again. */
async function membership(
  k: Known,
  e: AdminEvent,
  read: Read,
  relist: Set<string>,
): Promise<DirectoryChange[]> {
  const gid = k.groupByEmail.get(lower(e.params.GROUP_EMAIL));
  // A group outside the tree below the picked groups: its members reach nobody picked.
  if (gid === undefined) return [];
  const member = lower(e.params.USER_EMAIL);
  const group = e.params.GROUP_EMAIL;
  if (k.groupByEmail.has(member))
    throw new Fallback("groups-changed", `the group ${member} was nested in or taken out of ${group}`);
  const picked = k.above.get(gid) ?? [];
  if (e.name === "REMOVE_GROUP_MEMBER") {
    const id = k.personByEmail.get(member);
    if (id === undefined) return [];
    // Through a nested group they may still be a member: that picked group is listed again.
    for (const p of picked) if (k.nesting.has(p)) relist.add(p);
    return picked
      .filter((p) => !k.nesting.has(p))
      .map((p) => ({ type: "member-removed", group: p, member: id, memberKind: "person" }));
  }
  const u = await read(k.personByEmail.get(member) ?? member);
  if (u === null)
    throw new Fallback(
      "groups-changed",
      `${member} joined ${group} and is not a user of the customer (a group?)`,
    );
  const person = personOf(u);
  return picked.map((p) => ({ type: "member-added", group: p, member: u.id, memberKind: "person", person }));
}

/** Picked groups listed again as they are now (after every event: the listing is the latest word). */
async function relisted(o: {
  picture: Picture;
  ids: ReadonlySet<string>;
  read: Read;
  list: ListMembers;
}): Promise<DirectoryChange[]> {
  const kept = new Map(o.picture.groups.map((g) => [g.id, g]));
  const people = new Set(o.picture.people.map((p) => p.id));
  const out: DirectoryChange[] = [];
  for (const id of o.ids) {
    const g = kept.get(id)!;
    const now = await o.list(id, String(g.attributes.email ?? g.name));
    const unknown = now.groups.find((n) => !kept.has(n));
    if (unknown !== undefined)
      throw new Fallback(
        "groups-changed",
        `the group ${unknown} was nested in ${g.name} and its members are not known`,
      );
    const found = [];
    const members: string[] = [];
    for (const pid of now.people) {
      if (people.has(pid)) members.push(pid);
      else {
        const u = await o.read(pid);
        if (u === null) continue;
        found.push(personOf(u));
        members.push(pid);
      }
    }
    const group = { ...g, people: [...new Set(members)].sort(), groups: [...new Set(now.groups)].sort() };
    out.push({ type: "group-read", group, people: found });
  }
  return out;
}

/** The changes the events make, oldest first; people read as they are now. */
export async function changesOf(o: {
  config: GoogleConfig;
  picture: Picture;
  events: readonly AdminEvent[];
  read: Read;
  list: ListMembers;
}): Promise<DirectoryChange[]> {
  const k = known(o.picture);
  const byQuery = o.config.groups.some((r) => r.query !== undefined);
  const out: DirectoryChange[] = [];
  const relist = new Set<string>();
  for (const e of o.events) {
    if (e.name === "ADD_GROUP_MEMBER" || e.name === "REMOVE_GROUP_MEMBER") {
      out.push(...(await membership(k, e, o.read, relist)));
    } else if (e.type === "USER_SETTINGS") {
      const id =
        k.personByEmail.get(lower(e.params.USER_EMAIL)) ?? k.personByEmail.get(lower(e.params.NEW_VALUE));
      if (id === undefined) continue;
      const u = await o.read(id);
      out.push(
        u === null ? { type: "person-removed", id } : { type: "person-upserted", person: personOf(u) },
      );
    } else if (e.type === "GROUP_SETTINGS") {
      const inTree = k.groupByEmail.has(lower(e.params.GROUP_EMAIL));
      const changes = e.name === "DELETE_GROUP" || e.name.startsWith("CHANGE_GROUP_");
      const picks = e.name === "CREATE_GROUP" || e.name.startsWith("CHANGE_GROUP_");
      if ((inTree && changes) || (byQuery && picks))
        throw new Fallback(
          "groups-changed",
          `${e.name} ${e.params.GROUP_EMAIL ?? ""}: what the rules pick, or a picked group, may have changed`,
        );
    }
  }
  if (relist.size > 0)
    out.push(...(await relisted({ picture: o.picture, ids: relist, read: o.read, list: o.list })));
  return out;
}
