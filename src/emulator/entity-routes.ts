/**
 * The entity API for users (mappings) and user groups, both profiles:
 * v1 `/api/v1/entities/{users,userGroups}[/{id}]` (GET, POST 201, PUT, PATCH, DELETE 204) and
 * legacy `/api/entities/{users,userGroups}[/{id}]` (POST with `{data}`, PUT with the BARE resource
 * object, GET, DELETE; no PATCH).
 *
 * Decisions where the contract is silent:
 * - A relationship to a group that does not exist answers 400 naming the id (not 404, which a
 *   client would read as "the user itself is missing").
 * - Deleting a group that still has members or child groups answers 409 and changes nothing;
 *   the caller must first move the users and children away (the planner's order does that).
 * - A legacy PUT replaces what legacy knows (authenticationId, the one group) and keeps the
 *   v1-only attributes (firstname, lastname, email) and, for groups, the parents.
 */
import { JSON_API, ProblemError, type Reply } from "./http-util.js";
import { parseDocument, parseResource, type ParsedResource } from "./jsonapi.js";
import { listLinksAndMeta, pageIds, parseInclude, parseListQuery } from "./paging.js";
import type { RouteContext } from "./route-context.js";
import type { GroupRec, MappingRec, Store } from "./store.js";
import { SPECS, USER_ATTRIBUTES, groupOut, linkedGroups, userOut, type Profile } from "./entity-docs.js";

const ok = (status: number, body?: unknown): Reply => ({ status, body, contentType: JSON_API });

function parseWrite(ctx: RouteContext, profile: Profile, type: "user" | "userGroup"): ParsedResource {
  const body = ctx.body(JSON_API);
  const spec = SPECS[profile][type];
  // The seed contract's PUT takes the resource object itself, without the `data` wrapper.
  if (profile === "legacy" && ctx.method === "PUT") return parseResource(body, spec, "body");
  return parseDocument(body, spec);
}

function checkPathId(ctx: RouteContext, parsed: ParsedResource): void {
  if (parsed.id !== ctx.param) {
    throw new ProblemError(
      400,
      `id ${parsed.id} in the body differs from ${String(ctx.param)} in the path; ids cannot be changed`,
    );
  }
}

function checkGroupsExist(store: Store, ids: readonly string[], where: string): void {
  for (const id of ids) {
    if (!store.groups.has(id))
      throw new ProblemError(400, `${where}: userGroup ${id} does not exist; create it first`);
  }
}

function includedGroups(store: Store, ids: Iterable<string>, profile: Profile, base: string): unknown[] {
  const out: unknown[] = [];
  for (const id of new Set(ids)) {
    const g = store.groups.get(id);
    if (g) out.push(groupOut(g, profile, base));
  }
  return out;
}

// ---- users --------------------------------------------------------------------------------

