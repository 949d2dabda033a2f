/** `source.ldap` (issue 16): an LDAP / Active Directory directory as the desired state; see docs/ldap.md. */
import { z } from "zod";
import { groupRuleSchema } from "../group-rule-schema.js";

const path = z.string().min(1, "must be a file path");
const int = (min: number, max: number, dflt: number) =>
  z.number().int("must be a whole number").min(min).max(max).default(dflt);
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name");
const LDAP_FIELDS = [
  "email",
  "id",
  "displayName",
  "firstname",
  "lastname",
  "identity",
  "authenticationId",
  "state",
] as const;
const template = z.string().min(1);

/** LDAP picks groups by a pattern on the DN and/or the cn; the rest is the shared rule. */
const ldapGroupRule = groupRuleSchema(
  { dn: z.string().min(1).optional(), cn: z.string().min(1).optional() },
  { mode: "any", message: "a group rule needs dn or cn (a pattern)" },
);

export const ldapSection = z.strictObject({
  url: z.string().regex(/^ldaps?:\/\/[^/]+\/?$/, "must be ldap://HOST[:PORT] or ldaps://HOST[:PORT]"),
  startTls: z.boolean().default(false),
  caFile: path.optional(),
  bindDn: z.string().min(1).optional(),
  passwordEnv: envName.default("USERSYNC_LDAP_PASSWORD"),
  passwordFile: path.optional(),
  baseDn: z.string().min(1),
  userFilter: z.string().min(1).default("(objectClass=inetOrgPerson)"),
  groupBaseDn: z.string().min(1).optional(),
  groupFilter: z.string().min(1).default("(|(objectClass=groupOfNames)(objectClass=group))"),
  pageSize: int(1, 10_000, 500),
  timeoutMs: int(1, 600_000, 30_000),
  attributes: z
    .strictObject({
      email: template.default("{mail}"),
      id: template.optional(),
      displayName: template.optional(),
      firstname: template.optional(),
      lastname: template.optional(),
      identity: template.optional(),
      authenticationId: template.optional(),
      state: template.optional(),
    })
    .prefault({}),
  lowerCase: z.array(z.enum(LDAP_FIELDS)).default([]),
  nested: z.enum(["member", "inChain", "none"]).default("member"),
  /** How a changes-only run finds what changed (docs/ldap.md, "Changes-only runs"). */
  changesBy: z.enum(["auto", "usn", "timestamp", "accesslog"]).default("auto"),
  /** Reading by uSNChanged (AD): find leavers by the Show Deleted control, not a DN listing. */
  showDeleted: z.boolean().optional(),
  /** With changesBy accesslog: the suffix of OpenLDAP's access log database (unset: cn=accesslog). */
  accessLogBase: z.string().min(1).optional(),
  groups: z.array(ldapGroupRule).default([]),
});
