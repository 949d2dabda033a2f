/**
 * Object keys and fingerprints of actual objects, and the fingerprint of a plan's inputs. A plan
 * records the fingerprint of every object its steps touch; applying a saved plan compares them
 * with a fresh listing and skips the steps whose objects changed (`stale`). Pure: hashing is
 * deterministic.
 */
import { createHash, hash as digest } from "node:crypto";
import { managedFilterId } from "../data-filters.js";
import type { DesiredState } from "../desired/types.js";
import {
  assigneeKey,
  type ActualPermissions,
  type Assignee,
  type OrganizationPermission,
  type WorkspaceGrant,
} from "../permissions.js";
import type { ActualState, ApiProfile, IdpUser, Mapping, UserGroup } from "../service/types.js";
import { objectKey } from "./kinds.js";
import type { Policy } from "./policy.js";

export const ABSENT = "absent";

export const idpKey = (email: string): string => objectKey({ kind: "idp", id: email.toLowerCase() });
export const mappingKey = (id: string): string => objectKey({ kind: "mapping", id });
export const groupKey = (id: string): string => objectKey({ kind: "group", id });
/** One assignee's grant on one workspace: `permission:sales-emea/userGroup/sales`. */
export const permissionKey = (workspace: string, a: Assignee): string =>
  objectKey({ kind: "permission", id: `${workspace}/${assigneeKey(a)}` });
/** One assignee's data filter on one workspace: `dataFilter:sales-emea/userGroup/sales`. */
export const dataFilterKey = (workspace: string, a: Assignee): string =>
  objectKey({ kind: "dataFilter", id: `${workspace}/${assigneeKey(a)}` });
/** One assignee's organization permissions: `orgPermission:userGroup/admins`. */
export const orgPermissionKey = (a: Assignee): string =>
  objectKey({ kind: "orgPermission", id: assigneeKey(a) });

/** JSON with object keys sorted, so equal values hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

export function hash(value: unknown): string {
  return hashText(canonicalJson(value));
}

function hashText(text: string): string {
  return digest("sha256", text, "hex").slice(0, 16);
}

const str = (v: string): string => JSON.stringify(v);

/*
 * The two fingerprints below run once per object of a large organization, so they write the
 * canonical JSON of their fixed shape by hand: the same text `canonicalJson` gives (keys in
 * code-unit order, undefined fields left out), which a test checks, at a fraction of the cost.
 */

export function fingerprintIdpUser(u: IdpUser): string {
  return hashText(
    `{"authenticationId":${str(u.authenticationId)},"displayName":${str(u.displayName)},"email":${str(u.email.toLowerCase())}}`,
  );
}

export function fingerprintMapping(m: Mapping): string {
  let out = "{";
  if (m.authenticationId !== undefined) out += `"authenticationId":${str(m.authenticationId)},`;
  if (m.email !== undefined) out += `"email":${str(m.email)},`;
  if (m.firstname !== undefined) out += `"firstname":${str(m.firstname)},`;
  out += `"groups":${JSON.stringify([...m.groups].sort())},"id":${str(m.id)}`;
  if (m.lastname !== undefined) out += `,"lastname":${str(m.lastname)}`;
  return hashText(`${out}}`);
}

export function fingerprintGroup(g: UserGroup): string {
  return hash({ ...g, parents: [...g.parents].sort() });
}

/**
 * A grant as the plan saw it: the canonical JSON of `{hierarchy, permissions}` (or of the
 * organization list), written by hand as above (thousands per plan). A pair holding nothing is
 * not an object (`absent`).
 */
export function fingerprintGrant(g: WorkspaceGrant | readonly OrganizationPermission[]): string {
  if (isPermissionList(g)) return hashText(JSON.stringify([...g].sort()));
  return hashText(
    `{"hierarchy":${JSON.stringify([...g.hierarchy].sort())},"permissions":${JSON.stringify([...g.permissions].sort())}}`,
  );
}

const isPermissionList = (g: unknown): g is readonly OrganizationPermission[] => Array.isArray(g);

/** Every listed grant by key, not yet fingerprinted (a pair not listed holds nothing: `absent`). */
export function grantsByKey(
  permissions: ActualPermissions | undefined,
): Map<string, WorkspaceGrant | readonly OrganizationPermission[]> {
  const out = new Map<string, WorkspaceGrant | readonly OrganizationPermission[]>();
  for (const a of permissions?.assignments ?? []) out.set(permissionKey(a.workspace, a.assignee), a);
  for (const o of permissions?.organization ?? [])
    if (o.permissions.length > 0) out.set(orgPermissionKey(o.assignee), o.permissions);
  return out;
}

/** The filters usersync keeps (its id for the assignee and workspace), by key, fingerprinted. */
export function fingerprintFilters(actual: ActualState): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of actual.dataFilters?.filters ?? [])
    if (f.managed && f.id === managedFilterId(f.workspace, f.assignee))
      out.set(
        dataFilterKey(f.workspace, f.assignee),
        hash({ id: f.id, maql: f.maql, tags: [...f.tags].sort() }),
      );
  return out;
}