export function handleUsers(ctx: RouteContext, profile: Profile): Reply {
  const { store } = ctx;
  const relName = profile === "v1" ? "userGroups" : "userGroup";
  // Legacy clients may name the to-one relationship (`userGroup`) instead of the collection.
  const includeNames = profile === "v1" ? ["userGroups"] : ["userGroups", "userGroup"];
  // Checked before any write, so a bad `include` never answers 400 for a write that landed.
  const include = parseInclude(ctx.query, includeNames);
  const single = (rec: MappingRec, status: number): Reply => {
    const doc: Record<string, unknown> = { data: userOut(rec, profile, ctx.base) };
    if (include.size > 0) {
      doc.included = includedGroups(store, linkedGroups(rec, profile), profile, ctx.base);
    }
    return ok(status, doc);
  };

  if (ctx.param === undefined) {
    if (ctx.method === "GET") {
      const filterFields =
        profile === "v1"
          ? ["id", ...USER_ATTRIBUTES, "userGroups.id"]
          : ["id", "authenticationId", "userGroup.id"];
      const q = parseListQuery(ctx.query, { filterFields, includes: includeNames });
      const byId = q.filters.find((f) => f.field === "id");
      const byAuth = q.filters.find((f) => f.field === "authenticationId");
      const byGroup = q.filters.find((f) => f.field.endsWith(".id"));
      const candidates = byId
        ? [byId.value]
        : byAuth
          ? store.mappingIdsByAuthId(byAuth.value)
          : byGroup
            ? store.membersOf(byGroup.value)
            : undefined;
      const { ids, total } = pageIds({
        q,
        sorted: store.mappingIds,
        candidates,
        matches: (id) => {
          const m = store.mappings.get(id);
          return m !== undefined && q.filters.every((f) => userMatches(m, f.field, f.value, profile));
        },
      });
      const recs = ids.map((id) => store.mappings.get(id) as MappingRec);
      const doc: Record<string, unknown> = { data: recs.map((r) => userOut(r, profile, ctx.base)) };
      if (q.include.size > 0)
        doc.included = includedGroups(
          store,
          recs.flatMap((r) => linkedGroups(r, profile)),
          profile,
          ctx.base,
        );
      Object.assign(doc, listLinksAndMeta({ base: ctx.base, url: ctx.url, q, total }));
      return ok(200, doc);
    }
    if (ctx.method === "POST") {
      const parsed = parseWrite(ctx, profile, "user");
      if (store.mappings.has(parsed.id)) throw new ProblemError(409, `user ${parsed.id} already exists`);
      const groups = parsed.relationships.get(relName) ?? [];
      checkGroupsExist(store, groups, `data.relationships.${relName}`);
      const rec: MappingRec = { id: parsed.id, groups };
      applyAttributes(rec, parsed);
      store.putMapping(rec);
      return single(rec, 201);
    }
    throw new ProblemError(405, `${ctx.method} is not allowed on the users collection (GET, POST)`);
  }

  const existing = store.mappings.get(ctx.param);
  switch (ctx.method) {
    case "GET":
      if (!existing) throw new ProblemError(404, `user ${ctx.param} not found`);
      return single(existing, 200);
    case "PUT":
    case "PATCH": {
      if (ctx.method === "PATCH" && profile === "legacy") break;
      const parsed = parseWrite(ctx, profile, "user");
      checkPathId(ctx, parsed);
      if (!existing) throw new ProblemError(404, `user ${ctx.param} not found`);
      const sentGroups = parsed.relationships.get(relName);
      if (sentGroups) checkGroupsExist(store, sentGroups, `relationships.${relName}`);
      let rec: MappingRec;
      if (ctx.method === "PATCH") {
        rec = { ...existing, groups: sentGroups ?? existing.groups };
      } else if (profile === "v1") {
        rec = { id: existing.id, groups: sentGroups ?? [] };
      } else {
        rec = { ...existing, groups: sentGroups ?? [] };
        delete rec.authenticationId;
      }
      applyAttributes(rec, parsed);
      store.putMapping(rec);
      return single(rec, 200);
    }
    case "DELETE":
      if (!store.deleteMapping(ctx.param)) throw new ProblemError(404, `user ${ctx.param} not found`);
      return { status: 204 };
  }
  throw new ProblemError(
    405,
    `${ctx.method} is not allowed on a user (${profile === "v1" ? "GET, PUT, PATCH, DELETE" : "GET, PUT, DELETE"})`,
  );
}

function applyAttributes(rec: MappingRec, parsed: ParsedResource): void {
  for (const [key, value] of parsed.attributes) {
    const k = key as (typeof USER_ATTRIBUTES)[number];
    if (value === undefined) delete rec[k];
    else rec[k] = value;
  }
}

function userMatches(m: MappingRec, field: string, value: string, profile: Profile): boolean {
  if (field === "id") return m.id === value;
  if (field === "userGroups.id" || field === "userGroup.id") return linkedGroups(m, profile).includes(value);
  return m[field as (typeof USER_ATTRIBUTES)[number]] === value;
}

// ---- user groups --------------------------------------------------------------------------

/**
 * What a user group document may include, as the official spec lists it: the `parents`
 * relationship by name, or by the type of its resources (`userGroups`); both give the parents.
 */
const GROUP_INCLUDES: Record<Profile, readonly string[]> = { v1: ["parents", "userGroups"], legacy: [] };

