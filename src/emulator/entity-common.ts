/**
 * What the user and user group routes share: the request as a handler sees it, the table of
 * handlers by method, and the checks of a written resource.
 */
import { JSON_API, ProblemError, type Reply } from "./http-util.js";
import { parseDocument, parseResource, type ParsedResource } from "./jsonapi.js";
import { listLinksAndMeta, parseInclude, type ListQuery } from "./paging.js";
import type { RouteContext } from "./route-context.js";
import type { Store } from "./store.js";
import { SPECS, groupOut, type Profile } from "./entity-docs.js";

/** An entity's records: where they are kept and how they appear in documents. */
export interface EntityView<R> {
  /** The JSON:API type, as messages name it. */
  type: "user" | "userGroup";
  records: (store: Store) => ReadonlyMap<string, R>;
  /** The resource object of a record. */
  out: (rec: R, profile: Profile, base: string) => unknown;
  /** The groups a record links to, for `included`. */
  linked: (rec: R, profile: Profile) => readonly string[];
}

/** A request to an entity route, with what every handler of that entity needs. */
export interface EntityRequest<R> {
  ctx: RouteContext;
  profile: Profile;
  store: Store;
  view: EntityView<R>;
  /** `include` of the query, checked before any write (a bad one never answers 400 after a write landed). */
  include: ReadonlySet<string>;
}

/** The document of one record, with its linked groups `included` when asked for. */
export function single<R>(req: EntityRequest<R>, rec: R, status: number): Reply {
  const { ctx, profile, store, view } = req;
  const doc: Record<string, unknown> = { data: view.out(rec, profile, ctx.base) };
  if (req.include.size > 0)
    doc.included = includedGroups(store, view.linked(rec, profile), profile, ctx.base);
  return ok(status, doc);
}

/** The document of one page of a list, with links, meta and (when asked for) linked groups. */
export function listReply<R>(req: EntityRequest<R>, page: { q: ListQuery; total: number; recs: R[] }): Reply {
  const { ctx, profile, store, view } = req;
  const { q, total, recs } = page;
  const doc: Record<string, unknown> = { data: recs.map((r) => view.out(r, profile, ctx.base)) };
  if (q.include.size > 0)
    doc.included = includedGroups(
      store,
      recs.flatMap((r) => view.linked(r, profile)),
      profile,
      ctx.base,
    );
  Object.assign(doc, listLinksAndMeta({ base: ctx.base, url: ctx.url, q, total }));
  return ok(200, doc);
}

export type EntityHandler<R> = (req: EntityRequest<R>) => Reply;

/**
 * The routes of one entity type: handlers by method, for the collection and for one item. GET of
 * an item (the record or 404) is the same for every entity and needs no entry.
 */
export interface EntityRoutes<R> {
  view: EntityView<R>;
  /** The names `include` may take. */
  includes: (profile: Profile) => readonly string[];
  collection: Readonly<Record<string, EntityHandler<R>>>;
  item: Readonly<Record<string, EntityHandler<R>>>;
}

const readRecord = <R>(req: EntityRequest<R>): Reply => single(req, existingRecord(req), 200);

export function handleEntity<R>(routes: EntityRoutes<R>, ctx: RouteContext, profile: Profile): Reply {
  const include = parseInclude(ctx.query, routes.includes(profile));
  return dispatch(routes, { ctx, profile, store: ctx.store, view: routes.view, include });
}

/** Legacy has no PATCH. */
const METHODS: Record<Profile, readonly string[]> = {
  v1: ["GET", "POST", "PUT", "PATCH", "DELETE"],
  legacy: ["GET", "POST", "PUT", "DELETE"],
};

/** The handler of the request's method, or 405 naming the methods allowed. */
function dispatch<R>(routes: EntityRoutes<R>, req: EntityRequest<R>): Reply {
  const { ctx, profile } = req;
  const onItem = ctx.param !== undefined;
  const handlers = onItem ? routes.item : routes.collection;
  const served = (m: string): boolean => (onItem && m === "GET") || Object.hasOwn(handlers, m);
  if (METHODS[profile].includes(ctx.method) && served(ctx.method))
    return onItem && ctx.method === "GET" ? readRecord(req) : handlers[ctx.method]!(req);
  const allowed = METHODS[profile].filter(served);
  const what = onItem ? `a ${routes.view.type}` : `the ${routes.view.type}s collection`;
  throw new ProblemError(405, `${ctx.method} is not allowed on ${what} (${allowed.join(", ")})`);
}

/** The record the path names, or 404. */
export function existingRecord<R>(req: EntityRequest<R>): R {
  const id = req.ctx.param ?? "";
  const rec = req.view.records(req.store).get(id);
  if (rec === undefined) throw new ProblemError(404, `${req.view.type} ${id} not found`);
  return rec;
}

/** The body of a PUT or PATCH, checked to keep the path's id, and the record it changes (or 404). */
export function parseUpdate<R>(req: EntityRequest<R>): { parsed: ParsedResource; existing: R } {
  const parsed = parseWrite(req.ctx, req.profile, req.view.type);
  checkPathId(req.ctx, parsed);
  return { parsed, existing: existingRecord(req) };
}

export const ok = (status: number, body?: unknown): Reply => ({ status, body, contentType: JSON_API });

export function parseWrite(ctx: RouteContext, profile: Profile, type: "user" | "userGroup"): ParsedResource {
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

export function checkGroupsExist(store: Store, ids: readonly string[], where: string): void {
  for (const id of ids) {
    if (!store.groups.has(id))
      throw new ProblemError(400, `${where}: userGroup ${id} does not exist; create it first`);
  }
}

export function includedGroups(
  store: Store,
  ids: Iterable<string>,
  profile: Profile,
  base: string,
): unknown[] {
  const out: unknown[] = [];
  for (const id of new Set(ids)) {
    const g = store.groups.get(id);
    if (g) out.push(groupOut(g, profile, base));
  }
  return out;
}
