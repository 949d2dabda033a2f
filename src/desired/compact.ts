/**
 * Desired users kept small (issue 33): a million of them are held through a whole run, beside
 * the listing and the planner's indexes, within 1 GiB.
 */
import type { DesiredUser } from "./types.js";

/** A user's optional fields as read, undefined when absent. */
export interface OptionalUserFields {
  displayName: string | undefined;
  firstname: string | undefined;
  lastname: string | undefined;
  groups: string[] | undefined;
  authenticationId: string | undefined;
  password: string | undefined;
}

type RequiredUserFields = Pick<DesiredUser, "email" | "id" | "idDerived" | "identity" | "state" | "source">;

/**
 * The user with only its defined fields, keys in one order. The usual row (a display name and
 * groups, no first or last name) is one literal: V8 then keeps every key in the object itself,
 * without a second array for keys added later (40 MB at a million users).
 */
export function newUser(r: RequiredUserFields, f: OptionalUserFields): DesiredUser {
  const { email, id, idDerived, identity, state, source } = r;
  const { displayName, groups } = f;
  const usual =
    displayName !== undefined &&
    groups !== undefined &&
    f.firstname === undefined &&
    f.lastname === undefined;
  const user: DesiredUser = usual
    ? { email, id, idDerived, identity, state, source, displayName, groups }
    : { email, id, idDerived, identity, state, source };
  if (!usual && displayName !== undefined) user.displayName = displayName;
  if (f.firstname !== undefined) user.firstname = f.firstname;
  if (f.lastname !== undefined) user.lastname = f.lastname;
  if (!usual && groups !== undefined) user.groups = groups;
  if (f.authenticationId !== undefined) user.authenticationId = f.authenticationId;
  if (f.password !== undefined) user.password = f.password;
  return user;
}