export function handleGroups(ctx: RouteContext, profile: Profile): Reply {
  const { store } = ctx;
  const include = parseInclude(ctx.query, GROUP_INCLUDES[profile]);
  const single = (rec: GroupRec, status: number): Reply => {
    const doc: Record<string, unknown> = { data: groupOut(rec, profile, ctx.base) };
    if (include.size > 0) {
      doc.included = includedGroups(store, rec.parents, profile, ctx.base);
    }
    return ok(status, doc);
  };
  const parentsOf = (parsed: ParsedResource, id: string): string[] | undefined => {
    const parents = parsed.relationships.get("parents");
    if (!parents) return undefined;
    checkGroupsExist(store, parents, "relationships.parents");
    if (parents.includes(id) || store.wouldCycle(id, parents)) {
      throw new ProblemError(
        400,
        `relationships.parents: making ${parents.join(", ")} parents of ${id} would form a cycle`,
      );
    }
    return parents;
  };

  if (ctx.param === undefined) {
    if (ctx.method === "GET") {
      const q = parseListQuery(ctx.query, {
        filterFields: ["id", "name"],
        includes: GROUP_INCLUDES[profile],
      });
      const byId = q.filters.find((f) => f.field === "id");
      const { ids, total } = pageIds({
        q,
        sorted: store.groupIds,
        candidates: byId ? [byId.value] : undefined,
        matches: (id) => {
          const g = store.groups.get(id);
          return g !== undefined && q.filters.every((f) => (f.field === "id" ? g.id : g.name) === f.value);
        },
      });
      const recs = ids.map((id) => store.groups.get(id) as GroupRec);
      const doc: Record<string, unknown> = { data: recs.map((r) => groupOut(r, profile, ctx.base)) };
      if (q.include.size > 0)
        doc.included = includedGroups(
          store,
          recs.flatMap((r) => r.parents),
          profile,
          ctx.base,
        );
      Object.assign(doc, listLinksAndMeta({ base: ctx.base, url: ctx.url, q, total }));
      return ok(200, doc);
    }
    if (ctx.method === "POST") {
      const parsed = parseWrite(ctx, profile, "userGroup");
      if (store.groups.has(parsed.id)) throw new ProblemError(409, `userGroup ${parsed.id} already exists`);
      const rec: GroupRec = { id: parsed.id, parents: parentsOf(parsed, parsed.id) ?? [] };
      const name = parsed.attributes.get("name");
      if (name !== undefined) rec.name = name;
      store.putGroup(rec);
      return single(rec, 201);
    }
    throw new ProblemError(405, `${ctx.method} is not allowed on the userGroups collection (GET, POST)`);
  }

  const existing = store.groups.get(ctx.param);
  switch (ctx.method) {
    case "GET":
      if (!existing) throw new ProblemError(404, `userGroup ${ctx.param} not found`);
      return single(existing, 200);
    case "PUT":
    case "PATCH": {
      if (ctx.method === "PATCH" && profile === "legacy") break;
      const parsed = parseWrite(ctx, profile, "userGroup");
      checkPathId(ctx, parsed);
      if (!existing) throw new ProblemError(404, `userGroup ${ctx.param} not found`);
      const parents = parentsOf(parsed, existing.id);
      const replace = ctx.method === "PUT" && profile === "v1";
      const rec: GroupRec = { id: existing.id, parents: parents ?? (replace ? [] : existing.parents) };
      const name = parsed.attributes.has("name")
        ? parsed.attributes.get("name")
        : ctx.method === "PATCH"
          ? existing.name
          : undefined;
      if (name !== undefined) rec.name = name;
      store.putGroup(rec);
      return single(rec, 200);
    }
    case "DELETE": {
      if (!existing) throw new ProblemError(404, `userGroup ${ctx.param} not found`);
      const members = store.memberCount(existing.id);
      const children = store.childCount(existing.id);
      if (members > 0 || children > 0) {
        throw new ProblemError(
          409,
          `userGroup ${existing.id} still has ${members} member(s) and ${children} child group(s); remove them from it before deleting it`,
        );
      }
      store.deleteGroup(existing.id);
      return { status: 204 };
    }
  }
  throw new ProblemError(
    405,
    `${ctx.method} is not allowed on a userGroup (${profile === "v1" ? "GET, PUT, PATCH, DELETE" : "GET, PUT, DELETE"})`,
  );
}
