/** Profile `v1`: the current released API (`/api/v1/...`), documents as in the official OpenAPI spec. */
import type { Mapping, UserGroup } from "./types.js";
import { defined, linkage, relatedIds, stringAttr, type ProfileCodec, type Resource } from "./codec.js";

export const v1Codec: ProfileCodec = {
  profile: "v1",
  paths: {
    idpUsers: "/api/v1/auth/users",
    users: "/api/v1/entities/users",
    groups: "/api/v1/entities/userGroups",
    profile: "/api/v1/profile",
    userManagement: "/api/v1/actions/userManagement",
  },
  // Groups: `parents` names the relationship; the spec also allows `userGroups` (the type) and `ALL`.
  include: { users: "userGroups", groups: "parents" },
  // POST and PUT take the same document; PUT replaces the whole resource, so every field is sent.
  encodeMapping(m: Mapping) {
    return {
      data: {
        id: m.id,
        type: "user",
        attributes: defined({
          authenticationId: m.authenticationId,
          firstname: m.firstname,
          lastname: m.lastname,
          email: m.email,
        }),
        relationships: { userGroups: { data: linkage(m.groups) } },
      },
    };
  },
  encodeGroup(g: UserGroup) {
    return {
      data: {
        id: g.id,
        type: "userGroup",
        attributes: defined({ name: g.name }),
        relationships: { parents: { data: linkage(g.parents) } },
      },
    };
  },
  decodeMapping(r: Resource): Mapping {
    const m: Mapping = { id: r.id, groups: relatedIds(r, "userGroups") };
    for (const k of ["authenticationId", "firstname", "lastname", "email"] as const) {
      const v = stringAttr(r, k);
      if (v !== undefined) m[k] = v;
    }
    return m;
  },
  decodeGroup(r: Resource): UserGroup {
    const name = stringAttr(r, "name");
    return { id: r.id, ...(name !== undefined ? { name } : {}), parents: relatedIds(r, "parents") };
  },
};
