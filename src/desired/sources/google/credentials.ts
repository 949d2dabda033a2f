/**
 * How usersync proves itself to Google, through google-auth-library (10.x, the line that runs on
 * Node 20): the credentials JSON (`source.google.credentialsFile`, else the file
 * GOOGLE_APPLICATION_CREDENTIALS names) is either
 *
 * - a service-account key (`type: service_account`): a JWT-bearer grant at the key's `token_uri`,
 *   impersonating `subject` (domain-wide delegation) or as the service account itself (which then
 *   holds a Workspace admin role), or
 * - workload identity federation (`type: external_account`): the projected Kubernetes
 *   service-account token exchanged at the STS `token_url`, then, with
 *   `service_account_impersonation_url`, a token of that service account. No key at all.
 *
 * google-auth-library 10 signs for and posts to Google's fixed token URL whatever the key's
 * `token_uri` says; the transport here sends that request to the key's `token_uri` instead (the
 * same URL for every real key; a stand-in's for a rehearsal), and trusts `caFile` beside Node's
 * roots. A refused token becomes a DirectoryError naming the fix (exit 4), an unreachable
 * endpoint a SourceUnavailableError (exit 5). Keys, assertions and tokens are never logged.
 */
import { readFile } from "node:fs/promises";
import { ExternalAccountClient, JWT, type AuthClient } from "google-auth-library";
import type { GoogleConfig } from "../../../config/google-schema.js";
import { DirectoryError, RETRYABLE_NETWORK_CODES, SourceUnavailableError } from "../../../errors.js";
import { platformFetch } from "../identity-platform.js";

export const GOOGLE_SCOPES = [
  "https://www.googleapis.com/auth/admin.directory.user.readonly",
  "https://www.googleapis.com/auth/admin.directory.group.readonly",
  "https://www.googleapis.com/auth/admin.directory.group.member.readonly",
];
const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";

interface CredentialsJson {
  type?: unknown;
  client_email?: unknown;
  client_id?: unknown;
  private_key?: unknown;
  private_key_id?: unknown;
  token_uri?: unknown;
  audience?: unknown;
  service_account_impersonation_url?: unknown;
  [k: string]: unknown;
}

export interface GoogleAuthorizer {
  kind: "service account key" | "workload identity federation";
  /** Who reads, for messages: the delegated admin, the service account, or the federated principal. */
  actor: string;
  /** The Authorization header's value (a cached token until shortly before its end). */
  authorization(): Promise<string>;
  /**
   * The directory refused `refused` (an Authorization value) mid-read: the next `authorization()`
   * is a fresh token from a new client. Callers refused the same token share one renewal.
   */
  renew(refused: string): Promise<void>;
}

const setting = (config: GoogleConfig) => config.credentialsFile ?? `the file ${config.credentialsEnv} names`;

async function readCredentials(
  config: GoogleConfig,
  env: NodeJS.ProcessEnv,
): Promise<{ json: CredentialsJson; file: string }> {
  const file = config.credentialsFile ?? env[config.credentialsEnv];
  if (file === undefined || file === "")
    throw new DirectoryError({
      message: `no Google credentials: set source.google.credentialsFile (or ${config.credentialsEnv}) to a service-account key or, better, a workload identity federation config (docs/google.md)`,
    });
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new DirectoryError({
      message: `cannot read the Google credentials file ${file} (${(err as NodeJS.ErrnoException).code ?? "error"}): check source.google.credentialsFile or ${config.credentialsEnv}`,
    });
  }
  try {
    const json = JSON.parse(text) as CredentialsJson;
    if (typeof json === "object" && json !== null) return { json, file };
  } catch {
    /* refused below */
  }
  throw new DirectoryError({
    message: `the Google credentials file ${file} is not JSON: give the key file downloaded from the Google Cloud console, or the output of gcloud iam workload-identity-pools create-cred-config (docs/google.md)`,
  });
}

/** google-auth-library's transport: the key's token_uri instead of Google's fixed one, the extra CA. */
function transport(tokenUri: string | undefined, ca: string[] | undefined) {
  const fetchImplementation = platformFetch({
    ...(ca ? { ca } : {}),
    ...(tokenUri !== undefined ? { redirect: (url) => (url === GOOGLE_TOKEN_URL ? tokenUri : url) } : {}),
  });
  // gaxios' own retries would hide an outage behind minutes of waiting: one try, our errors.
  return { fetchImplementation, retry: false } as unknown as TransporterOptions;
}

