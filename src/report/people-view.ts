/**
 * The plan person by person, for a manager (issue 49): who is new, who leaves, who changes; their
 * name and department, the groups and workspaces they gain and lose, their start and end dates.
 * Built from the plan's steps, the desired state (names, dates) and what the listing read of the
 * groups' workspace grants (a workspace reached through a group is named too).
 */
import type { DesiredState, DesiredUser } from "../desired/types.js";
import type { Plan, Step } from "../plan/types.js";
import type { ActualState } from "../service/types.js";

export interface PersonView {
  id: string;
  email: string;
  name: string;
  /** The groups the desired state gives them (their department, as HR's file said). */
  department: string[];
  change: "new" | "leaves" | "changes" | "starts later";
  groupsGained: string[];
  groupsLost: string[];
  workspacesGained: string[];
  workspacesLost: string[];
  startDate?: string;
  endDate?: string;
}

interface Draft {
  id: string;
  email: string;
  change: PersonView["change"];
  groupsGained: Set<string>;
  groupsLost: Set<string>;
  workspacesGained: Set<string>;
  workspacesLost: Set<string>;
  displayName?: string;
}

const sorted = (s: Set<string>): string[] => [...s].sort();

/** Every person the plan changes or dates, sorted by name then email. */
export function peopleView(plan: Plan, desired: DesiredState, actual?: ActualState): PersonView[] {
  const byId = new Map(desired.users.map((u) => [u.id, u]));
  const byEmail = new Map(desired.users.map((u) => [u.email.toLowerCase(), u]));
  const drafts = new Map<string, Draft>();
  const draft = (id: string, email: string, change: Draft["change"]): Draft => {
    const d = drafts.get(id) ?? {
      id,
      email,
      change,
      groupsGained: new Set<string>(),
      groupsLost: new Set<string>(),
      workspacesGained: new Set<string>(),
      workspacesLost: new Set<string>(),
    };
    // A new login or a leaver says more than "changes".
    if (d.change === "changes") d.change = change;
    drafts.set(id, d);
    return d;
  };
  const person = (idOrEmail: string, change: Draft["change"]): Draft => {
    const u = byId.get(idOrEmail) ?? byEmail.get(idOrEmail.toLowerCase());
    return draft(u?.id ?? idOrEmail, u?.email ?? idOrEmail, change);
  };
  for (const s of plan.steps) if (s.status === "planned") readStep(s, person);
  for (const p of plan.dates?.notYetStarted ?? []) draft(p.id, p.email, "starts later");
  const groupWorkspaces = workspacesOfGroups(desired, actual);
  return [...drafts.values()]
    .map((d) => finish(d, byId.get(d.id), groupWorkspaces))
    .sort((a, b) => a.name.localeCompare(b.name) || a.email.localeCompare(b.email));
}

function readStep(s: Step, person: (idOrEmail: string, change: Draft["change"]) => Draft): void {
  switch (s.kind) {
    case "createCredentials":
      person(s.target, "new").displayName = s.after.displayName;
      return;
    case "createMapping":
      for (const g of s.after.groups ?? []) person(s.target, "new").groupsGained.add(g);
      person(s.target, "new");
      return;
    case "updateMapping": {
      const p = person(s.target, s.revokesAccess ? "leaves" : "changes");
      const before = new Set(s.before.groups ?? []);
      const after = new Set(s.after.groups ?? []);
      for (const g of after) if (!before.has(g)) p.groupsGained.add(g);
      for (const g of before) if (!after.has(g)) p.groupsLost.add(g);
      return;
    }
    case "deleteMapping":
      for (const g of s.before.groups ?? []) person(s.target, "leaves").groupsLost.add(g);
      person(s.target, "leaves");
      return;
    case "deleteCredentials":
      person(s.before.email, "leaves");
      return;
    case "addMembers":
      for (const m of s.members) person(m, "changes").groupsGained.add(s.target);
      return;
    case "removeMembers":
      for (const m of s.members) person(m, "changes").groupsLost.add(s.target);
      return;
    case "grantWorkspacePermissions":
    case "revokeWorkspacePermissions":
      for (const c of s.changes) {
        if (c.assignee.type !== "user") continue;
        const had = c.before.permissions.length + c.before.hierarchy.length > 0;
        const has = c.after.permissions.length + c.after.hierarchy.length > 0;
        if (!had && has) person(c.assignee.id, "changes").workspacesGained.add(s.target);
        if (had && !has) person(c.assignee.id, "changes").workspacesLost.add(s.target);
      }
      return;
    default:
      return;
  }
}

