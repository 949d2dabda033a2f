/**
 * The user groups entity routes, both profiles, as a table of handlers by method. Parents are
 * checked to exist and never to form a cycle; a group with members or children is not deleted.
 */
import { ProblemError, type Reply } from "./http-util.js";
import type { ParsedResource } from "./jsonapi.js";
import { listLinksAndMeta, pageIds, parseInclude, parseListQuery } from "./paging.js";
import type { RouteContext } from "./route-context.js";
import type { GroupRec, Store } from "./store.js";
import { groupOut, type Profile } from "./entity-docs.js";
import {
  checkGroupsExist,
  checkPathId,
  dispatch,
  includedGroups,
  ok,
  paramOf,
  parseWrite,
  type EntityRequest,
  type EntityRoutes,
} from "./entity-common.js";

type GroupRequest = EntityRequest<GroupRec>;

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
  return dispatch(GROUP_ROUTES, { ctx, profile, store, single });
}

/** The parents sent, checked to exist and not to make a cycle; undefined when none were sent. */
function parentsOf(store: Store, parsed: ParsedResource, id: string): string[] | undefined {
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
}

function listGroups({ ctx, profile, store }: GroupRequest): Reply {
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

function createGroup({ ctx, profile, store, single }: GroupRequest): Reply {
  const parsed = parseWrite(ctx, profile, "userGroup");
  if (store.groups.has(parsed.id)) throw new ProblemError(409, `userGroup ${parsed.id} already exists`);
  const rec: GroupRec = { id: parsed.id, parents: parentsOf(store, parsed, parsed.id) ?? [] };
  const name = parsed.attributes.get("name");
  if (name !== undefined) rec.name = name;
  store.putGroup(rec);
  return single(rec, 201);
}

function existingGroup({ ctx, store }: GroupRequest): GroupRec {
  const existing = store.groups.get(paramOf(ctx));
  if (!existing) throw new ProblemError(404, `userGroup ${paramOf(ctx)} not found`);
  return existing;
}

/** v1 PUT replaces; legacy PUT keeps the parents; PATCH changes what is sent. */
function writeGroup(req: GroupRequest): Reply {
  const { ctx, profile, store } = req;
  const parsed = parseWrite(ctx, profile, "userGroup");
  checkPathId(ctx, parsed);
  const existing = existingGroup(req);
  const parents = parentsOf(store, parsed, existing.id);
  const replace = ctx.method === "PUT" && profile === "v1";
  const rec: GroupRec = { id: existing.id, parents: parents ?? (replace ? [] : existing.parents) };
  const name = parsed.attributes.has("name")
    ? parsed.attributes.get("name")
    : ctx.method === "PATCH"
      ? existing.name
      : undefined;
  if (name !== undefined) rec.name = name;
  store.putGroup(rec);
  return req.single(rec, 200);
}

function deleteGroup(req: GroupRequest): Reply {
  const existing = existingGroup(req);
  const members = req.store.memberCount(existing.id);
  const children = req.store.childCount(existing.id);
  if (members > 0 || children > 0) {
    throw new ProblemError(
      409,
      `userGroup ${existing.id} still has ${members} member(s) and ${children} child group(s); remove them from it before deleting it`,
    );
  }
  req.store.deleteGroup(existing.id);
  return { status: 204 };
}

const GROUP_ROUTES: EntityRoutes<GroupRec> = {
  collectionName: "userGroups collection",
  itemName: "userGroup",
  collection: { GET: listGroups, POST: createGroup },
  item: {
    GET: (req) => req.single(existingGroup(req), 200),
    PUT: writeGroup,
    PATCH: writeGroup,
    DELETE: deleteGroup,
  },
};