/** Every actual object by key, fingerprinted. */
export function fingerprintActual(actual: ActualState): Map<string, string> {
  const out = new Map<string, string>();
  for (const u of actual.idpUsers) out.set(idpKey(u.email), fingerprintIdpUser(u));
  for (const m of actual.mappings) out.set(mappingKey(m.id), fingerprintMapping(m));
  for (const g of actual.groups) out.set(groupKey(g.id), fingerprintGroup(g));
  for (const [key, grant] of grantsByKey(actual.permissions)) out.set(key, fingerprintGrant(grant));
  for (const [key, fp] of fingerprintFilters(actual)) out.set(key, fp);
  return out;
}

/** What the input fingerprint covers: what was asked, not what was found. */
export interface FingerprintInput {
  desired: DesiredState;
  policy: Policy;
  profile: ApiProfile;
}

/**
 * Hash of what was asked: the desired state (without source lines, and with a password replaced
 * by a marker that only says one is present), the policy and the profile. Independent of the
 * order of the users: each user is hashed on its own (32-bit FNV-1a, no string built) and the
 * user hashes are added up in two lanes (as they are and mixed), so 100k users cost neither a
 * sort nor 10 MB of text. It identifies the inputs in reports; nothing relies on it for safety
 * (see `objects`).
 */
export function fingerprintInput(input: FingerprintInput): string {
  let sumA = 0;
  let sumB = 0;
  for (const u of input.desired.users) {
    let h = FNV_OFFSET;
    h = text(h, u.id);
    h = text(h, u.email);
    h = tag(h, u.idDerived ? 1 : 2);
    h = text(h, u.displayName);
    h = text(h, u.firstname);
    h = text(h, u.lastname);
    if (u.groups === undefined) h = tag(h, 3);
    else {
      h = tag(h, 0x400 + (u.groups.length & 0xff));
      for (const g of u.groups) h = text(h, g);
    }
    h = text(h, u.identity);
    h = text(h, u.authenticationId);
    h = tag(h, u.password !== undefined ? 5 : 6);
    h = text(h, u.state);
    if (u.workspaces !== undefined || u.organization !== undefined)
      h = text(h, JSON.stringify([u.workspaces ?? null, u.organization ?? null]));
    sumA = (sumA + h) >>> 0;
    sumB = (sumB + mix(h)) >>> 0;
  }
  const groups = input.desired.groups.map((g) =>
    JSON.stringify([
      g.id,
      g.name,
      g.parents,
      // Only when present, so a desired state without permissions hashes as it always did.
      ...(g.workspaces !== undefined || g.organization !== undefined ? [g.workspaces, g.organization] : []),
    ]),
  );
  groups.sort();
  return createHash("sha256")
    .update(canonicalJson({ policy: input.policy, profile: input.profile }))
    .update(`\n${input.desired.users.length}:${sumA}:${sumB}\n`)
    .update(groups.join("\n"))
    .digest("hex")
    .slice(0, 16);
}

const FNV_OFFSET = 0x811c9dc5;

/**
 * One FNV-1a step with a value above any char code, so tags never collide with text. Tags in
 * use: 1–6 flags, 0x100–0x201 around text, 0x400–0x4ff the number of groups.
 */
const tag = (h: number, t: number): number => Math.imul(h ^ (0x10000 + t), 0x01000193);

/** A value framed by tags, so "a","b" differs from "ab" and undefined from "". */
function text(h: number, v: string | undefined): number {
  if (v === undefined) return tag(h, 0x100);
  h = tag(h, 0x101);
  for (let i = 0; i < v.length; i++) h = Math.imul(h ^ v.charCodeAt(i), 0x01000193);
  return tag(h, 0x102 + (v.length & 0xff));
}

/** The murmur3 finaliser: the second lane sums the user hashes after mixing. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The digest of the state a plan read: every listed object's key and fingerprint, summed in two
 * lanes as `fingerprintInput` sums users (order-free, no 10 MB of text), then hashed with the
 * count. Saved with the plan (`stateDigest`) to name what it was made from, in reports and in
 * the state file's record of what runs changed; the stale check still compares object by object.
 */
export function digestActual(actual: ActualState): string {
  let sumA = 0;
  let sumB = 0;
  let count = 0;
  const add = (key: string, fp: string): void => {
    const h = text(text(FNV_OFFSET, key), fp);
    sumA = (sumA + h) >>> 0;
    sumB = (sumB + mix(h)) >>> 0;
    count++;
  };
  // The objects of `fingerprintActual`, summed as they come: no map of a large organization built.
  for (const u of actual.idpUsers) add(idpKey(u.email), fingerprintIdpUser(u));
  for (const m of actual.mappings) add(mappingKey(m.id), fingerprintMapping(m));
  for (const g of actual.groups) add(groupKey(g.id), fingerprintGroup(g));
  for (const [key, grant] of grantsByKey(actual.permissions)) add(key, fingerprintGrant(grant));
  for (const [key, fp] of fingerprintFilters(actual)) add(key, fp);
  return createHash("sha256").update(`${count}:${sumA}:${sumB}`).digest("hex").slice(0, 16);
}
