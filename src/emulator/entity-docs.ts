/**
 * Resource specs and response documents of the entity API in both profiles. A legacy mapping is
 * a user with 0 or 1 groups; a user with 2+ groups (set through v1) is served to legacy with the
 * first of its group ids in sort order.
 */
import type { ResourceSpec } from "./jsonapi.js";
import { cmp, type GroupRec, type MappingRec } from "./store.js";

export type Profile = "v1" | "legacy";

export const USER_ATTRIBUTES = ["authenticationId", "firstname", "lastname", "email"] as const;

export const SPECS: Record<Profile, { user: ResourceSpec; userGroup: ResourceSpec }> = {
  v1: {
    user: { type: "user", attributes: USER_ATTRIBUTES, relationships: { userGroups: "toMany" } },
    userGroup: { type: "userGroup", attributes: ["name"], relationships: { parents: "toMany" } },
  },
  legacy: {
    user: { type: "user", attributes: ["authenticationId"], relationships: { userGroup: "toOne" } },
    userGroup: { type: "userGroup", attributes: ["name"], relationships: {} },
  },
};

export function collectionPath(profile: Profile, collection: "users" | "userGroups"): string {
  return profile === "v1" ? `/api/v1/entities/${collection}` : `/api/entities/${collection}`;
}

const linkage = (id: string) => ({ id, type: "userGroup" as const });

export function legacyGroupOf(rec: MappingRec): string | undefined {
  return rec.groups.length <= 1 ? rec.groups[0] : [...rec.groups].sort(cmp)[0];
}

/** The groups a user document links to in this profile (for `included`). */
export function linkedGroups(rec: MappingRec, profile: Profile): string[] {
  if (profile === "v1") return rec.groups;
  const g = legacyGroupOf(rec);
  return g === undefined ? [] : [g];
}

export function userOut(rec: MappingRec, profile: Profile, base: string): Record<string, unknown> {
  const self = `${base}${collectionPath(profile, "users")}/${encodeURIComponent(rec.id)}`;
  const attributes: Record<string, string> = {};
  const names = profile === "v1" ? USER_ATTRIBUTES : (["authenticationId"] as const);
  for (const key of names) {
    const v = rec[key];
    if (v !== undefined) attributes[key] = v;
  }
  if (profile === "v1") {
    return {
      id: rec.id,
      type: "user",
      attributes,
      relationships: { userGroups: { data: rec.groups.map(linkage) } },
      links: { self },
    };
  }
  const group = legacyGroupOf(rec);
  return {
    id: rec.id,
    type: "user",
    attributes,
    relationships: { userGroup: { data: group === undefined ? null : linkage(group) } },
    links: { self },
  };
}

export function groupOut(rec: GroupRec, profile: Profile, base: string): Record<string, unknown> {
  const self = `${base}${collectionPath(profile, "userGroups")}/${encodeURIComponent(rec.id)}`;
  const attributes: Record<string, string> = {};
  if (rec.name !== undefined) attributes.name = rec.name;
  if (profile === "legacy") return { id: rec.id, type: "userGroup", attributes, links: { self } };
  return {
    id: rec.id,
    type: "userGroup",
    attributes,
    relationships: { parents: { data: rec.parents.map(linkage) } },
    links: { self },
  };
}
