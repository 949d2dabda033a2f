/**
 * What differs between the API profiles: paths and the JSON:API documents. `client.ts` does the
 * talking once for both; each profile only says how its objects are written and read.
 */
import type { ApiProfile, Mapping, UserGroup } from "./types.js";

export const JSON_MEDIA = "application/json";
export const ENTITY_MEDIA = "application/vnd.gooddata.api+json";

/** A JSON:API resource object as the service returns it. */
export interface Resource {
  id: string;
  type: string;
  attributes?: Record<string, unknown> | undefined;
  relationships?: Record<string, { data?: unknown } | undefined> | undefined;
}

export interface ProfileCodec {
  profile: ApiProfile;
  /** `userManagement`: the actions of bulk membership (v1 only; legacy has none). */
  paths: { idpUsers: string; users: string; groups: string; profile?: string; userManagement?: string };
  /** `include=` of the listings (relationships we read); undefined sends none. */
  include: { users: string; groups: string | undefined };
  /** Body of POST (create) or PUT (update) of a mapping. Throws before sending what the profile cannot express. */
  encodeMapping(m: Mapping, use: "create" | "update"): unknown;
  encodeGroup(g: UserGroup, use: "create" | "update"): unknown;
  decodeMapping(r: Resource): Mapping;
  decodeGroup(r: Resource): UserGroup;
}

export function isResource(v: unknown): v is Resource {
  return typeof v === "object" && v !== null && typeof (v as Resource).id === "string";
}

/** The resource of a `{data: {...}}` document, or of a bare resource object. */
export function resourceOf(json: unknown): Resource | undefined {
  if (typeof json !== "object" || json === null) return undefined;
  const data = (json as { data?: unknown }).data;
  if (isResource(data)) return data;
  return isResource(json) ? json : undefined;
}

export function stringAttr(r: Resource, name: string): string | undefined {
  const v = r.attributes?.[name];
  return typeof v === "string" ? v : undefined;
}

/** Ids of a to-many or to-one relationship, sorted. */
export function relatedIds(r: Resource, name: string): string[] {
  const data = r.relationships?.[name]?.data;
  const list = Array.isArray(data) ? data : data ? [data] : [];
  return list
    .filter(isResource)
    .map((x) => x.id)
    .sort();
}

export function linkage(ids: readonly string[]): Array<{ id: string; type: "userGroup" }> {
  return [...ids].sort().map((id) => ({ id, type: "userGroup" as const }));
}

/** Copies the members whose value is defined: PUT must not send `undefined` as a value. */
export function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
