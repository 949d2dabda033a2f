/**
 * What every planning stage shares: the inputs indexed in Maps (built once, so matching is
 * linear), the safety rules, and the sink the stages add steps and notices to.
 */
import type { DesiredGroup, DesiredState, DesiredUser } from "../desired/types.js";
import type { ActualState, ApiProfile, IdpUser, Mapping, UserGroup } from "../service/types.js";
import { makeGraceState, type GraceInput, type GraceState } from "./grace.js";
import type { Policy } from "./policy.js";
import { makeSafety, type Safety } from "./safety.js";
import type { Notice, Step } from "./types.js";

/** One authenticationId: the IdP user that has it and the first mapping that points at it. */
export interface AuthLink {
  idp: IdpUser | undefined;
  mapping: Mapping | undefined;
}

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
   * Key: authenticationId. One Map for both directions (credentials → mapping and mapping →
   * credentials), because building a 100k-entry Map costs more than everything done with it.
   */
  byAuth: Map<string, AuthLink>;
  /** No two IdP users share an authenticationId (as in the real service). */
  idpAuthUnique: boolean;
  /**
   * By position in `actual.mappings` and `actual.idpUsers`: each one's entry of `byAuth`, found
   * while the index is built, so the pass over every actual object looks nothing up again.
   */
  mappingLinks: Array<AuthLink | undefined>;
  idpLinks: AuthLink[];
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
  const byAuth = new Map<string, AuthLink>();
  const idpByEmail = new Map<string, IdpUser>();
  const idpLinks: AuthLink[] = [];
  for (const u of actual.idpUsers) {
    idpByEmail.set(lower(u.email), u);
    const link: AuthLink = { idp: u, mapping: undefined };
    byAuth.set(u.authenticationId, link);
    idpLinks.push(link);
  }
  const idpAuthUnique = byAuth.size === actual.idpUsers.length;
  // Several IdP users with one authenticationId share the entry (the last of them is its idp).
  if (!idpAuthUnique) actual.idpUsers.forEach((u, i) => (idpLinks[i] = byAuth.get(u.authenticationId)!));
  const mappingLinks: Array<AuthLink | undefined> = [];
  const idx: Indexes = {
    idpByEmail,
    mappingPos: new Map(),
    listed: new Uint8Array(actual.mappings.length),
    duplicateIds: false,
    byAuth,
    idpAuthUnique,
    mappingLinks,
    idpLinks,
    sharedAuth: new Map(),
    groupById: new Map(),
    get desiredByEmail() {
      return (desiredByEmail ??= new Map(desired.users.map((u) => [lower(u.email), u])));
    },
    declaredGroups: new Map(),
  };
  const { mappings } = actual;
  for (let i = 0; i < mappings.length; i++) {
    const m = mappings[i]!;
    idx.mappingPos.set(m.id, i);
    const auth = m.authenticationId;
    if (auth === undefined) {
      mappingLinks.push(undefined);
      continue;
    }
    // One Map entry per authenticationId and arrays only for the rare shared ids: this runs 100k times.
    let link = byAuth.get(auth);
    if (link === undefined) {
      link = { idp: undefined, mapping: m };
      byAuth.set(auth, link);
    } else if (link.mapping === undefined) link.mapping = m;
    else {
      const shared = idx.sharedAuth.get(auth);
      if (shared) shared.push(m);
      else idx.sharedAuth.set(auth, [link.mapping, m]);
    }
    mappingLinks.push(link);
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
  return m?.authenticationId === undefined ? undefined : idx.byAuth.get(m.authenticationId)?.idp;
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
  const first = idx.byAuth.get(auth)?.mapping;
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
