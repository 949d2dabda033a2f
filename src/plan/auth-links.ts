/**
 * Which mappings point at which credentials, by authenticationId, without an object per person
 * (issue 33): one Map from the id to a slot number, the rest in typed arrays by position, which
 * the garbage collector neither copies nor scans. At a million people that is 45 MB less than an
 * object and two arrays of references, and no copying of them during plan().
 */
import type { IdpUser, Mapping } from "../service/types.js";

export interface AuthLinks {
  /**
   * authenticationId → slot. A slot below `idpUsers.length` is the IdP user at that position (the
   * last one with that id); a slot above it, an id that only mappings have.
   */
  slotOf: Map<string, number>;
  idpUsers: readonly IdpUser[];
  mappings: readonly Mapping[];
  /** By slot: the position of the first mapping pointing at it, or -1. */
  firstMapping: Int32Array;
  /** By mapping position: its slot, or -1 for a mapping without authenticationId. */
  mappingSlot: Int32Array;
  /** By IdP position: its slot; undefined while each IdP user has its own id (slot = position). */
  idpSlot: Int32Array | undefined;
  /** Only authenticationIds that several mappings point at (a conflict): all of them. */
  shared: Map<string, Mapping[]>;
}

export function buildAuthLinks(idpUsers: readonly IdpUser[], mappings: readonly Mapping[]): AuthLinks {
  const slotOf = new Map<string, number>();
  for (let i = 0; i < idpUsers.length; i++) slotOf.set(idpUsers[i]!.authenticationId, i);
  let idpSlot: Int32Array | undefined;
  // Several IdP users with one authenticationId share the slot of the last of them.
  if (slotOf.size !== idpUsers.length)
    idpSlot = Int32Array.from(idpUsers, (u) => slotOf.get(u.authenticationId)!);
  const firstMapping = new Int32Array(idpUsers.length + mappings.length).fill(-1);
  const mappingSlot = new Int32Array(mappings.length);
  const shared = new Map<string, Mapping[]>();
  let next = idpUsers.length;
  for (let i = 0; i < mappings.length; i++) {
    const m = mappings[i]!;
    const auth = m.authenticationId;
    if (auth === undefined) {
      mappingSlot[i] = -1;
      continue;
    }
    let slot = slotOf.get(auth);
    if (slot === undefined) slotOf.set(auth, (slot = next++));
    mappingSlot[i] = slot;
    const first = firstMapping[slot]!;
    if (first < 0) firstMapping[slot] = i;
    else {
      const list = shared.get(auth);
      if (list) list.push(m);
      else shared.set(auth, [mappings[first]!, m]);
    }
  }
  return { slotOf, idpUsers, mappings, firstMapping, mappingSlot, idpSlot, shared };
}

const idpOfSlot = (a: AuthLinks, slot: number | undefined): IdpUser | undefined =>
  slot !== undefined && slot >= 0 && slot < a.idpUsers.length ? a.idpUsers[slot] : undefined;

/** The IdP user with this authenticationId (the last one listed, if several). */
export const idpOfAuth = (a: AuthLinks, auth: string): IdpUser | undefined =>
  idpOfSlot(a, a.slotOf.get(auth));

/** The first mapping listed that points at this authenticationId. */
export function firstMappingOfAuth(a: AuthLinks, auth: string): Mapping | undefined {
  const slot = a.slotOf.get(auth);
  const first = slot === undefined ? -1 : a.firstMapping[slot]!;
  return first < 0 ? undefined : a.mappings[first];
}

/** The IdP user the mapping at position `i` points at. */
export const linkedIdpAt = (a: AuthLinks, i: number): IdpUser | undefined => idpOfSlot(a, a.mappingSlot[i]);

/** Whether some mapping points at the IdP user at position `i`. */
export const idpIsMapped = (a: AuthLinks, i: number): boolean =>
  a.firstMapping[a.idpSlot ? a.idpSlot[i]! : i]! >= 0;
