/**
 * `/api/v1/entities/workspaces/{workspaceId}/userDataFilters[/{objectId}]` (profile v1), per the
 * official `JsonApiUserDataFilter*` schemas: list (paged, `include=user,userGroup`, `origin`
 * ALL|NATIVE|PARENTS: a child workspace also lists its ancestors' filters, with `meta.origin`
 * PARENT when asked for), create (POST, 409 on an id taken along the hierarchy), get, replace
 * (PUT) and delete. A filter names exactly one existing user or user group. The declarative
 * layout of filters is not served: usersync never sends it (it replaces every filter).
 */
import type { Assignee } from "../permissions.js";
import { groupOut, userOut } from "./entity-docs.js";
import { ok } from "./entity-common.js";
import type { FilterRec } from "./filter-store.js";
import { ID_PATTERN } from "./jsonapi.js";
import { JSON_API, ProblemError, isObject, type Reply } from "./http-util.js";
import { listLinksAndMeta, parseListQuery } from "./paging.js";
import type { RouteContext } from "./route-context.js";

const INCLUDES = ["user", "userGroup"];
const ATTRIBUTES = ["title", "description", "tags", "areRelationsValid", "maql"];
const MAX_MAQL = 10_000;

function filterOut(
  ctx: RouteContext,
  f: FilterRec,
  workspace: string,
  origin: boolean,
): Record<string, unknown> {
  const path = `/api/v1/entities/workspaces/${encodeURIComponent(workspace)}/userDataFilters/${encodeURIComponent(f.id)}`;
  return {
    id: f.id,
    type: "userDataFilter",
    attributes: {
      maql: f.maql,
      tags: [...f.tags],
      ...(f.title !== undefined ? { title: f.title } : {}),
      ...(f.description !== undefined ? { description: f.description } : {}),
    },
    relationships: { [f.assignee.type]: { data: { id: f.assignee.id, type: f.assignee.type } } },
    links: { self: `${ctx.base}${path}` },
    ...(origin
      ? {
          meta: {
            origin: { originType: f.workspace === workspace ? "NATIVE" : "PARENT", originId: f.workspace },
          },
        }
      : {}),
  };
}

function included(ctx: RouteContext, recs: readonly FilterRec[], include: ReadonlySet<string>): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const { assignee: a } of recs) {
    const key = `${a.type}/${a.id}`;
    if (!include.has(a.type) || seen.has(key)) continue;
    seen.add(key);
    const user = a.type === "user" ? ctx.store.mappings.get(a.id) : undefined;
    const group = a.type === "userGroup" ? ctx.store.groups.get(a.id) : undefined;
    if (user) out.push(userOut(user, "v1", ctx.base));
    if (group) out.push(groupOut(group, "v1", ctx.base));
  }
  return out;
}

/** The workspace and its ancestors, nearest first. */
function chain(ctx: RouteContext, workspace: string): string[] {
  const out: string[] = [];
  let at: string | undefined = workspace;
  while (at !== undefined && !out.includes(at)) {
    out.push(at);
    at = ctx.store.access.workspaces.get(at)?.parent;
  }
  return out;
}

function visible(ctx: RouteContext, workspace: string, origin: string): FilterRec[] {
  const [self, ...parents] = chain(ctx, workspace);
  const own = origin === "PARENTS" ? [] : ctx.store.filters.native(self!);
  const inherited = origin === "NATIVE" ? [] : parents.flatMap((p) => ctx.store.filters.native(p));
  return [...own, ...inherited];
}

function list(ctx: RouteContext, workspace: string): Reply {
  const origin = ctx.query.get("origin") ?? "ALL";
  if (!["ALL", "NATIVE", "PARENTS"].includes(origin))
    throw new ProblemError(400, `origin=${origin}: supported are ALL, NATIVE and PARENTS`);
  const q = parseListQuery(ctx.query, { filterFields: ["id"], includes: INCLUDES });
  const metaOrigin = ctx.query.getAll("metaInclude").some((v) => /(^|,)(origin|all|ALL)(,|$)/.test(v));
  const all = visible(ctx, workspace, origin)
    .filter((f) => q.filters.every((t) => f.id === t.value))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (q.descending) all.reverse();
  const recs = all.slice(q.page * q.size, (q.page + 1) * q.size);
  const doc: Record<string, unknown> = { data: recs.map((f) => filterOut(ctx, f, workspace, metaOrigin)) };
  if (q.include.size > 0) doc.included = included(ctx, recs, q.include);
  Object.assign(doc, listLinksAndMeta({ base: ctx.base, url: ctx.url, q, total: all.length }));
  return ok(200, doc);
}