type TransporterOptions = NonNullable<
  NonNullable<ConstructorParameters<typeof JWT>[0]>["transporterOptions"]
>;

interface ClientMaker {
  make: () => AuthClient;
  kind: GoogleAuthorizer["kind"];
  actor: string;
}

/** A service-account key: a JWT-bearer grant, as `subject` (delegation) or as the account itself. */
function keyClient(
  json: CredentialsJson,
  file: string,
  config: GoogleConfig,
  ca: string[] | undefined,
): ClientMaker {
  const email = json.client_email;
  const key = json.private_key;
  if (typeof email !== "string" || typeof key !== "string")
    throw new DirectoryError({
      message: `the service-account key ${file} has no client_email or private_key: download a new JSON key (docs/google.md)`,
    });
  const transporterOptions = transport(typeof json.token_uri === "string" ? json.token_uri : undefined, ca);
  return {
    kind: "service account key",
    actor: config.subject ?? email,
    make: () =>
      new JWT({
        email,
        key,
        ...(typeof json.private_key_id === "string" ? { keyId: json.private_key_id } : {}),
        scopes: GOOGLE_SCOPES,
        ...(config.subject !== undefined ? { subject: config.subject } : {}),
        transporterOptions,
      }),
  };
}

/** Workload identity federation: the STS exchange, then (usually) the service account impersonated. */
function federationClient(
  json: CredentialsJson,
  file: string,
  config: GoogleConfig,
  ca: string[] | undefined,
): ClientMaker {
  if (config.subject !== undefined)
    throw new DirectoryError({
      message: `source.google.subject (${config.subject}) is domain-wide delegation, which needs a service-account key; with workload identity federation grant the service account a Workspace admin role instead and remove subject (docs/google.md)`,
    });
  const transporterOptions = transport(undefined, ca);
  const impersonated = /serviceAccounts\/([^:/]+):generateAccessToken/.exec(
    String(json.service_account_impersonation_url ?? ""),
  )?.[1];
  type Options = Parameters<typeof ExternalAccountClient.fromJSON>[0];
  return {
    kind: "workload identity federation",
    actor: impersonated
      ? decodeURIComponent(impersonated)
      : `the federated principal of ${String(json.audience ?? "?")}`,
    make: () => {
      const client = ExternalAccountClient.fromJSON({
        ...(json as unknown as Options),
        scopes: GOOGLE_SCOPES,
        transporterOptions,
      } as Options);
      if (client === null)
        throw new DirectoryError({
          message: `the external_account config ${file} is of no kind google-auth-library knows (docs/google.md)`,
        });
      // google-auth-library 10 builds the STS exchange's client with a transport of its own (not
      // the options'): give it ours, so the STS endpoint gets the same CA and no silent retries.
      const sts = (client as unknown as { stsCredential?: { transporter?: unknown } }).stsCredential;
      if (sts !== undefined) sts.transporter = client.transporter;
      return client;
    },
  };
}

export async function googleAuthorizer(o: {
  config: GoogleConfig;
  env: NodeJS.ProcessEnv;
  ca: string[] | undefined;
}): Promise<GoogleAuthorizer> {
  const { config } = o;
  const { json, file } = await readCredentials(config, o.env);
  const maker =
    json.type === "service_account"
      ? keyClient(json, file, config, o.ca)
      : json.type === "external_account"
        ? federationClient(json, file, config, o.ca)
        : undefined;
  if (maker === undefined)
    throw new DirectoryError({
      message: `the Google credentials ${setting(config)} are of type ${JSON.stringify(json.type)}: usersync reads with a service-account key (service_account) or workload identity federation (external_account), not a person's login (docs/google.md)`,
    });
  const { kind, actor } = maker;
  let client = maker.make();
  /** The Authorization value last given out, and the request for one under way. */
  let current: string | undefined;
  let pending: Promise<string> | undefined;
  const token = async (): Promise<string> => {
    try {
      const answer = await client.getAccessToken();
      if (!answer.token) throw new Error("google-auth-library gave no token");
      return (current = `Bearer ${answer.token}`);
    } catch (err) {
      throw tokenError(err, { config, json, kind, actor });
    }
  };
  const once = (): Promise<string> => {
    if (pending) return pending;
    const p = token().finally(() => {
      if (pending === p) pending = undefined;
    });
    return (pending = p);
  };
  return {
    kind,
    actor,
    // google-auth-library's client caches its token until shortly before its end.
    authorization: once,
    renew: async (refused) => {
      // A new client (an empty cache) once for the refused token; a token minted since is fresh.
      if (refused === current) {
        client = maker.make();
        current = undefined;
        pending = undefined;
      }
      await once();
    },
  };
}

