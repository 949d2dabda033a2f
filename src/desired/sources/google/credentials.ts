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
import type * as GoogleAuthLibraryModule from "google-auth-library";
import type { AuthClient, ExternalAccountClient, JWT } from "google-auth-library";
import type { GoogleConfig } from "./schema.js";
import { DirectoryError } from "../../../errors.js";
import { platformFetch } from "../identity-platform.js";
import { tokenError } from "./token-errors.js";

/** google-auth-library, loaded when a Google source is read (docs/architecture.md, "Start-up"). */
type GoogleAuthLibrary = typeof GoogleAuthLibraryModule;

/** The Reports API's scope: a changes-only read of the admin activity (issue 48). */
export const GOOGLE_REPORTS_SCOPE = "https://www.googleapis.com/auth/admin.reports.audit.readonly";

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
  lib: GoogleAuthLibrary,
  json: CredentialsJson,
  file: string,
  config: GoogleConfig,
  ca: string[] | undefined,
  scopes: readonly string[],
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
      new lib.JWT({
        email,
        key,
        ...(typeof json.private_key_id === "string" ? { keyId: json.private_key_id } : {}),
        scopes: [...scopes],
        ...(config.subject !== undefined ? { subject: config.subject } : {}),
        transporterOptions,
      }),
  };
}

/** Workload identity federation: the STS exchange, then (usually) the service account impersonated. */
function federationClient(
  lib: GoogleAuthLibrary,
  json: CredentialsJson,
  file: string,
  config: GoogleConfig,
  ca: string[] | undefined,
  scopes: readonly string[],
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
      const client = lib.ExternalAccountClient.fromJSON({
        ...(json as unknown as Options),
        scopes: [...scopes],
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
  /** The scopes the token asks for (default GOOGLE_SCOPES; a changes-only read adds the Reports API's). */
  scopes?: readonly string[];
}): Promise<GoogleAuthorizer> {
  const { config } = o;
  const scopes = o.scopes ?? GOOGLE_SCOPES;
  const { json, file } = await readCredentials(config, o.env);
  const lib = await import("google-auth-library");
  const maker =
    json.type === "service_account"
      ? keyClient(lib, json, file, config, o.ca, scopes)
      : json.type === "external_account"
        ? federationClient(lib, json, file, config, o.ca, scopes)
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
      throw tokenError(err, { config, json, kind, actor, scopes: [...scopes] });
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
