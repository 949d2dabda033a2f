/**
 * The users (mappings) entity routes, both profiles, as a table of handlers by method. v1 links
 * a user to many groups (`userGroups`), legacy to at most one (`userGroup`).
 */
import { ProblemError, type Reply } from "./http-util.js";
import type { ParsedResource } from "./jsonapi.js";
import { listLinksAndMeta, pageIds, parseInclude, parseListQuery } from "./paging.js";
import type { RouteContext } from "./route-context.js";
import type { MappingRec } from "./store.js";
import { USER_ATTRIBUTES, linkedGroups, userOut, type Profile } from "./entity-docs.js";
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

type UserRequest = EntityRequest<MappingRec>;

const relName = (profile: Profile): string => (profile === "v1" ? "userGroups" : "userGroup");
/** Legacy clients may name the to-one relationship (`userGroup`) instead of the collection. */
const includeNames = (profile: Profile): string[] =>
  profile === "v1" ? ["userGroups"] : ["userGroups", "userGroup"];

export function handleUsers(ctx: RouteContext, profile: Profile): Reply {
  const { store } = ctx;
  // Checked before any write, so a bad `include` never answers 400 for a write that landed.
  const include = parseInclude(ctx.query, includeNames(profile));
  const single = (rec: MappingRec, status: number): Reply => {
    const doc: Record<string, unknown> = { data: userOut(rec, profile, ctx.base) };
    if (include.size > 0) {
      doc.included = includedGroups(store, linkedGroups(rec, profile), profile, ctx.base);
    }
    return ok(status, doc);
  };
  return dispatch(USER_ROUTES, { ctx, profile, store, single });
}

function listUsers({ ctx, profile, store }: UserRequest): Reply {
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

function createUser({ ctx, profile, store, single }: UserRequest): Reply {
  const parsed = parseWrite(ctx, profile, "user");
  if (store.mappings.has(parsed.id)) throw new ProblemError(409, `user ${parsed.id} already exists`);
  const groups = parsed.relationships.get(relName(profile)) ?? [];
  checkGroupsExist(store, groups, `data.relationships.${relName(profile)}`);
  const rec: MappingRec = { id: parsed.id, groups };
  applyAttributes(rec, parsed);
  store.putMapping(rec);
  return single(rec, 201);
}

function existingUser({ ctx, store }: UserRequest): MappingRec {
  const existing = store.mappings.get(paramOf(ctx));
  if (!existing) throw new ProblemError(404, `user ${paramOf(ctx)} not found`);
  return existing;
}

/** PUT replaces (legacy keeps the v1-only attributes), PATCH changes what is sent. */
function writeUser(req: UserRequest): Reply {
  const { ctx, profile, store } = req;
  const parsed = parseWrite(ctx, profile, "user");
  checkPathId(ctx, parsed);
  const existing = existingUser(req);
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
  return req.single(rec, 200);
}

function deleteUser({ ctx, store }: UserRequest): Reply {
  if (!store.deleteMapping(paramOf(ctx))) throw new ProblemError(404, `user ${paramOf(ctx)} not found`);
  return { status: 204 };
}

const USER_ROUTES: EntityRoutes<MappingRec> = {
  collectionName: "users collection",
  itemName: "user",
  collection: { GET: listUsers, POST: createUser },
  item: {
    GET: (req) => req.single(existingUser(req), 200),
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
