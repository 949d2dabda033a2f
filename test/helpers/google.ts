/**
 * A small Google Workspace customer for the stand-in (src/emulator/google), the credential files
 * usersync reads (a service-account key whose token_uri is the stand-in's; a workload identity
 * federation config whose token_url and impersonation URL are the stand-in's), and `source.google`
 * blocks pointing at it. The stand-in speaks HTTPS with the test-only certificate of fixtures/tls.
 */
import { generateKeyPairSync } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CA_FILE, TLS } from "./entra.js";
import {
  startGoogleStandIn,
  type GoogleFault,
  type GoogleStandIn,
  type GoogleStandInOptions,
  type GoogleUser,
} from "../../src/emulator/google/server.js";
import { GOOGLE_SCOPES } from "../../src/desired/sources/google/credentials.js";

export { CA_FILE };
export const CUSTOMER_ID = "C01stand1n";
export const DOMAIN = "example.com";
export const ADMIN = "admin@example.com";
export const DELEGATED_SA = "usersync@usersync-test.iam.gserviceaccount.com";
export const ADMIN_ROLE_SA = "usersync-reader@usersync-test.iam.gserviceaccount.com";
export const NO_RIGHTS_SA = "nobody@usersync-test.iam.gserviceaccount.com";
export const DELEGATED_CLIENT_ID = "103000000000000000001";
export const WIF_AUDIENCE =
  "//iam.googleapis.com/projects/123456/locations/global/workloadIdentityPools/k8s/providers/cluster";
export const WIF_SUBJECT = "system:serviceaccount:usersync:usersync";

const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
export const PRIVATE_KEY = keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const PUBLIC_KEY = keys.publicKey.export({ type: "spki", format: "pem" }).toString();

export const U = {
  ada: "100000000000000000001",
  grace: "100000000000000000002",
  linus: "100000000000000000003",
  ken: "100000000000000000004",
  arch: "100000000000000000005",
  admin: "100000000000000000009",
};
export const G = {
  analytics: "03abc000analytics",
  platform: "03abc000platform",
  staff: "03abc000staff",
  empty: "03abc000empty",
};

export function smallCustomer(): Pick<GoogleStandInOptions, "customerId" | "domain" | "users" | "groups"> {
  const user = (id: string, given: string, extra: Partial<GoogleUser> = {}): GoogleUser => ({
    id,
    primaryEmail: `${given.toLowerCase()}@${DOMAIN}`,
    name: { givenName: given, familyName: "Example", fullName: `${given} Example` },
    ...extra,
  });
  return {
    customerId: CUSTOMER_ID,
    domain: DOMAIN,
    users: [
      user(U.ada, "Ada"),
      user(U.grace, "Grace", { primaryEmail: `Grace@${DOMAIN}` }),
      user(U.linus, "Linus", { suspended: true }),
      user(U.ken, "Ken"),
      user(U.arch, "Arch", { archived: true }),
      user(U.admin, "Admin", { isAdmin: true }),
    ],
    groups: [
      {
        id: G.analytics,
        email: `analytics-team@${DOMAIN}`,
        name: "Analytics Team",
        members: [
          { id: U.ada, type: "USER" },
          { id: U.grace, type: "USER", role: "OWNER" },
          { id: U.linus, type: "USER" },
          { id: G.platform, type: "GROUP" },
          { id: "C01stand1n", type: "CUSTOMER" },
          { id: "200000000000000000001", type: "USER", email: "outsider@gmail.com", status: "UNDEFINED" },
        ],
      },
      {
        id: G.platform,
        email: `analytics-platform@${DOMAIN}`,
        name: "Platform",
        members: [
          { id: U.ken, type: "USER" },
          { id: U.arch, type: "USER" },
        ],
      },
      {
        id: G.staff,
        email: `all-staff@${DOMAIN}`,
        name: "All Staff",
        members: [{ id: G.analytics, type: "GROUP" }],
      },
      { id: G.empty, email: `empty@${DOMAIN}`, name: "Empty", members: [] },
    ],
  };
}

export function startGoogle(
  o: Partial<GoogleStandInOptions> & { faults?: GoogleFault[] } = {},
): Promise<GoogleStandIn> {
  return startGoogleStandIn({
    ...smallCustomer(),
    tls: TLS,
    serviceAccounts: [
      { clientEmail: DELEGATED_SA, publicKeyPem: PUBLIC_KEY, delegatedScopes: GOOGLE_SCOPES },
      { clientEmail: ADMIN_ROLE_SA, publicKeyPem: PUBLIC_KEY, adminRole: true },
      { clientEmail: NO_RIGHTS_SA, publicKeyPem: PUBLIC_KEY },
    ],
    federation: { audience: WIF_AUDIENCE, subjects: [WIF_SUBJECT], impersonate: [ADMIN_ROLE_SA] },
    ...o,
  });
}

/** A service-account key as the Cloud console downloads it, its token_uri the stand-in's. */
export async function writeKey(dir: string, url: string, clientEmail = DELEGATED_SA): Promise<string> {
  const file = join(dir, `${clientEmail.split("@")[0]}-key.json`);
  await writeFile(
    file,
    JSON.stringify({
      type: "service_account",
      project_id: "usersync-test",
      private_key_id: "0123456789abcdef",
      private_key: PRIVATE_KEY,
      client_email: clientEmail,
      client_id: DELEGATED_CLIENT_ID,
      auth_uri: `${url}/o/oauth2/auth`,
      token_uri: `${url}/token`,
    }),
    { mode: 0o600 },
  );
  return file;
}

/** A projected Kubernetes service-account token (unsigned: the stand-in reads its claims). */
export function kubeToken(subject = WIF_SUBJECT): string {
  const part = (x: object) => Buffer.from(JSON.stringify(x)).toString("base64url");
  const exp = Math.floor(Date.now() / 1000) + 3600;
  return [
    part({ alg: "RS256", kid: "k" }),
    part({ iss: "https://oidc.cluster.example", sub: subject, aud: [WIF_AUDIENCE], exp }),
    "c2ln",
  ].join(".");
}

/** What `gcloud iam workload-identity-pools create-cred-config` writes, the URLs the stand-in's. */
export async function writeFederation(
  dir: string,
  url: string,
  o: { subject?: string; impersonate?: string | null } = {},
): Promise<string> {
  const tokenFile = join(dir, "kube-token");
  await writeFile(tokenFile, kubeToken(o.subject));
  const file = join(dir, "wif.json");
  const impersonate = o.impersonate === undefined ? ADMIN_ROLE_SA : o.impersonate;
  await writeFile(
    file,
    JSON.stringify({
      universe_domain: "googleapis.com",
      type: "external_account",
      audience: WIF_AUDIENCE,
      subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
      token_url: `${url}/v1/token`,
      credential_source: { file: tokenFile, format: { type: "text" } },
      ...(impersonate !== null
        ? {
            service_account_impersonation_url: `${url}/v1/projects/-/serviceAccounts/${impersonate}:generateAccessToken`,
          }
        : {}),
    }),
  );
  return file;
}

/** `source.google` for the stand-in: delegation as the admin, the four groups picked three ways. */
export function googleSettings(url: string, credentialsFile: string, extra: Record<string, unknown> = {}) {
  return {
    apiUrl: url,
    caFile: CA_FILE,
    credentialsFile,
    subject: ADMIN,
    groups: [
      { email: `all-staff@${DOMAIN}`, workspaces: { demo: ["VIEW"] } },
      { query: "email:analytics-*" },
    ],
    ...extra,
  };
}
