/**
 * `usersync export --source ldap`: what the directory says, as a YAML desired state a person
 * can review (and keep, to run from a file instead). Sorted by id, like the service export.
 */
import { stringify } from "yaml";
import type { DesiredState } from "../../types.js";

const byId = <T extends { id: string }>(a: T, b: T): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function renderDesiredYaml(state: DesiredState): string {
  const groups = [...state.groups].sort(byId).map((g) => ({
    id: g.id,
    ...(g.name !== undefined ? { name: g.name } : {}),
    ...(g.parents !== undefined && g.parents.length > 0 ? { parents: [...g.parents] } : {}),
  }));
  const users = [...state.users].sort(byId).map((u) => ({
    email: u.email,
    id: u.id,
    ...(u.displayName !== undefined ? { displayName: u.displayName } : {}),
    ...(u.firstname !== undefined ? { firstname: u.firstname } : {}),
    ...(u.lastname !== undefined ? { lastname: u.lastname } : {}),
    // A copy: rows share one frozen list (src/lists.ts), which YAML would write as an anchor and aliases.
    ...(u.groups !== undefined ? { groups: [...u.groups] } : {}),
    identity: u.identity,
    ...(u.authenticationId !== undefined ? { authenticationId: u.authenticationId } : {}),
    ...(u.state !== "present" ? { state: u.state } : {}),
  }));
  return stringify({ version: 1, groups, users }, { lineWidth: 0 });
}
