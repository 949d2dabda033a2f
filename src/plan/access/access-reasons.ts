/** The reasons and filters of effective-access.ts: how each reads for a person, and their order. */
import type { ActualDataFilter } from "../../data-filters.js";
import { compareIds as cmp, type Assignee } from "../../permissions.js";
import type { AccessReason, EffectiveFilter } from "./reach-types.js";

const assigneeText = (a: Assignee): string => (a.type === "user" ? "own grant" : `group ${a.id}`);

export function withChain(r: AccessReason, chain: string[]): AccessReason {
  const via = chain.length > 1 ? `${chain.join(" -> ")}` : assigneeText(r.holder);
  const group = r.holder.type === "userGroup" ? (chain.length > 1 ? `group ${via}` : via) : via;
  const below =
    r.below !== undefined
      ? `, hierarchy ${r.below.permissions.join(" ")} also on the ${r.below.workspaces} workspace(s) below`
      : "";
  const text =
    r.kind === "hierarchy"
      ? `${group}, hierarchy from ${r.workspaceChain.join(" > ")}`
      : `${r.holder.type === "user" ? "direct grant" : group}${below}`;
  return {
    ...r,
    kind: r.kind === "hierarchy" ? "hierarchy" : r.holder.type === "user" ? "direct" : "group",
    groupChain: chain,
    text,
  };
}

export function effective(f: ActualDataFilter, via: "own" | "group", chain: string[]): EffectiveFilter {
  return {
    id: f.id,
    ...(f.title !== undefined ? { title: f.title } : {}),
    via,
    holder: f.assignee,
    groupChain: chain,
    workspace: f.workspace,
    fromParent: false,
    maql: f.maql,
    managed: f.managed,
  };
}

const KIND_ORDER = { direct: 0, group: 1, hierarchy: 2, organization: 3 } as const;
export const byReason = (a: AccessReason, b: AccessReason): number =>
  KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
  cmp(a.holder.type, b.holder.type) ||
  cmp(a.holder.id, b.holder.id) ||
  cmp(a.grantedOn, b.grantedOn);
export const byFilter = (a: EffectiveFilter, b: EffectiveFilter): number =>
  cmp(a.workspace, b.workspace) ||
  cmp(a.holder.type, b.holder.type) ||
  cmp(a.holder.id, b.holder.id) ||
  cmp(a.id, b.id);
