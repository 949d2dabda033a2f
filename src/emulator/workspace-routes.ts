/**
 * `GET /api/v1/entities/workspaces[/{id}]` (profile v1): the seeded workspaces as the official
 * `JsonApiWorkspaceOut` documents, with the `parent` relationship (and the parents `included`
 * with `include=parent` or `ALL`), paged like every entity listing. The emulator serves
 * workspaces read-only: they come from the seed (other methods answer 405).
 */
import { ProblemError, type Reply } from "./http-util.js";
import type { WorkspaceRec } from "./access-store.js";
import { ok } from "./entity-common.js";
import { listLinksAndMeta, pageIds, parseInclude, parseListQuery } from "./paging.js";
import type { RouteContext } from "./route-context.js";

const INCLUDES = ["parent", "workspaces"];

function workspaceOut(rec: WorkspaceRec, base: string): Record<string, unknown> {
  return {
    id: rec.id,
    type: "workspace",
    attributes: rec.name !== undefined ? { name: rec.name } : {},
    ...(rec.parent !== undefined
      ? { relationships: { parent: { data: { id: rec.parent, type: "workspace" } } } }
      : {}),
    links: { self: `${base}/api/v1/entities/workspaces/${encodeURIComponent(rec.id)}` },
  };
}

function included(ctx: RouteContext, recs: WorkspaceRec[]): unknown[] {
  const ws = ctx.store.access.workspaces;
  const parents = new Set(recs.flatMap((r) => (r.parent !== undefined ? [r.parent] : [])));
  return [...parents].flatMap((id) => {
    const p = ws.get(id);
    return p ? [workspaceOut(p, ctx.base)] : [];
  });
}

export function handleWorkspaces(ctx: RouteContext): Reply {
  if (ctx.method !== "GET")
    throw new ProblemError(
      405,
      `${ctx.method} is not allowed on workspaces: the emulator's workspaces come from its seed (GET)`,
    );
  const { access } = ctx.store;
  if (ctx.param !== undefined) {
    const include = parseInclude(ctx.query, INCLUDES);
    const rec = access.workspaces.get(ctx.param);
    if (!rec) throw new ProblemError(404, `workspace ${ctx.param} not found`);
    const doc: Record<string, unknown> = { data: workspaceOut(rec, ctx.base) };
    if (include.size > 0) doc.included = included(ctx, [rec]);
    return ok(200, doc);
  }
  const q = parseListQuery(ctx.query, { filterFields: ["id", "name", "parent.id"], includes: INCLUDES });
  const value = (w: WorkspaceRec, f: string): string | undefined =>
    f === "id" ? w.id : f === "name" ? w.name : w.parent;
  const { ids, total } = pageIds({
    q,
    sorted: access.workspaceIds,
    candidates: undefined,
    matches: (id) => {
      const w = access.workspaces.get(id);
      return w !== undefined && q.filters.every((f) => value(w, f.field) === f.value);
    },
  });
  const recs = ids.map((id) => access.workspaces.get(id)!);
  const doc: Record<string, unknown> = { data: recs.map((r) => workspaceOut(r, ctx.base)) };
  if (q.include.size > 0) doc.included = included(ctx, recs);
  Object.assign(doc, listLinksAndMeta({ base: ctx.base, url: ctx.url, q, total }));
  return ok(200, doc);
}
