/**
 * What every planning stage shares: the inputs indexed in Maps (built once, so matching is
 * linear), the safety rules, and the sink the stages add steps and notices to.
 */
import type { DesiredGroup, DesiredState, DesiredUser } from "../desired/types.js";
import type { ActualState, ApiProfile, IdpUser, Mapping, UserGroup } from "../service/types.js";
import { buildAuthLinks, firstMappingOfAuth, idpOfAuth, type AuthLinks } from "./auth-links.js";
import { makeGraceState, type GraceInput, type GraceState } from "./grace.js";
import type { Policy } from "./policy.js";
import { makeSafety, type Safety } from "./safety.js";
import type { Notice, Step } from "./types.js";

export interface Indexes {
  /** Key: lower-cased email. */
  idpByEmail: Map<string, IdpUser>;
  /** Position in `actual.mappings` by id (see `rowMapping` and `mappingOf`). */
  mappingPos: Map<string, number>;
  /**
   * By position in `actual.mappings`: 1 once a row of the file with that id was planned. The
   * pass over unlisted mappings reads it instead of a Map of the desired users by id, which
   * would cost a 100k-entry Map and 100k look-ups in every run, incremental ones included.
   */
  listed: Uint8Array;
  /** Some mappings share an id (never in a whole listing): only the last has its position. */
  duplicateIds: boolean;
  /**
   * By authenticationId, both directions (credentials → mapping and mapping → credentials) in one
   * Map, because building a 100k-entry Map costs more than everything done with it; each mapping's
   * and IdP user's entry is kept by position, so the pass over every actual object looks nothing
   * up again (auth-links.ts).
   */
  auth: AuthLinks;
  /** No two IdP users share an authenticationId (as in the real service). */
  idpAuthUnique: boolean;
  /** Only authenticationIds that several mappings point at (a conflict): all of them. */
  sharedAuth: Map<string, Mapping[]>;
  groupById: Map<string, UserGroup>;
  /** Key: lower-cased email. */
  readonly desiredByEmail: Map<string, DesiredUser>;
  declaredGroups: Map<string, DesiredGroup>;
}

export function buildIndexes(desired: DesiredState, actual: ActualState): Indexes {
  // The desired-state index by email is only needed for deletions and unlinked credentials,
  // so it is built on first use: a run over an org in sync never pays for a 100k-entry Map.
  let desiredByEmail: Map<string, DesiredUser> | undefined;
  const idpByEmail = new Map<string, IdpUser>();
  for (const u of actual.idpUsers) idpByEmail.set(lower(u.email), u);
  const auth = buildAuthLinks(actual.idpUsers, actual.mappings);
  const idx: Indexes = {
    idpByEmail,
    mappingPos: new Map(),
    listed: new Uint8Array(actual.mappings.length),
    duplicateIds: false,
    auth,
    idpAuthUnique: auth.idpSlot === undefined,
    sharedAuth: auth.shared,
    groupById: new Map(),
    get desiredByEmail() {
      return (desiredByEmail ??= new Map(desired.users.map((u) => [lower(u.email), u])));
    },
    declaredGroups: new Map(),
  };
  const { mappings } = actual;
  for (let i = 0; i < mappings.length; i++) {
    idx.mappingPos.set(mappings[i]!.id, i);
  }
  idx.duplicateIds = idx.mappingPos.size !== mappings.length;
  for (const g of actual.groups) idx.groupById.set(g.id, g);
  for (const g of desired.groups) idx.declaredGroups.set(g.id, g);
  return idx;
}

/** The actual mapping with this id, if any. */
export function mappingOf(ctx: Pick<PlanContext, "idx" | "actual">, id: string): Mapping | undefined {
  const i = ctx.idx.mappingPos.get(id);
  return i === undefined ? undefined : ctx.actual.mappings[i];
}

/** `mappingOf` for a row of the file: the mapping is marked as named by it (see `listed`). */
export function rowMapping(ctx: Pick<PlanContext, "idx" | "actual">, id: string): Mapping | undefined {
  const i = ctx.idx.mappingPos.get(id);
  if (i === undefined) return undefined;
  ctx.idx.listed[i] = 1;
  return ctx.actual.mappings[i];
}

/** Whether a row of the file names the mapping at position `i` (after the rows are planned). */
export function isListed(idx: Indexes, i: number, id: string): boolean {
  return idx.listed[i] === 1 || (idx.duplicateIds && idx.listed[idx.mappingPos.get(id)!] === 1);
}

/** The IdP user a mapping points at, if any. */
export function linkedIdp(idx: Indexes, m: Mapping | undefined): IdpUser | undefined {
  return m?.authenticationId === undefined ? undefined : idpOfAuth(idx.auth, m.authenticationId);
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
  /** Step id -> the user (or old login) it deletes, for `maxDeletes`. */
  userDeletions: Map<string, string>;
  /** createGroup step id by group id, so mapping steps can depend on them. */
  createdGroups: Map<string, string>;
  notices: Notice[];
  /** Set with `policy.revokeAfter`: who waits for the grace period, who is due. */
  grace: GraceState | undefined;
  /** People a full run would revoke or remove, kept only because the mode is incremental. */
  keptByMode: number;
  /** People of the desired state left unplanned because another mapping holds their login. */
  conflicts: number;
  /**
   * Leavers who sign in through the identity provider whose access this plan revokes (user id ->
   * reason; plan/revoke-access.ts), and whether `maxDeletes` holds those revokes back.
   */
  accessRevokes: Map<string, string>;
  accessRevokesHeld: boolean;
}

export function makeContext(input: {
  desired: DesiredState;
  actual: ActualState;
  policy: Policy;
  profile: ApiProfile;
  grace?: GraceInput | undefined;
}): PlanContext {
  const { grace, ...rest } = input;
  return {
    ...rest,
    grace: makeGraceState(input.policy, grace),
    keptByMode: 0,
    conflicts: 0,
    accessRevokes: new Map(),
    accessRevokesHeld: false,
    idx: buildIndexes(input.desired, input.actual),
    safety: makeSafety(input.policy, input.actual.callerId),
    steps: new Map(),
    userDeletions: new Map(),
    createdGroups: new Map(),
    notices: [],
  };
}

const NONE: readonly string[] = Object.freeze([]);

/** Ids of the mappings other than `id` that point at `auth`, sorted. */
export function otherHolders(idx: Indexes, auth: string, id: string | undefined): readonly string[] {
  const shared = idx.sharedAuth.size === 0 ? undefined : idx.sharedAuth.get(auth);
  if (shared)
    return shared
      .filter((m) => m.id !== id)
      .map((m) => m.id)
      .sort(compareStrings);
  const first = firstMappingOfAuth(idx.auth, auth);
  return first !== undefined && first.id !== id ? [first.id] : NONE;
}

/** Characters `toLowerCase` may change. */
const MAY_CHANGE_CASE = /[A-Z\u0080-\uffff]/;

/**
 * An email as a key: trimmed and lower-cased. A string that is lower case already is returned
 * as it is, because `toLowerCase` copies it anyway and the copy (200k of them at 100k users)
 * would have to be hashed again.
 */
export function lower(email: string): string {
  const trimmed = email.trim();
  return MAY_CHANGE_CASE.test(trimmed) ? trimmed.toLowerCase() : trimmed;
}

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
