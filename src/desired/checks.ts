/**
 * Rules across records: duplicate emails, ids and groups, unknown parents, group cycles and
 * groups that users reference but no file declares.
 */
import { closest } from "../suggest.js";
import { visible } from "./characters.js";
import type { DesiredGroup, DesiredUser, SourceRef } from "./types.js";
import type { ProblemList } from "./problems.js";
import { whereOf } from "./records.js";
import { resolveGroupNames } from "./group-names.js";
import { isValidId } from "./ids.js";

const at = (s: SourceRef): string => `${s.file}:${s.line}`;

export function checkUsers(users: readonly DesiredUser[], problems: ProblemList): void {
  const byEmail = new Map<string, DesiredUser>();
  const byId = new Map<string, DesiredUser>();
  for (const u of users) {
    const key = u.email.toLowerCase();
    const firstByEmail = byEmail.get(key);
    if (firstByEmail)
      problems.error(
        whereOf(u, "email"),
        "duplicate-email",
        `"${u.email}" is already used at ${at(firstByEmail.source)} (emails are compared case-insensitively)`,
      );
    else byEmail.set(key, u);

    const firstById = byId.get(u.id);
    if (firstById && !firstByEmail) {
      const derived = u.idDerived || firstById.idDerived;
      const hint = derived
        ? `; "${u.email}" and "${firstById.email}" derive the same id: set id explicitly for one of them`
        : "";
      problems.error(
        whereOf(u, "id"),
        "duplicate-id",
        `id "${u.id}" is already used at ${at(firstById.source)}${hint}`,
      );
    } else if (!firstById) byId.set(u.id, u);
  }
}

export function checkGroups(
  groups: readonly DesiredGroup[],
  users: readonly DesiredUser[],
  problems: ProblemList,
): void {
  const declared = new Map<string, DesiredGroup>();
  for (const g of groups) {
    const first = declared.get(g.id);
    if (first)
      problems.error(
        whereOf(g, "id"),
        "duplicate-group",
        `group "${g.id}" is already declared at ${at(first.source)}`,
      );
    else declared.set(g.id, g);
  }
  checkParents(declared, problems);
  reportCycles(declared, problems);
  // "People Operations" for the declared group of that name (group-names.ts).
  problems.items.push(...resolveGroupNames(users, [...declared.values()], { final: false }));

  const referenced = new Map<string, { first: DesiredUser; count: number }>();
  for (const u of users)
    for (const g of u.groups ?? []) {
      // A value that cannot be an id is a group's name: resolveGroupNames warned about it.
      if (declared.has(g) || !isValidId(g)) continue;
      const seen = referenced.get(g);
      if (seen) seen.count++;
      else referenced.set(g, { first: u, count: 1 });
    }
  for (const [g, { first, count }] of [...referenced].sort(([a], [b]) => a.localeCompare(b))) {
    // A near name that is declared, or referenced by more people, is what this one was meant to
    // be: say so. No createReferenced hint here: only plan, which sees the organization's groups,
    // can tell a new group from a typo of one that exists, and createReferenced would create it.
    const likelier = [...referenced].filter(([, r]) => r.count > count).map(([id]) => id);
    const near = closest(g, [...declared.keys(), ...likelier]);
    problems.warn(
      whereOf(first, "groups"),
      "undeclared-group",
      near !== undefined
        ? `group "${visible(g)}" is not declared in the desired state; did you mean "${visible(near)}"? Correct the name, or declare "${visible(g)}" if it is a group of its own`
        : `group "${visible(g)}" is not declared in the desired state: it must exist in the service (plan checks that, and says what to do if it does not)`,
    );
  }
}

/**
 * A group that is its own parent; a parent the file does not declare is a warning once per
 * parent (not once per child: eight groups under `everyone` say it once). plan, which sees the
 * organization, leaves it out when the group exists there (cli/pipeline.ts).
 */
function checkParents(declared: Map<string, DesiredGroup>, problems: ProblemList): void {
  const children = new Map<string, DesiredGroup[]>();
  for (const g of declared.values())
    for (const p of g.parents ?? []) {
      if (p === g.id)
        problems.error(whereOf(g, "parents"), "group-cycle", `group "${g.id}" is its own parent`);
      else if (!declared.has(p)) children.set(p, [...(children.get(p) ?? []), g]);
    }
  for (const [p, groups] of children) {
    const others = groups.length > 1 ? ` (parent of ${groups.length} groups, the first here)` : "";
    problems.warn(
      whereOf(groups[0]!, "parents"),
      "unknown-parent",
      `parent "${visible(p)}" is not declared in the desired state${others}: it must exist in the service (plan checks that)`,
    );
  }
}

/** Depth-first search; each cycle is reported once, at its group with the smallest id. */
function reportCycles(declared: Map<string, DesiredGroup>, problems: ProblemList): void {
  const done = new Set<string>();
  const reported = new Set<string>();
  const visit = (id: string, path: string[]): void => {
    const index = path.indexOf(id);
    if (index >= 0) {
      const cycle = path.slice(index);
      if (cycle.length < 2) return;
      const start = [...cycle].sort()[0]!;
      const rotated = [...cycle.slice(cycle.indexOf(start)), ...cycle.slice(0, cycle.indexOf(start))];
      const key = rotated.join(">");
      if (reported.has(key)) return;
      reported.add(key);
      const g = declared.get(start)!;
      problems.error(
        whereOf(g, "parents"),
        "group-cycle",
        `groups form a cycle: ${[...rotated, start].join(" -> ")}; a group cannot be its own ancestor`,
      );
      return;
    }
    if (done.has(id)) return;
    const g = declared.get(id);
    if (!g) return;
    path.push(id);
    for (const p of g.parents ?? []) if (p !== id) visit(p, path);
    path.pop();
    done.add(id);
  };
  for (const id of [...declared.keys()].sort()) visit(id, []);
}