/** What google-auth-library's error says: the OAuth error, its description, the status. */
function describe(err: unknown): { status?: number; error: string; description: string; code?: string } {
  const e = err as {
    response?: { status?: number; data?: unknown };
    code?: unknown;
    cause?: { code?: unknown };
    message?: unknown;
  };
  const data = (e.response?.data ?? {}) as { error?: unknown; error_description?: unknown };
  const nested =
    typeof data.error === "object" && data.error !== null
      ? (data.error as { message?: unknown; status?: unknown })
      : undefined;
  const code =
    typeof e.code === "string" ? e.code : typeof e.cause?.code === "string" ? e.cause.code : undefined;
  return {
    ...(e.response?.status !== undefined ? { status: e.response.status } : {}),
    error: typeof data.error === "string" ? data.error : String(nested?.status ?? ""),
    description: String(
      data.error_description ?? nested?.message ?? (typeof e.message === "string" ? e.message : ""),
    )
      .split("\n")[0]!
      .slice(0, 300),
    ...(code !== undefined ? { code } : {}),
  };
}

function tokenError(
  err: unknown,
  o: { config: GoogleConfig; json: CredentialsJson; kind: GoogleAuthorizer["kind"]; actor: string },
): Error {
  if (err instanceof DirectoryError) return err;
  const d = describe(err);
  const clientId = typeof o.json.client_id === "string" ? o.json.client_id : "(the key's client_id)";
  const where =
    `getting a Google token (${o.kind}, as ${o.actor}) failed: ${d.status ?? d.code ?? ""} ${d.error}${d.description ? ` (${d.description})` : ""}`.replace(
      /\s+/g,
      " ",
    );
  const outage =
    (d.code !== undefined && RETRYABLE_NETWORK_CODES.has(d.code)) ||
    (d.status !== undefined && (d.status >= 500 || d.status === 429));
  if (outage)
    return new SourceUnavailableError({
      message: `${where}: Google's token endpoint cannot be reached now; nothing was sent, a later run may succeed`,
    });
  let fix: string;
  if (d.error === "unauthorized_client")
    fix = `domain-wide delegation is not authorised for the client id ${clientId} with the scopes ${GOOGLE_SCOPES.join(",")}: in the Admin console, Security > Access and data control > API controls > Manage Domain Wide Delegation, add that client id with exactly these scopes (docs/google.md)`;
  else if (/Invalid JWT Signature/i.test(d.description))
    fix = `the key ${String(o.json.private_key_id ?? "")} is not (any more) a key of ${String(o.json.client_email)}: create a new key, or move to workload identity federation, which has no key (docs/google.md)`;
  else if (
    /invalid email or user id|not a valid email/i.test(d.description) ||
    (d.error === "invalid_grant" && o.config.subject !== undefined && /user/i.test(d.description))
  )
    fix = `source.google.subject (${o.config.subject ?? ""}) is not a user of the Workspace: name an admin's primary email`;
  else if (d.error === "invalid_target")
    fix = `the workload identity pool provider in the credentials' audience (${String(o.json.audience ?? "")}) does not exist or is disabled: recreate the config with gcloud iam workload-identity-pools create-cred-config (docs/google.md)`;
  else if (d.error === "invalid_grant" && o.kind === "workload identity federation")
    fix = `the pool refused the Kubernetes service-account token: check the provider's issuer (the cluster's OIDC issuer), its attribute condition and the token's audience, and that the pod mounts the projected token (docs/google.md)`;
  else if (
    /getAccessToken|PERMISSION_DENIED/i.test(d.description) ||
    (d.status === 403 && o.kind === "workload identity federation")
  )
    fix = `the federated principal may not impersonate ${o.actor}: grant it roles/iam.workloadIdentityUser on that service account (docs/google.md)`;
  else if (d.code === "ENOTFOUND" || d.code === "ERR_INVALID_URL")
    fix = "the token endpoint's host is unknown: check token_uri / token_url in the credentials file";
  else fix = "check the credentials file and docs/google.md";
  return new DirectoryError({ message: `${where}. Fix: ${fix}` });
}
