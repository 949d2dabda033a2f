/** The review's tables beside its people (build.ts): workspaces, organization permissions, the summary. */
import { compareIds as cmp } from "../permissions.js";
import type { ActualState } from "../service/types.js";
import type { AccessModel } from "../plan/access/effective-access.js";
import type { PersonContext } from "./people.js";
import type {
  OrganizationPermissionRow,
  Review,
  ReviewGroup,
  ReviewPerson,
  ReviewSummary,
  ReviewWorkspace,
} from "./types.js";

export function belowFn(workspaces: readonly { id: string; parent?: string }[]): (ws: string) => string[] {
  const children = new Map<string, string[]>();
  for (const w of workspaces)
    if (w.parent !== undefined)
      (children.get(w.parent) ?? children.set(w.parent, []).get(w.parent)!).push(w.id);
  return (ws) => {
    const out: string[] = [];
    const seen = new Set<string>();
    const walk = (at: string): void => {
      if (seen.has(at)) return;
      seen.add(at);
      out.push(at);
      for (const c of children.get(at) ?? []) walk(c);
    };
    walk(ws);
    return out;
  };
}

export function workspaceRows(
  workspaces: readonly { id: string; name?: string; parent?: string }[],
  model: AccessModel,
  people: readonly ReviewPerson[],
): ReviewWorkspace[] {
  const reach = new Map<string, number>();
  for (const p of people)
    for (const a of p.access) if (a.reaches) reach.set(a.workspace, (reach.get(a.workspace) ?? 0) + 1);
  return workspaces
    .map((w) => ({
      id: w.id,
      ...(w.name !== undefined ? { name: w.name } : {}),
      ...(w.parent !== undefined ? { parent: w.parent } : {}),
      path: [...model.pathOf(w.id)],
      filterCount: model.filterCount(w.id),
      peopleWithAccess: reach.get(w.id) ?? 0,
    }))
    .sort((a, b) => cmp(a.id, b.id));
}

export function orgRows(ctx: PersonContext, people: readonly ReviewPerson[]): OrganizationPermissionRow[] {
  const emails = new Map(people.filter((p) => p.id !== undefined).map((p) => [p.id!, p.email]));
  const rows: OrganizationPermissionRow[] = [];
  for (const a of ctx.input.actual.permissions?.organization ?? []) {
    if (a.permissions.length === 0) continue;
    const email = a.assignee.type === "user" ? emails.get(a.assignee.id) : undefined;
    rows.push({
      assignee: a.assignee,
      ...(email !== undefined ? { email } : {}),
      permissions: a.permissions,
      privileged: a.permissions.includes("MANAGE"),
      ...(a.assignee.type === "userGroup"
        ? { people: people.filter((p) => p.allGroups.includes(a.assignee.id)).length }
        : {}),
      ...(ctx.index ? { managed: ctx.index.givesOrganization(a.assignee, a.permissions) } : {}),
    });
  }
  return rows.sort((a, b) => cmp(a.assignee.type, b.assignee.type) || cmp(a.assignee.id, b.assignee.id));
}

export function summarize(
  c: Pick<Review, "workspaces" | "groups" | "people" | "findings">,
  actual: ActualState,
): ReviewSummary {
  const byStatus: ReviewSummary["byStatus"] = {};
  const byAgreement: ReviewSummary["byAgreement"] = {};
  const findingsByKind: ReviewSummary["findingsByKind"] = {};
  let accessRows = 0;
  let unfilteredRows = 0;
  for (const p of c.people) {
    byStatus[p.status] = (byStatus[p.status] ?? 0) + 1;
    byAgreement[p.agreement] = (byAgreement[p.agreement] ?? 0) + 1;
    accessRows += p.access.length;
    for (const a of p.access) if (a.unfiltered) unfilteredRows += 1;
  }
  for (const f of c.findings) findingsByKind[f.kind] = (findingsByKind[f.kind] ?? 0) + 1;
  return {
    people: c.people.length,
    byStatus,
    byAgreement,
    workspaces: c.workspaces.length,
    groups: c.groups.length,
    accessRows,
    privilegedPeople: c.people.filter((p) => p.privileged).length,
    unfilteredRows,
    filters: actual.dataFilters?.filters.length ?? 0,
    findings: c.findings.length,
    findingsByKind,
  };
}

export function groupRows(actual: ActualState): ReviewGroup[] {
  const members = new Map<string, number>();
  for (const m of actual.mappings) for (const g of m.groups) members.set(g, (members.get(g) ?? 0) + 1);
  return actual.groups
    .map((g) => ({
      id: g.id,
      ...(g.name !== undefined ? { name: g.name } : {}),
      parents: [...g.parents],
      members: members.get(g.id) ?? 0,
    }))
    .sort((a, b) => cmp(a.id, b.id));
}
