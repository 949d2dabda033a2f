/**
 * The user groups entity routes, both profiles, as a table of handlers by method. Parents are
 * checked to exist and never to form a cycle; a group with members or children is not deleted.
 */
import { ProblemError, type Reply } from "./http-util.js";
import type { ParsedResource } from "./jsonapi.js";
import { pageIds, parseListQuery } from "./paging.js";
import type { RouteContext } from "./route-context.js";
import type { GroupRec, Store } from "./store.js";
import { groupOut, type Profile } from "./entity-docs.js";
import {
  checkGroupsExist,
  existingRecord,
  handleEntity,
  listReply,
  parseUpdate,
  parseWrite,
  single,
  type EntityRequest,
  type EntityView,
  type EntityRoutes,
} from "./entity-common.js";

type GroupRequest = EntityRequest<GroupRec>;

/**
 * What a user group document may include, as the official spec lists it: the `parents`
 * relationship by name, or by the type of its resources (`userGroups`); both give the parents.
 */
const GROUP_INCLUDES: Record<Profile, readonly string[]> = { v1: ["parents", "userGroups"], legacy: [] };

const GROUP_VIEW: EntityView<GroupRec> = {
  type: "userGroup",
  records: (store) => store.groups,
  out: groupOut,
  linked: (rec) => rec.parents,
};

export const handleGroups = (ctx: RouteContext, profile: Profile): Reply =>
  handleEntity(GROUP_ROUTES, ctx, profile);

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

function listGroups(req: GroupRequest): Reply {
  const { ctx, profile, store } = req;
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
  return listReply(req, { q, total, recs: ids.map((id) => store.groups.get(id) as GroupRec) });
}

function createGroup(req: GroupRequest): Reply {
  const { ctx, profile, store } = req;
  const parsed = parseWrite(ctx, profile, "userGroup");
  if (store.groups.has(parsed.id)) throw new ProblemError(409, `userGroup ${parsed.id} already exists`);
  const rec: GroupRec = { id: parsed.id, parents: parentsOf(store, parsed, parsed.id) ?? [] };
  const name = parsed.attributes.get("name");
  if (name !== undefined) rec.name = name;
  store.putGroup(rec);
  return single(req, rec, 201);
}

/** v1 PUT replaces; legacy PUT keeps the parents; PATCH changes what is sent. */
function writeGroup(req: GroupRequest): Reply {
  const { ctx, profile, store } = req;
  const { parsed, existing } = parseUpdate(req);
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
  return single(req, rec, 200);
}

function deleteGroup(req: GroupRequest): Reply {
  const existing = existingRecord(req);
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
  view: GROUP_VIEW,
  includes: (profile) => GROUP_INCLUDES[profile],
  collection: { GET: listGroups, POST: createGroup },
  item: {
    PUT: writeGroup,
    PATCH: writeGroup,
    DELETE: deleteGroup,
  },
};
