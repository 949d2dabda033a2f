/**
 * Rules that depend on the API profile, checked once the profile is known (from the config, or
 * detected by the client). The `legacy` contract maps a user to exactly one group and knows no
 * names or group parents.
 */
import type { Problem } from "../errors.js";
import type { ApiProfile } from "../service/types.js";
import { ProblemList, sortProblems } from "./problems.js";
import { whereOf } from "./records.js";
import type { DesiredState } from "./types.js";

export function validateForProfile(state: DesiredState, profile: ApiProfile): Problem[] {
  if (profile !== "legacy") return [];
  const problems = new ProblemList();
  for (const u of state.users) {
    if (u.groups !== undefined && u.groups.length > 1)
      problems.error(
        whereOf(u, "groups"),
        "legacy-one-group",
        `user "${u.id}" has ${u.groups.length} groups (${u.groups.join(", ")}); the legacy API maps a user to exactly one group`,
      );
    if (u.firstname !== undefined || u.lastname !== undefined)
      problems.warn(
        whereOf(u, u.firstname !== undefined ? "firstname" : "lastname"),
        "legacy-no-names",
        `user "${u.id}": the legacy API has no firstname/lastname; they are ignored`,
      );
  }
  for (const r of [...state.users, ...state.groups])
    if (r.workspaces !== undefined || r.organization !== undefined)
      problems.error(
        whereOf(r, r.workspaces !== undefined ? "workspaces" : "organization"),
        "legacy-no-permissions",
        `${"email" in r ? "user" : "group"} "${r.id}" carries permissions; the legacy API has none: remove them (or use the current API, profile v1)`,
      );
  for (const g of state.groups)
    if (g.parents !== undefined && g.parents.length > 0)
      problems.error(
        whereOf(g, "parents"),
        "legacy-no-parents",
        `group "${g.id}" has parents; the legacy API has no group hierarchy: remove them`,
      );
  return sortProblems(problems.items, state.files);
}
