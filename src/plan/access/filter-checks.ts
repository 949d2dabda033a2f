/**
 * The rules of data filters that need the config, checked offline by `validate` and before any
 * listing by `plan`/`apply` (docs/data-filters.md): with `dataFilters.workspaces` unset the
 * filters are left alone (one warning, like a setting without effect); a filter on a workspace
 * outside it is an error (exit 4).
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
  if (globs.length === 0) {
    const more = filtering.length > 1 ? ` (and ${filtering.length - 1} more)` : "";
    return [
      problem(
        first,
        "data-filters-not-configured",
        `${noun(first)}${more} carries data filters, but dataFilters.workspaces is not set: they are left alone. Set it to the workspaces usersync may keep filters on (a list, a pattern, or all), see docs/data-filters.md`,
        true,
      ),
    ];
  }
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
