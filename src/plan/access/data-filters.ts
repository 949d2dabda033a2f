/**
 * User data filters (docs/data-filters.md). Only users and groups whose desired state carries
 * `dataFilters` are managed (in scope, not protected), only on workspaces in
 * `dataFilters.workspaces`, and only the filters usersync made (its tag and its id); a filter
 * made by hand is never touched. A filter is compared by meaning (label and value set). A new or
 * narrower filter is safe at any time and comes first (filter-order.ts makes every step that gives
 * access wait for it); a removal or a widening while access it guards remains (on its workspace or
 * below, the holder's or a member's: reach.ts) is a **widening**,
 * held back over `dataFilters.maxWidenings`. Incremental mode changes the workspaces an entry
 * lists; full mode also removes the managed filters of in-scope workspaces it no longer lists.
 */
import { isNarrowing, managedFilterId, sameMeaning, type ActualDataFilter } from "../../data-filters.js";
import type { DesiredDataFilter, DesiredState } from "../../desired/types.js";
import { assigneeKey, type Assignee } from "../../permissions.js";
import { groupRefusal, mappingCreatedBy, userRefusal } from "./holders.js";
import type { PlanContext } from "../context.js";
import { dataFilterKey } from "../fingerprint.js";
import { guardLimit } from "../guard.js";
import type { Policy } from "../policy.js";
import { workspaceMatcher } from "../safety.js";
import { base, groupKey, mappingKey, notice } from "../steps.js";
import type { DataFilterStep, Plan } from "../types.js";
import { orderForFilters } from "./filter-order.js";
import { makeReach, type Reach } from "./reach.js";

interface Holder {
  assignee: Assignee;
  filters: readonly DesiredDataFilter[];
  createdBy: string | undefined;
  /** A leaver whose access is revoked (plan/revoke-access.ts): every managed filter goes, in either mode. */
  leaver?: true;
}

/** Whether this plan manages data filters: a scope in the config and `dataFilters` on an entry. */
export function managesDataFilters(o: { desired: DesiredState; policy: Policy }): boolean {
  if ((o.policy.dataFilters?.workspaces.length ?? 0) === 0) return false;
  return (
    o.desired.groups.some((g) => g.dataFilters !== undefined) ||
    o.desired.users.some((u) => u.state === "present" && u.dataFilters !== undefined)
  );
}

/** What the listing needs: the scope, when this run manages filters (else undefined: nothing is listed). */
export function dataFilterListing(o: {
  desired: DesiredState;
  policy: Policy;
}): { inScope: (ws: string) => boolean } | undefined {
  return managesDataFilters(o)
    ? { inScope: workspaceMatcher(o.policy.dataFilters?.workspaces ?? []) }
    : undefined;
}

/** For `export`: the filters of `dataFilters.workspaces`, whatever the desired state says (unset: none). */
export function exportFilterListing(policy: Policy): { inScope: (ws: string) => boolean } | undefined {
  const globs = policy.dataFilters?.workspaces ?? [];
  return globs.length > 0 ? { inScope: workspaceMatcher(globs) } : undefined;
}

function holders(ctx: PlanContext): Holder[] {
  const out: Holder[] = [];
  const refuse = (target: string, why: string): void =>
    notice(ctx, {
      kind: why.startsWith("protected") ? "protected" : "refused",
      target,
      message: `${why}; its data filters are not planned`,
    });
  for (const g of ctx.desired.groups) {
    if (g.dataFilters === undefined) continue;
    const createdBy = ctx.createdGroups.get(g.id);
    const why = groupRefusal(ctx, g.id, createdBy);
    if (why !== undefined) refuse(groupKey(g.id), why);
    else out.push({ assignee: { type: "userGroup", id: g.id }, filters: g.dataFilters, createdBy });
  }
  for (const u of ctx.desired.users) {
    if (u.state !== "present" || u.dataFilters === undefined) continue;
    const createdBy = mappingCreatedBy(ctx, u.id);
    const why = userRefusal(ctx, u, createdBy);
    if (why !== undefined) refuse(mappingKey(u.id), why);
    else out.push({ assignee: { type: "user", id: u.id }, filters: u.dataFilters, createdBy });
  }
  // Their filters go once their access has (filter-order.ts); none while maxDeletes holds them back.
  if (!ctx.accessRevokesHeld)
    for (const id of [...ctx.accessRevokes.keys()].sort())
      out.push({ assignee: { type: "user", id }, filters: [], createdBy: undefined, leaver: true });
  return out;
}

const targetOf = (ws: string, a: Assignee): string => `${ws}/${assigneeKey(a)}`;

