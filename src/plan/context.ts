/**
 * What every planning stage shares: the inputs indexed in Maps (built once, so matching is
 * linear), the safety rules, and the sink the stages add steps and notices to.
 */
import type { DesiredGroup, DesiredState, DesiredUser } from "../desired/types.js";
import type { ActualState, ApiProfile, IdpUser, Mapping, UserGroup } from "../service/types.js";
import type { Policy } from "./policy.js";
import { makeSafety, type Safety } from "./safety.js";
import type { Notice, Step } from "./types.js";

export interface Indexes {
  /** Key: lower-cased email. */
  idpByEmail: Map<string, IdpUser>;
  idpByAuth: Map<string, IdpUser>;
  mappingById: Map<string, Mapping>;
  /** Every mapping pointing at an authenticationId (more than one is a conflict). */
  mappingsByAuth: Map<string, Mapping[]>;
  groupById: Map<string, UserGroup>;
  desiredById: Map<string, DesiredUser>;
  /** Key: lower-cased email. */
  desiredByEmail: Map<string, DesiredUser>;
  declaredGroups: Map<string, DesiredGroup>;
}

export function buildIndexes(desired: DesiredState, actual: ActualState): Indexes {
  const idx: Indexes = {
    idpByEmail: new Map(),
    idpByAuth: new Map(),
    mappingById: new Map(),
    mappingsByAuth: new Map(),
    groupById: new Map(),
    desiredById: new Map(),
    desiredByEmail: new Map(),
    declaredGroups: new Map(),
  };
  for (const u of actual.idpUsers) {
    idx.idpByEmail.set(u.email.trim().toLowerCase(), u);
    idx.idpByAuth.set(u.authenticationId, u);
  }
  for (const m of actual.mappings) {
    idx.mappingById.set(m.id, m);
    if (m.authenticationId === undefined) continue;
    const list = idx.mappingsByAuth.get(m.authenticationId);
    if (list) list.push(m);
    else idx.mappingsByAuth.set(m.authenticationId, [m]);
  }
  for (const g of actual.groups) idx.groupById.set(g.id, g);
  for (const u of desired.users) {
    idx.desiredById.set(u.id, u);
    idx.desiredByEmail.set(u.email.trim().toLowerCase(), u);
  }
  for (const g of desired.groups) idx.declaredGroups.set(g.id, g);
  return idx;
}

export interface PlanContext {
  desired: DesiredState;
  actual: ActualState;
  policy: Policy;
  profile: ApiProfile;
  idx: Indexes;
  safety: Safety;
  /** Steps by id: one step per id, whichever stage asks for it first. */
  steps: Map<string, Step>;
  /** Step id -> the user it deletes, for `maxDeletes` (email-change clean-ups are not listed). */
  userDeletions: Map<string, string>;
  /** createGroup step id by group id, so mapping steps can depend on them. */
  createdGroups: Map<string, string>;
  notices: Notice[];
}

export function makeContext(input: {
  desired: DesiredState;
  actual: ActualState;
  policy: Policy;
  profile: ApiProfile;
}): PlanContext {
  return {
    ...input,
    idx: buildIndexes(input.desired, input.actual),
    safety: makeSafety(input.policy, input.actual.callerId),
    steps: new Map(),
    userDeletions: new Map(),
    createdGroups: new Map(),
    notices: [],
  };
}

export const lower = (email: string): string => email.trim().toLowerCase();

/** Equal sorted string lists. */
export function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareStrings);
}

/** Code-unit order: locale-independent, so plans are identical on every machine. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
