/**
 * `source.minUsers`: a directory outage, a bad filter or a wrong base must never read as
 * "everyone left". A count is checked as soon as the desired state is read (before any request
 * to the service); a percentage of the managed users needs the service's listing, so it is
 * checked after listing and before planning is handed on: nothing is ever written.
 * A directory source (LDAP, Entra, Okta) always needs at least one user; a file source only when
 * minUsers is set. A directory's short read is a read not proved whole: exit 5, a later run may
 * succeed (docs/sources.md). A file's short content is the file's to fix: exit 4.
 *
 * With `targets:` (docs/multi-org.md) minUsers counts each target's slice, the people that
 * organization receives (its `minUsers` overrides the shared one): the shared read only needs
 * a directory's one person, and a percentage is of that organization's managed users anyway.
 */
import { InputError } from "../errors.js";
import { SourceIncompleteError } from "../desired/sources/errors.js";
import type { Config } from "../config/index.js";
import type { DesiredState } from "../desired/index.js";

/** The present users; of the whole state for a partial one (a changes-only run's, DesiredState.partial). */
function present(state: DesiredState): number {
  return state.partial?.present ?? state.users.filter((u) => u.state === "present").length;
}

/** What gave the people: the source's files, or a target's slice of them. */
function what(state: DesiredState, config: Config & { targetName?: string }): string {
  const read = state.files.join(", ");
  return config.targetName === undefined ? read : `target ${config.targetName}'s slice of ${read}`;
}

function refuse(state: DesiredState, config: Config, found: number, wanted: string): never {
  const message =
    `${what(state, config)} gave ${found} user(s), fewer than source.minUsers (${wanted}): ` +
    "a failed, filtered or truncated read is never taken as the desired state. Check the source " +
    "(for a directory: its filters or rules and the reading account's rights); lower source.minUsers if the drop is real.";
  if (config.source.type === "file") throw new InputError({ message });
  throw new SourceIncompleteError({
    read: what(state, config),
    reason: message.slice(what(state, config).length + 1),
  });
}

/** `slice`: a target's slice, held to the configured count only (an empty one is select-check's). */
export function checkMinUsersCount(state: DesiredState, config: Config, slice = false): void {
  const directoryFloor = config.source.type === "file" || slice ? undefined : 1;
  const min = config.source.minUsers ?? directoryFloor;
  if (typeof min !== "number") return;
  const found = present(state);
  if (found < min) refuse(state, config, found, String(min));
}

export function checkMinUsersShare(state: DesiredState, config: Config, managedUsers: number): void {
  const min = config.source.minUsers;
  if (typeof min !== "string") return;
  const needed = Math.ceil((Number(min.slice(0, -1)) / 100) * managedUsers);
  const found = present(state);
  if (found < needed) refuse(state, config, found, `${min} of ${managedUsers} managed users = ${needed}`);
}
