/** Small builders for planner tests: only the fields a test cares about need to be given. */
import type { DesiredGroup, DesiredState, DesiredUser } from "../../src/desired/types.js";
import { defaultPolicy, type Policy } from "../../src/plan/policy.js";
import type { Plan } from "../../src/plan/types.js";
import type { ActualState, ApiProfile, IdpUser, Mapping, UserGroup } from "../../src/service/types.js";
import { plan } from "../../src/plan/index.js";

let line = 1;

/**
 * A desired user. Without an `id`, the id is the e-mail's local part (`jane@example.com` ->
 * `jane`), marked derived: NOT the rule a row without an id follows (the whole e-mail,
 * `jane_example.com`: deriveUserId in src/desired/ids.ts, docs/desired-state.md). That is safe
 * here: the planner never derives an id, it takes the one the reader gave (a directory's rule
 * may give `jane` too), and only the readers' tests check the e-mail rule. It stays: some 30
 * planner and report expectations in 11 files name the short ids (`updateMapping:jane`, adopt
 * notices "usersync would have named it 'rae'"); a test that needs the e-mail rule's id sets
 * `id: deriveUserId(email)`.
 */
export function aUser(u: Partial<DesiredUser> & { email: string }): DesiredUser {
  const id = u.id ?? u.email.split("@")[0] ?? u.email;
  return {
    id,
    idDerived: u.id === undefined,
    identity: "builtin",
    state: "present",
    source: { file: "users.csv", line: ++line },
    ...u,
  };
}

export function aDesiredGroup(g: Partial<DesiredGroup> & { id: string }): DesiredGroup {
  return { source: { file: "groups.yaml", line: ++line }, ...g };
}

export function aDesiredState(users: DesiredUser[], groups: DesiredGroup[] = []): DesiredState {
  return { users, groups, files: ["users.csv"] };
}

/** authenticationId defaults to `auth-<email>` so tests can predict it. */
export function anIdpUser(u: Partial<IdpUser> & { email: string }): IdpUser {
  return {
    displayName: u.email.split("@")[0] ?? u.email,
    authenticationId: `auth-${u.email.toLowerCase()}`,
    ...u,
  };
}

export function aMapping(m: Partial<Mapping> & { id: string }): Mapping {
  return { groups: [], ...m };
}

export function aGroup(g: Partial<UserGroup> & { id: string }): UserGroup {
  return { parents: [], ...g };
}

export function anActualState(s: Partial<ActualState> = {}): ActualState {
  return { idpUsers: [], mappings: [], groups: [], ...s };
}

export function aPolicy(p: Partial<Policy> = {}): Policy {
  return { ...defaultPolicy, ...p, groups: { ...defaultPolicy.groups, ...p.groups } };
}

/** A built-in user that is fully in sync: desired row, IdP user and mapping (v1 attributes). */
export function aSyncedUser(email: string, extra: Partial<DesiredUser> = {}) {
  const user = aUser({ email, displayName: email.split("@")[0] ?? email, groups: [], ...extra });
  const idp = anIdpUser({ email, displayName: user.displayName ?? "" });
  const mapping = aMapping({
    id: user.id,
    authenticationId: idp.authenticationId,
    email,
    groups: user.groups ?? [],
    ...(user.firstname !== undefined ? { firstname: user.firstname } : {}),
    ...(user.lastname !== undefined ? { lastname: user.lastname } : {}),
  });
  return { user, idp, mapping };
}

/** Steps as `[id, status]` pairs, the shortest exact picture of a plan. */
export const stepIds = (p: Plan): string[] =>
  p.steps.map((s) => (s.status === "heldBack" ? `${s.id} (heldBack)` : s.id));

export const step = (p: Plan, id: string) => {
  const s = p.steps.find((x) => x.id === id);
  if (!s) throw new Error(`no step ${id} in ${stepIds(p).join(", ")}`);
  return s;
};

/** Plans small hand-built inputs: everything not given is empty, the policy is the default, the profile v1. */
export function planOf(input: {
  users?: DesiredUser[];
  groups?: DesiredGroup[];
  actual?: Partial<ActualState>;
  policy?: Partial<Policy>;
  profile?: ApiProfile;
}): Plan {
  return plan({
    desired: aDesiredState(input.users ?? [], input.groups ?? []),
    actual: anActualState(input.actual),
    policy: aPolicy(input.policy),
    profile: input.profile ?? "v1",
  });
}
