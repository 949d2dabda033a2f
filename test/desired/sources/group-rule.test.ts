/**
 * One group rule for every directory (docs/sources.md, "Group rules"): the same shared rule (an id
 * made valid from a name with a space, a name template, static parents, templated workspaces and
 * data filters, organization permissions), with only each directory's way to pick groups, gives
 * the same desired groups and memberships from LDAP (slapd), Entra (the Graph stand-in) and Okta
 * (the Okta stand-in), each over a real socket.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ldapSection } from "../../../src/desired/sources/ldap/schema.js";
import { oktaSource } from "../../../src/desired/sources/okta/schema.js";
import { configSchema } from "../../../src/config/schema.js";
import { openEntraSource } from "../../../src/desired/sources/entra/index.js";
import { readLdapDesired } from "../../../src/desired/sources/ldap/index.js";
import { readOktaDesired } from "../../../src/desired/sources/okta/index.js";
import type { SourceResult } from "../../../src/desired/sources/contract.js";
import type { GraphStandIn } from "../../../src/emulator/graph/server.js";
import { createLogger } from "../../../src/logging.js";
import {
  CLIENT_ID,
  SECRET,
  TENANT_ID,
  entraSettings,
  smallTenant,
  startStandIn,
} from "../../helpers/entra.js";
import { serviceAppSource, startOkta, type OktaFixture } from "../../helpers/okta.js";
import {
  ROOT_DN,
  ROOT_PASSWORD,
  SUFFIX,
  slapdAvailable,
  startSlapd,
  type Slapd,
} from "../../helpers/slapd.js";
import { withTempDir } from "../../e2e/run-cli.js";

const logger = createLogger({ level: "silent", format: "json" });

/** Three groups, as each directory holds them: a name with a space, a description, members. */
const GROUPS = [
  { name: "Sales Team", description: "EMEA", members: ["ann", "bob"] },
  { name: "Support Desk", description: "APAC", members: ["cid"] },
  { name: "All Teams", description: "World", members: ["ann", "bob", "cid"] },
];
const PEOPLE = ["ann", "bob", "cid"];

/** Everything but the pick: the same in every directory. */
const SHARED = {
  name: "Team {description}",
  parents: ["all_teams"],
  workspaces: { "ws-{description}": ["VIEW", "ANALYZE"], shared: ["VIEW"] },
  dataFilters: { "ws-{description}": { label: "region", values: ["{description}", "Global"] } },
  organization: ["SELF_CREATE_TOKEN"],
};

/** What the desired state says, without where it came from. */
function shape(result: SourceResult) {
  expect(result.problems).toEqual([]);
  return {
    groups: result.state.groups.map(({ source: _source, ...g }) => g).sort((a, b) => (a.id < b.id ? -1 : 1)),
    users: result.state.users
      .map((u) => [u.email.toLowerCase(), u.groups])
      .sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
  };
}

const EXPECTED_GROUPS = [
  { id: "all_teams", name: "All Teams" },
  {
    id: "sales_team",
    name: "Team EMEA",
    parents: ["all_teams"],
    workspaces: [
      { workspace: "shared", permissions: ["VIEW"] },
      { workspace: "ws-emea", permissions: ["ANALYZE", "VIEW"] },
    ],
    dataFilters: [{ workspace: "ws-emea", label: "region", values: ["EMEA", "Global"] }],
    organization: ["SELF_CREATE_TOKEN"],
  },
  {
    id: "support_desk",
    name: "Team APAC",
    parents: ["all_teams"],
    workspaces: [
      { workspace: "shared", permissions: ["VIEW"] },
      { workspace: "ws-apac", permissions: ["ANALYZE", "VIEW"] },
    ],
    dataFilters: [{ workspace: "ws-apac", label: "region", values: ["APAC", "Global"] }],
    organization: ["SELF_CREATE_TOKEN"],
  },
];
const EXPECTED_USERS = [
  ["ann@example.org", ["all_teams", "sales_team"]],
  ["bob@example.org", ["all_teams", "sales_team"]],
  ["cid@example.org", ["all_teams", "support_desk"]],
];