function filterStep(
  h: Holder,
  ws: string,
  change: { before?: string; after?: string; widening: boolean },
): DataFilterStep {
  const { assignee } = h;
  const kind =
    change.before === undefined
      ? "createDataFilter"
      : change.after === undefined
        ? "deleteDataFilter"
        : "updateDataFilter";
  const who = `${assignee.type === "user" ? "user" : "group"} ${assignee.id}`;
  const reason =
    kind === "createDataFilter"
      ? `${who} has no data filter on ${ws}: the desired state sets one`
      : kind === "updateDataFilter"
        ? `${who}'s data filter on ${ws} differs from the desired state${change.widening ? " (it may show more rows: a widening)" : ""}`
        : h.leaver
          ? `${who}'s data filter on ${ws} goes once their access is revoked${change.widening ? ", but access it guards remains (a widening)" : ""}`
          : `${who}'s data filter on ${ws} is no longer in the desired state${change.widening ? " while its access remains (a widening)" : ""}`;
  const common = {
    ...base({
      kind,
      target: targetOf(ws, assignee),
      reason,
      touches: [dataFilterKey(ws, assignee)],
      dependsOn: h.createdBy !== undefined && kind !== "deleteDataFilter" ? [h.createdBy] : [],
    }),
    workspace: ws,
    assignee,
    filterId: managedFilterId(ws, assignee),
  };
  if (kind === "createDataFilter") return { ...common, kind, after: { maql: change.after! } };
  if (kind === "updateDataFilter")
    return {
      ...common,
      kind,
      before: { maql: change.before! },
      after: { maql: change.after! },
      widening: change.widening,
    };
  return { ...common, kind, before: { maql: change.before! }, widening: change.widening };
}

/** The steps of one holder: its listed in-scope workspaces, and in full mode the unlisted ones it has. */
function holderSteps(
  ctx: PlanContext,
  h: Holder,
  o: { have: ReadonlyMap<string, ActualDataFilter>; inScope: (ws: string) => boolean; reach: Reach },
): DataFilterStep[] {
  const out: DataFilterStep[] = [];
  const wanted = new Map(
    h.filters.filter((f) => o.inScope(f.workspace)).map((f) => [f.workspace, f.maql] as const),
  );
  for (const [ws, maql] of wanted) {
    const cur = o.have.get(ws);
    if (!cur) out.push(filterStep(h, ws, { after: maql, widening: false }));
    else if (!sameMeaning(cur.maql, maql)) {
      const widening = !isNarrowing(cur.maql, maql) && o.reach.guardsAfter(h.assignee, ws);
      out.push(filterStep(h, ws, { before: cur.maql, after: maql, widening }));
    }
  }
  if (ctx.policy.mode === "full" || h.leaver)
    for (const [ws, cur] of o.have)
      if (!wanted.has(ws) && o.inScope(ws))
        out.push(filterStep(h, ws, { before: cur.maql, widening: o.reach.guardsAfter(h.assignee, ws) }));
  return out;
}

/** Plans every data filter step and the order around them; returns the guard, or undefined when none are managed. */
export function planDataFilters(ctx: PlanContext): Plan["dataFilterGuard"] {
  const policy = ctx.policy.dataFilters;
  if (!policy || !managesDataFilters(ctx)) return undefined;
  const inScope = workspaceMatcher(policy.workspaces);
  const listed = new Set(ctx.actual.dataFilters?.workspaces ?? []);
  const managed = new Map<string, Map<string, ActualDataFilter>>();
  for (const f of ctx.actual.dataFilters?.filters ?? []) {
    // Only the filter usersync keeps for this assignee here: any other, tagged or not, is left alone.
    if (!f.managed || f.id !== managedFilterId(f.workspace, f.assignee)) continue;
    const key = assigneeKey(f.assignee);
    (managed.get(key) ?? managed.set(key, new Map()).get(key)!).set(f.workspace, f);
  }
  const reach = makeReach(ctx);
  const steps: DataFilterStep[] = [];
  let managedFilters = 0;
  for (const h of holders(ctx)) {
    const have = managed.get(assigneeKey(h.assignee)) ?? new Map<string, ActualDataFilter>();
    managedFilters += have.size;
    // A workspace that was not listed (not in the organization) is not planned: checks report it.
    const scoped = (ws: string): boolean => inScope(ws) && listed.has(ws);
    steps.push(...holderSteps(ctx, h, { have, inScope: scoped, reach }));
  }
  for (const s of steps) ctx.steps.set(s.id, s);
  orderForFilters(ctx, steps, reach);
  const widenings = steps.filter((s) => s.kind !== "createDataFilter" && s.widening);
  const limit = guardLimit(policy.maxWidenings, policy.allowWidenings, managedFilters);
  if (widenings.length > limit) for (const s of widenings) s.status = "heldBack";
  return { limit, wanted: widenings.length, managedFilters };
}
