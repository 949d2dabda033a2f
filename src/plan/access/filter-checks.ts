/**
 * The rules of data filters that need the config, checked offline by `validate` and before any
 * listing by `plan`/`apply` (docs/data-filters.md): with `dataFilters.workspaces` unset, a filter on
 * a workspace usersync may grant access to (`permissions.workspaces`) is an error (the access would
 * go out without its filter), any other is left alone (one warning, like a setting without
 * effect); a filter on a workspace outside a set `dataFilters.workspaces` is an error (exit 4).
 */
import { whereOf } from "../../desired/records.js";
import type { DesiredGroup, DesiredState, DesiredUser } from "../../desired/types.js";
import type { Problem } from "../../errors.js";
import type { Policy } from "../policy.js";
import { workspaceMatcher } from "../safety.js";

type Holder = DesiredUser | DesiredGroup;
const noun = (r: Holder): string => ("email" in r ? `user "${r.id}"` : `group "${r.id}"`);

function problem(r: Holder, rule: string, message: string, warning = false): Problem {
  const where = whereOf(r, "dataFilters");
  return {
    file: where.file,
    ...(where.line !== undefined ? { line: where.line } : {}),
    field: where.field ?? "dataFilters",
    rule,
    message,
    ...(warning ? { severity: "warning" as const } : {}),
  };
}

export function checkDataFilterPolicy(desired: DesiredState, policy: Policy): Problem[] {
  const filtering = [...desired.groups, ...desired.users.filter((u) => u.state === "present")].filter(
    (r) => r.dataFilters !== undefined && r.dataFilters.length > 0,
  );
  const first = filtering[0];
  if (first === undefined) return [];
  const globs = policy.dataFilters?.workspaces ?? [];
  if (globs.length === 0) return unconfigured(filtering, policy);
  const inScope = workspaceMatcher(globs);
  return filtering.flatMap((r) =>
    (r.dataFilters ?? [])
      .filter((f) => !inScope(f.workspace))
      .map((f) =>
        problem(
          r,
          "filter-workspace-out-of-scope",
          `workspace "${f.workspace}" is outside dataFilters.workspaces (${globs.join(", ")}): add it there, or leave its filter out of ${noun(r)}`,
        ),
      ),
  );
}

/**
 * `dataFilters.workspaces` unset: filters on workspaces whose access usersync may grant would leave
 * that access unfiltered, so they are refused, all named in one problem; the rest only warn.
 */
function unconfigured(filtering: readonly Holder[], policy: Policy): Problem[] {
  const grantable = workspaceMatcher(policy.permissions.workspaces);
  const unguarded = new Set<string>();
  let first: Holder | undefined;
  for (const r of filtering)
    for (const f of r.dataFilters ?? [])
      if (grantable(f.workspace)) {
        unguarded.add(f.workspace);
        first ??= r;
      }
  if (first !== undefined) {
    const list = [...unguarded].sort().map((w) => `"${w}"`);
    return [
      problem(
        first,
        "filters-not-managed",
        `the desired state gives data filters on workspace${list.length > 1 ? "s" : ""} ${list.join(", ")}, where usersync may grant access (permissions.workspaces: ${policy.permissions.workspaces.join(", ")}), but dataFilters.workspaces is not set: the access would go out without its filter. Set dataFilters.workspaces to cover ${list.length > 1 ? "them" : "it"} (a list, a pattern, or all), see docs/data-filters.md`,
      ),
    ];
  }
  const head = filtering[0]!;
  const more = filtering.length > 1 ? ` (and ${filtering.length - 1} more)` : "";
  return [
    problem(
      head,
      "data-filters-not-configured",
      `${noun(head)}${more} carries data filters, but dataFilters.workspaces is not set: they are left alone. Set it to the workspaces usersync may keep filters on (a list, a pattern, or all), see docs/data-filters.md`,
      true,
    ),
  ];
}
