/**
 * The users (mappings) entity routes, both profiles, as a table of handlers by method. v1 links
 * a user to many groups (`userGroups`), legacy to at most one (`userGroup`).
 */
import { ProblemError, type Reply } from "./http-util.js";
import type { ParsedResource } from "./jsonapi.js";
import { pageIds, parseListQuery } from "./paging.js";
import type { RouteContext } from "./route-context.js";
import type { MappingRec } from "./store.js";
import { USER_ATTRIBUTES, linkedGroups, userOut, type Profile } from "./entity-docs.js";
import {
  checkGroupsExist,
  handleEntity,
  listReply,
  parseUpdate,
  parseWrite,
  single,
  type EntityRequest,
  type EntityView,
  type EntityRoutes,
} from "./entity-common.js";

type UserRequest = EntityRequest<MappingRec>;

const relName = (profile: Profile): string => (profile === "v1" ? "userGroups" : "userGroup");
/** Legacy clients may name the to-one relationship (`userGroup`) instead of the collection. */
const includeNames = (profile: Profile): string[] =>
  profile === "v1" ? ["userGroups"] : ["userGroups", "userGroup"];

const USER_VIEW: EntityView<MappingRec> = {
  type: "user",
  records: (store) => store.mappings,
  out: userOut,
  linked: linkedGroups,
};

export const handleUsers = (ctx: RouteContext, profile: Profile): Reply =>
  handleEntity(USER_ROUTES, ctx, profile);

function listUsers(req: UserRequest): Reply {
  const { ctx, profile, store } = req;
  const filterFields =
    profile === "v1"
      ? ["id", ...USER_ATTRIBUTES, "userGroups.id"]
      : ["id", "authenticationId", "userGroup.id"];
  const q = parseListQuery(ctx.query, { filterFields, includes: includeNames(profile) });
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
  return listReply(req, { q, total, recs: ids.map((id) => store.mappings.get(id) as MappingRec) });
}

function createUser(req: UserRequest): Reply {
  const { ctx, profile, store } = req;
  const parsed = parseWrite(ctx, profile, "user");
  if (store.mappings.has(parsed.id)) throw new ProblemError(409, `user ${parsed.id} already exists`);
  const groups = parsed.relationships.get(relName(profile)) ?? [];
  checkGroupsExist(store, groups, `data.relationships.${relName(profile)}`);
  const rec: MappingRec = { id: parsed.id, groups };
  applyAttributes(rec, parsed);
  store.putMapping(rec);
  return single(req, rec, 201);
}

/** PUT replaces (legacy keeps the v1-only attributes), PATCH changes what is sent. */
function writeUser(req: UserRequest): Reply {
  const { ctx, profile, store } = req;
  const { parsed, existing } = parseUpdate(req);
  const sentGroups = parsed.relationships.get(relName(profile));
  if (sentGroups) checkGroupsExist(store, sentGroups, `relationships.${relName(profile)}`);
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
  return single(req, rec, 200);
}

function deleteUser({ ctx, store }: UserRequest): Reply {
  const id = ctx.param ?? "";
  if (!store.deleteMapping(id)) throw new ProblemError(404, `user ${id} not found`);
  return { status: 204 };
}

const USER_ROUTES: EntityRoutes<MappingRec> = {
  view: USER_VIEW,
  includes: includeNames,
  collection: { GET: listUsers, POST: createUser },
  item: {
    PUT: writeUser,
    PATCH: writeUser,
    DELETE: deleteUser,
  },
};

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