/** The workspaces each group holds: as the listing read them, else as the desired state declares. */
function workspacesOfGroups(desired: DesiredState, actual?: ActualState): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (g: string, w: string): void => void out.set(g, (out.get(g) ?? new Set()).add(w));
  for (const a of actual?.permissions?.assignments ?? [])
    if (a.assignee.type === "userGroup") add(a.assignee.id, a.workspace);
  for (const g of desired.groups) for (const w of g.workspaces ?? []) add(g.id, w.workspace);
  return out;
}

function finish(d: Draft, u: DesiredUser | undefined, groupWorkspaces: Map<string, Set<string>>): PersonView {
  const viaGroups = (groups: Set<string>): string[] =>
    [...groups].flatMap((g) => [...(groupWorkspaces.get(g) ?? [])]);
  const kept = new Set(u?.state === "present" && d.change !== "leaves" ? (u.groups ?? []) : []);
  const keptWorkspaces = new Set(viaGroups(new Set([...kept].filter((g) => !d.groupsLost.has(g)))));
  for (const w of viaGroups(d.groupsGained)) d.workspacesGained.add(w);
  for (const w of viaGroups(d.groupsLost)) if (!keptWorkspaces.has(w)) d.workspacesLost.add(w);
  for (const w of d.workspacesGained) d.workspacesLost.delete(w);
  const full = [u?.firstname, u?.lastname].filter((s) => s).join(" ");
  return {
    id: d.id,
    email: d.email,
    name: u?.displayName ?? d.displayName ?? (full || d.email),
    department: u?.groups ?? [],
    change: d.change,
    groupsGained: sorted(d.groupsGained),
    groupsLost: sorted(d.groupsLost),
    workspacesGained: sorted(d.workspacesGained),
    workspacesLost: sorted(d.workspacesLost),
    ...(u?.startDate !== undefined ? { startDate: u.startDate } : {}),
    ...(u?.endDate !== undefined ? { endDate: u.endDate } : {}),
  };
}

/**
 * How many people the Markdown table lists: a ticket or a CI job summary has a size limit
 * (report/markdown.ts keeps the whole under 1 MiB), and a batch of 20,000 would fill it alone;
 * the page (`--format html`) and the JSON plan have everyone.
 */
export const PEOPLE_MARKDOWN_LIMIT = 500;

/** The view as a Markdown section: one row per person, the first PEOPLE_MARKDOWN_LIMIT of them. */
export function peopleMarkdown(people: readonly PersonView[]): string[] {
  if (people.length === 0) return [];
  const shown = people.slice(0, PEOPLE_MARKDOWN_LIMIT);
  const more = people.length - shown.length;
  const cell = (s: string): string => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const list = (l: readonly string[]): string => (l.length > 0 ? cell(l.join(", ")) : "");
  return [
    `### People (${people.length})`,
    "",
    "| name | email | department | change | workspaces gained | workspaces lost | groups gained | groups lost | starts | ends |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...shown.map(
      (p) =>
        `| ${cell(p.name)} | ${cell(p.email)} | ${list(p.department)} | ${p.change} | ${list(p.workspacesGained)} | ${list(p.workspacesLost)} | ${list(p.groupsGained)} | ${list(p.groupsLost)} | ${p.startDate ?? ""} | ${p.endDate ?? ""} |`,
    ),
    "",
    ...(more > 0
      ? [
          `… and ${more.toLocaleString("en-US")} more people: every one is on the page (\`--format html\`) and in the JSON plan (\`--out plan.json\`).`,
          "",
        ]
      : []),
  ];
}
