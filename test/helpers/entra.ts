/**
 * A small Entra tenant for the Graph stand-in (src/emulator/graph), and configs pointing at it.
 * The stand-in speaks HTTPS with the test-only certificate of fixtures/tls (MSAL refuses an
 * authority that is not https); `source.entra.caFile` trusts its CA.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { entraSection, type EntraConfig } from "../../src/desired/sources/entra/schema.js";
import {
  startGraphStandIn,
  type GraphFault,
  type GraphStandIn,
  type GraphTenant,
} from "../../src/emulator/graph/server.js";

const TLS_DIR = new URL("../../fixtures/tls/", import.meta.url);
export const CA_FILE = fileURLToPath(new URL("ca.pem", TLS_DIR));
export const TLS = {
  key: readFileSync(new URL("server-key.pem", TLS_DIR)),
  cert: readFileSync(new URL("server.pem", TLS_DIR)),
};

export const TENANT_ID = "11111111-2222-4333-8444-555555555555";
export const CLIENT_ID = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
export const NO_USERS_CLIENT = "aaaaaaaa-bbbb-4ccc-8ddd-000000000001";
export const NO_CONSENT_CLIENT = "aaaaaaaa-bbbb-4ccc-8ddd-000000000002";
export const SECRET = "s3cret-value-never-printed";
export const FEDERATED_ISSUER = "https://oidc.cluster.example/issuer";
export const FEDERATED_SUBJECT = "system:serviceaccount:usersync:usersync";

/** A projected service-account token as the kubelet writes it (unsigned here: the stand-in reads its claims). */
export function serviceAccountToken(subject = FEDERATED_SUBJECT): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const exp = Math.floor(Date.now() / 1000) + 3600;
  return [
    part({ alg: "RS256", kid: "k1" }),
    part({ iss: FEDERATED_ISSUER, sub: subject, aud: ["api://AzureADTokenExchange"], exp }),
    "c2ln",
  ].join(".");
}
export const EXPIRED_SECRET = "an-expired-secret-value";

export const G = {
  analytics: "0a000000-0000-4000-8000-00000000000a",
  platform: "0b000000-0000-4000-8000-00000000000b",
  allStaff: "0c000000-0000-4000-8000-00000000000c",
  empty: "0d000000-0000-4000-8000-00000000000d",
};
export const U = {
  ada: "1a000000-0000-4000-8000-000000000001",
  grace: "1a000000-0000-4000-8000-000000000002",
  linus: "1a000000-0000-4000-8000-000000000003",
  guest: "1a000000-0000-4000-8000-000000000004",
  ken: "1a000000-0000-4000-8000-000000000005",
};

/**
 * Analytics Team: ada, grace (no mail: her UPN is her email), a guest, a service principal and
 * the nested group Platform (ken; linus, disabled; a contact). All Staff holds Analytics Team.
 */
export function smallTenant(): GraphTenant {
  const user = (id: string, name: string, extra: Record<string, unknown> = {}) => ({
    id,
    userPrincipalName: `${name}@contoso.onmicrosoft.com`,
    mail: `${name[0]!.toUpperCase()}${name.slice(1)}@contoso.com`,
    displayName: `${name[0]!.toUpperCase()}${name.slice(1)}`,
    givenName: name[0]!.toUpperCase() + name.slice(1),
    surname: "Example",
    accountEnabled: true,
    userType: "Member",
    ...extra,
  });
  return {
    tenantId: TENANT_ID,
    domain: "contoso.onmicrosoft.com",
    users: [
      user(U.ada, "ada"),
      user(U.grace, "grace", { mail: null }),
      user(U.linus, "linus", { accountEnabled: false }),
      user(U.guest, "guest", {
        userType: "Guest",
        userPrincipalName: "guest_fabrikam.com#EXT#@contoso.onmicrosoft.com",
      }),
      user(U.ken, "ken"),
    ],
    groups: [
      {
        id: G.analytics,
        displayName: "Analytics Team",
        mailNickname: "analytics",
        securityEnabled: true,
        groupTypes: [],
        members: [U.ada, U.grace, U.guest, "sp-1", G.platform],
      },
      {
        id: G.platform,
        displayName: "Platform",
        mailNickname: "platform",
        securityEnabled: true,
        groupTypes: [],
        members: [U.ken, U.linus, "contact-1"],
      },
      {
        id: G.allStaff,
        displayName: "All Staff",
        mailNickname: "all-staff",
        securityEnabled: true,
        groupTypes: [],
        members: [G.analytics],
      },
      {
        id: G.empty,
        displayName: "Nobody Yet",
        mailNickname: "nobody",
        securityEnabled: true,
        groupTypes: [],
        members: [],
      },
    ],
    others: [
      { id: "sp-1", type: "servicePrincipal", displayName: "Reporting bot" },
      { id: "contact-1", type: "orgContact", displayName: "Supplier" },
    ],
    apps: [
      {
        clientId: CLIENT_ID,
        federated: { issuer: FEDERATED_ISSUER, subject: FEDERATED_SUBJECT },
        secrets: [SECRET],
        expiredSecrets: [EXPIRED_SECRET],
        certificate: true,
        roles: ["GroupMember.Read.All", "User.Read.All"],
      },
      { clientId: NO_USERS_CLIENT, secrets: [SECRET], roles: ["GroupMember.Read.All"] },
      { clientId: NO_CONSENT_CLIENT, secrets: [SECRET], roles: [] },
    ],
  };
}

export async function startStandIn(
  o: { tenant?: GraphTenant; faults?: GraphFault[]; latencyMs?: number } = {},
): Promise<GraphStandIn> {
  return startGraphStandIn({
    tenant: o.tenant ?? smallTenant(),
    tls: TLS,
    idleMs: 120_000,
    ...(o.faults ? { faults: o.faults } : {}),
    ...(o.latencyMs ? { latencyMs: o.latencyMs } : {}),
  });
}

/** The YAML-side settings of a source.entra pointed at a stand-in (secret credential, from USERSYNC_ENTRA_CLIENT_SECRET). */
export function entraSettings(url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    tenant: TENANT_ID,
    clientId: CLIENT_ID,
    credential: "secret",
    authorityHost: url,
    graphUrl: url,
    caFile: CA_FILE,
    groups: [{ displayName: "Analytics Team", parents: "directory" }, { objectId: G.allStaff }],
    ...extra,
  };
}

export function entraConfig(url: string, extra: Record<string, unknown> = {}): EntraConfig {
  return entraSection.parse(entraSettings(url, extra));
}