describe.skipIf(!slapdAvailable())("one group rule, three directories", () => {
  let slapd: Slapd;
  let graph: GraphStandIn;
  let okta: OktaFixture;
  beforeAll(async () => {
    const people = PEOPLE.map(
      (p) =>
        `dn: uid=${p},ou=people,${SUFFIX}\nobjectClass: inetOrgPerson\nuid: ${p}\ncn: ${p}\nsn: Example\nmail: ${p}@example.org\n`,
    );
    const groups = GROUPS.map(
      (g) =>
        `dn: cn=${g.name},ou=groups,${SUFFIX}\nobjectClass: groupOfNames\ncn: ${g.name}\ndescription: ${g.description}\n` +
        g.members.map((m) => `member: uid=${m},ou=people,${SUFFIX}\n`).join(""),
    );
    const tenant = smallTenant();
    tenant.users = PEOPLE.map((p, i) => ({
      id: `2a000000-0000-4000-8000-00000000000${i}`,
      userPrincipalName: `${p}@contoso.onmicrosoft.com`,
      mail: `${p}@example.org`,
      displayName: p,
      givenName: p,
      surname: "Example",
      accountEnabled: true,
      userType: "Member",
    }));
    const entraId = (p: string) => tenant.users[PEOPLE.indexOf(p)]!.id;
    tenant.groups = GROUPS.map((g, i) => ({
      id: `3a000000-0000-4000-8000-00000000000${i}`,
      displayName: g.name,
      description: g.description,
      mailNickname: g.name.replace(" ", "").toLowerCase(),
      securityEnabled: true,
      groupTypes: [],
      members: g.members.map(entraId),
    }));
    [slapd, graph, okta] = await Promise.all([
      startSlapd([...people, ...groups].join("\n")),
      startStandIn({ tenant }),
      startOkta({
        users: PEOPLE.map((p, i) => ({
          id: `00u${i}${p}`,
          status: "ACTIVE" as const,
          profile: { login: p, email: `${p}@example.org`, firstName: p, lastName: "Example" },
        })),
        groups: GROUPS.map((g, i) => ({
          id: `00g${i}group`,
          type: "OKTA_GROUP" as const,
          profile: { name: g.name, description: g.description },
          members: g.members.map((m) => `00u${PEOPLE.indexOf(m)}${m}`),
        })),
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([slapd?.remove(), graph?.close(), okta?.okta.close()]);
  });

  it("gives the same user groups, permissions, data filters and members from LDAP, Entra and Okta", async () => {
    const ldap = await readLdapDesired({
      config: ldapSection.parse({
        url: slapd.url,
        bindDn: ROOT_DN,
        baseDn: `ou=people,${SUFFIX}`,
        groupBaseDn: `ou=groups,${SUFFIX}`,
        groups: [
          { cn: "S*", ...SHARED },
          { cn: "All Teams", parents: [] },
        ],
      }),
      env: { USERSYNC_LDAP_PASSWORD: ROOT_PASSWORD },
      defaultIdentity: "builtin",
    });
    const entra = await openEntraSource(
      configSchema.parse({
        source: {
          type: "entra",
          entra: entraSettings(graph.url, {
            tenant: TENANT_ID,
            clientId: CLIENT_ID,
            attributes: { authenticationId: "id" },
            groups: [
              { filter: "startswith(displayName,'S')", ...SHARED },
              { displayName: "All Teams", parents: [] },
            ],
          }),
        },
      }),
      { env: { USERSYNC_ENTRA_CLIENT_SECRET: SECRET }, logger, defaultIdentity: "builtin" },
    ).read();
    const fromOkta = await withTempDir(async (dir) =>
      readOktaDesired(
        oktaSource.parse(
          await serviceAppSource(okta, dir, {
            groups: [
              { search: 'profile.name sw "S"', ...SHARED },
              { groupName: "All Teams", parents: [] },
            ],
          }),
        ),
        { env: {}, logger, defaultIdentity: "builtin" },
      ),
    );
    const expected = { groups: EXPECTED_GROUPS.map((g) => ({ parents: [], ...g })), users: EXPECTED_USERS };
    const fromLdap = shape(ldap);
    expect(fromLdap).toMatchObject(expected);
    expect(shape(entra)).toEqual(fromLdap);
    expect(shape(fromOkta)).toEqual(fromLdap);
  });
});
