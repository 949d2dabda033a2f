/**
 * What the user and user group routes share: the request as a handler sees it, the table of
 * handlers by method, and the checks of a written resource.
 */
import { JSON_API, ProblemError, type Reply } from "./http-util.js";
import { parseDocument, parseResource, type ParsedResource } from "./jsonapi.js";
import type { RouteContext } from "./route-context.js";
import type { Store } from "./store.js";
import { SPECS, groupOut, type Profile } from "./entity-docs.js";

/** A request to an entity route, with what every handler of that entity needs. */
export interface EntityRequest<R> {
  ctx: RouteContext;
  profile: Profile;
  store: Store;
  /** The document of one record, with its `included` groups when asked for. */
  single: (rec: R, status: number) => Reply;
}

export type EntityHandler<R> = (req: EntityRequest<R>) => Reply;

/** The routes of one entity type: handlers by method, for the collection and for one item. */
export interface EntityRoutes<R> {
  /** As the 405 messages name them: "users collection", "user". */
  collectionName: string;
  itemName: string;
  collection: Readonly<Record<string, EntityHandler<R>>>;
  item: Readonly<Record<string, EntityHandler<R>>>;
}

/** Legacy has no PATCH. */
const METHODS: Record<Profile, readonly string[]> = {
  v1: ["GET", "POST", "PUT", "PATCH", "DELETE"],
  legacy: ["GET", "POST", "PUT", "DELETE"],
};

/** The handler of the request's method, or 405 naming the methods allowed. */
export function dispatch<R>(routes: EntityRoutes<R>, req: EntityRequest<R>): Reply {
  const { ctx, profile } = req;
  const onItem = ctx.param !== undefined;
  const handlers = onItem ? routes.item : routes.collection;
  const allowed = METHODS[profile].filter((m) => Object.hasOwn(handlers, m));
  const handler = allowed.includes(ctx.method) ? handlers[ctx.method] : undefined;
  if (handler) return handler(req);
  const what = onItem ? `a ${routes.itemName}` : `the ${routes.collectionName}`;
  throw new ProblemError(405, `${ctx.method} is not allowed on ${what} (${allowed.join(", ")})`);
}

/** The path parameter of an item route. */
export const paramOf = (ctx: RouteContext): string => ctx.param ?? "";

export const ok = (status: number, body?: unknown): Reply => ({ status, body, contentType: JSON_API });

export function parseWrite(ctx: RouteContext, profile: Profile, type: "user" | "userGroup"): ParsedResource {
  const body = ctx.body(JSON_API);
  const spec = SPECS[profile][type];
  // The seed contract's PUT takes the resource object itself, without the `data` wrapper.
  if (profile === "legacy" && ctx.method === "PUT") return parseResource(body, spec, "body");
  return parseDocument(body, spec);
}

export function checkPathId(ctx: RouteContext, parsed: ParsedResource): void {
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
