/**
 * Profile `legacy`: the seed contract (`/api/auth/users`, `/api/entities/...`). A user belongs to
 * at most one group (to-one `userGroup`); POST wraps the resource in `data`, PUT sends it bare;
 * mappings have no names or email and groups no parents.
 */
import { InputError } from "../errors.js";
import type { Mapping, UserGroup } from "./types.js";
import { defined, relatedIds, stringAttr, type ProfileCodec, type Resource } from "./codec.js";

function mappingResource(m: Mapping): Record<string, unknown> {
  if (m.groups.length > 1) {
    throw new InputError({
      message: `user ${m.id} is in ${m.groups.length} groups; profile legacy allows one`,
      problems: [
        {
          file: "(request)",
          field: `users[${m.id}].groups`,
          rule: "legacy-one-group",
          message: `profile legacy maps a user to at most one group, got ${m.groups.join(", ")}`,
        },
      ],
    });
  }
  const group = m.groups[0];
  return {
    id: m.id,
    type: "user",
    attributes: defined({ authenticationId: m.authenticationId }),
    ...(group !== undefined
      ? { relationships: { userGroup: { data: { id: group, type: "userGroup" } } } }
      : {}),
  };
}

export const legacyCodec: ProfileCodec = {
  profile: "legacy",
  paths: { idpUsers: "/api/auth/users", users: "/api/entities/users", groups: "/api/entities/userGroups" },
  include: { users: "userGroups", groups: undefined },
  encodeMapping(m: Mapping, use) {
    const resource = mappingResource(m);
    return use === "create" ? { data: resource } : resource;
  },
  encodeGroup(g: UserGroup, use) {
    const resource = { id: g.id, type: "userGroup", attributes: defined({ name: g.name }) };
    return use === "create" ? { data: resource } : resource;
  },
  decodeMapping(r: Resource): Mapping {
    const authenticationId = stringAttr(r, "authenticationId");
    return {
      id: r.id,
      ...(authenticationId !== undefined ? { authenticationId } : {}),
      groups: relatedIds(r, "userGroup"),
    };
  },
  decodeGroup(r: Resource): UserGroup {
    const name = stringAttr(r, "name");
    return { id: r.id, ...(name !== undefined ? { name } : {}), parents: [] };
  },
};
