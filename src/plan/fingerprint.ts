/**
 * Object keys and fingerprints of actual objects. A plan records the fingerprint of every
 * object its steps touch; applying a saved plan compares them with a fresh listing and skips
 * the steps whose objects changed (`stale`). Pure: hashing is deterministic.
 */
import { hash as digest } from "node:crypto";
import type { ActualState, IdpUser, Mapping, UserGroup } from "../service/types.js";

export const ABSENT = "absent";

export const idpKey = (email: string): string => `idp:${email.toLowerCase()}`;
export const mappingKey = (id: string): string => `mapping:${id}`;
export const groupKey = (id: string): string => `group:${id}`;

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

/** Every actual object by key, fingerprinted. */
export function fingerprintActual(actual: ActualState): Map<string, string> {
  const out = new Map<string, string>();
  for (const u of actual.idpUsers) out.set(idpKey(u.email), fingerprintIdpUser(u));
  for (const m of actual.mappings) out.set(mappingKey(m.id), fingerprintMapping(m));
  for (const g of actual.groups) out.set(groupKey(g.id), fingerprintGroup(g));
  return out;
}