/** The written resource, checked like the service: attributes, exactly one existing assignee. */
function parseFilter(
  ctx: RouteContext,
  workspace: string,
  idRequired: boolean,
): Omit<FilterRec, "workspace"> {
  const body = ctx.body(JSON_API);
  if (!isObject(body) || !isObject(body.data))
    throw new ProblemError(400, "body must be a JSON:API document with a `data` resource");
  const d = body.data;
  if (d.type !== "userDataFilter") throw new ProblemError(400, 'data.type: must be "userDataFilter"');
  if (d.id === undefined ? idRequired : typeof d.id !== "string" || !ID_PATTERN.test(d.id))
    throw new ProblemError(400, `data.id: must match ${ID_PATTERN.source}`);
  const attrs = isObject(d.attributes) ? d.attributes : undefined;
  if (!attrs) throw new ProblemError(400, "data.attributes: required, with maql");
  for (const k of Object.keys(attrs))
    if (!ATTRIBUTES.includes(k))
      throw new ProblemError(400, `data.attributes.${k}: unknown attribute of userDataFilter`);
  const { maql, title, description, tags } = attrs;
  if (typeof maql !== "string" || maql.trim() === "" || maql.length > MAX_MAQL)
    throw new ProblemError(
      400,
      `data.attributes.maql: must be a MAQL condition of at most ${MAX_MAQL} characters`,
    );
  if (title !== undefined && (typeof title !== "string" || title.length > 255))
    throw new ProblemError(400, "data.attributes.title: a string of at most 255 characters");
  if (tags !== undefined && (!Array.isArray(tags) || !tags.every((t) => typeof t === "string")))
    throw new ProblemError(400, "data.attributes.tags: must be a list of strings");
  return {
    id: typeof d.id === "string" ? d.id : `udf-${Math.random().toString(36).slice(2, 12)}`,
    maql,
    tags: [...new Set((tags as string[] | undefined) ?? [])],
    assignee: assigneeOf(ctx, d.relationships, workspace),
    ...(typeof title === "string" ? { title } : {}),
    ...(typeof description === "string" ? { description } : {}),
  };
}

function assigneeOf(ctx: RouteContext, rel: unknown, workspace: string): Assignee {
  const r = isObject(rel) ? rel : {};
  for (const k of Object.keys(r))
    if (!INCLUDES.includes(k))
      throw new ProblemError(
        400,
        `data.relationships.${k}: usersync's emulator takes only user or userGroup`,
      );
  const named = INCLUDES.filter((k) => isObject(r[k]) && isObject((r[k] as { data?: unknown }).data));
  if (named.length !== 1)
    throw new ProblemError(
      400,
      "data.relationships: name exactly one of user or userGroup, with data {id, type}",
    );
  const type = named[0] as Assignee["type"];
  const data = (r[type] as { data: Record<string, unknown> }).data;
  if (data.type !== type || typeof data.id !== "string")
    throw new ProblemError(400, `data.relationships.${type}.data: must be {id, type: "${type}"}`);
  const exists = (type === "user" ? ctx.store.mappings : ctx.store.groups).has(data.id);
  if (!exists)
    throw new ProblemError(
      404,
      `${type} ${data.id} not found: a filter on ${workspace} must name an existing ${type}`,
    );
  return { type, id: data.id };
}

export function handleUserDataFilters(ctx: RouteContext, workspace: string): Reply {
  if (!ctx.store.access.workspaces.has(workspace))
    throw new ProblemError(404, `workspace ${workspace} not found`);
  const id = ctx.param;
  const { filters } = ctx.store;
  if (id === undefined) {
    if (ctx.method === "GET") return list(ctx, workspace);
    if (ctx.method !== "POST") throw new ProblemError(405, `${ctx.method} is not allowed on a collection`);
    const rec = { ...parseFilter(ctx, workspace, false), workspace };
    const taken = chain(ctx, workspace).some((ws) => filters.get(ws, rec.id) !== undefined);
    if (taken)
      throw new ProblemError(
        409,
        `userDataFilter ${rec.id} already exists in ${workspace} or a parent workspace`,
      );
    filters.put(rec);
    return ok(201, { data: filterOut(ctx, rec, workspace, false) });
  }
  const found = filters.get(workspace, id);
  if (ctx.method === "GET") {
    if (!found) throw new ProblemError(404, `userDataFilter ${id} not found in ${workspace}`);
    return ok(200, { data: filterOut(ctx, found, workspace, false) });
  }
  if (ctx.method === "DELETE") {
    if (!filters.delete(workspace, id))
      throw new ProblemError(404, `userDataFilter ${id} not found in ${workspace}`);
    return { status: 204 };
  }
  if (ctx.method !== "PUT")
    throw new ProblemError(405, `${ctx.method} is not allowed on a userDataFilter here (PUT replaces it)`);
  const rec = { ...parseFilter(ctx, workspace, true), workspace };
  if (rec.id !== id) throw new ProblemError(400, `data.id ${rec.id} differs from the path's ${id}`);
  if (!found) throw new ProblemError(404, `userDataFilter ${id} not found in ${workspace}`);
  filters.put(rec);
  return ok(200, { data: filterOut(ctx, rec, workspace, false) });
}
