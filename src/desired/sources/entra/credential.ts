/**
 * How usersync proves to Entra ID that it is the app registration: through `@azure/identity`,
 * with workload identity federation (a projected Kubernetes service-account token, no secret at
 * all), a client certificate, or a client secret (last resort). A failed token request becomes a
 * setup error naming the fix (exit 4), or exit 5 when the identity platform cannot be reached
 * now. Nothing here logs or keeps a secret, a token or an assertion; the messages the identity
 * platform sends (AADSTS…) never contain them.
 */
import { readFile } from "node:fs/promises";
import type { TokenCredential } from "@azure/identity";
import type { EntraConfig } from "./schema.js";
import { DirectoryError, RETRYABLE_NETWORK_CODES, SourceUnavailableError } from "../../../errors.js";
import { platformStatus, readSourceCa } from "../identity-platform.js";

export const GRAPH_SCOPE = "https://graph.microsoft.com/.default";
const PUBLIC_AUTHORITY = "https://login.microsoftonline.com";

/** The CA bundle for both hosts: the file's CAs added to Node's roots, never replacing them. */
export const readCa = (config: EntraConfig): Promise<string[] | undefined> =>
  readSourceCa(config.caFile, "source.entra.caFile");

async function readSecret(config: EntraConfig, env: NodeJS.ProcessEnv): Promise<string> {
  if (config.secretFile !== undefined) {
    try {
      return (await readFile(config.secretFile, "utf8")).replace(/\r?\n$/, "");
    } catch (err) {
      throw new DirectoryError({
        message: `source.entra.secretFile ${config.secretFile} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): check the path (a mounted Secret?)`,
      });
    }
  }
  const secret = env[config.secretEnv];
  if (secret === undefined || secret === "")
    throw new DirectoryError({
      message: `source.entra.credential is secret but ${config.secretEnv} is not set: export the app registration's client secret value there, or set source.entra.secretFile (better: credential: workloadIdentity, which needs no secret; docs/entra.md)`,
    });
  return secret;
}

/** The credential the config names, ready for `getToken(GRAPH_SCOPE)`. */
export async function entraCredential(
  config: EntraConfig,
  env: NodeJS.ProcessEnv,
  ca: string[] | undefined,
): Promise<TokenCredential> {
  const options = {
    authorityHost: config.authorityHost,
    // Instance discovery asks the public cloud about the authority; a sovereign cloud, a proxy or
    // a stand-in named in authorityHost is trusted as configured instead.
    disableInstanceDiscovery: config.authorityHost.replace(/\/$/, "") !== PUBLIC_AUTHORITY,
    ...(ca !== undefined ? { tlsOptions: { ca } } : {}),
    retryOptions: { maxRetries: 2 },
  };
  // Loaded here, not at start: a run that reads no Entra tenant (and `--version`) does not pay
  // for @azure/identity's hundreds of modules (docs/architecture.md, "Start-up").
  const { ClientCertificateCredential, ClientSecretCredential, WorkloadIdentityCredential } =
    await import("@azure/identity");
  switch (config.credential) {
    case "secret":
      return new ClientSecretCredential(
        config.tenant,
        config.clientId,
        await readSecret(config, env),
        options,
      );
    case "certificate":
      return new ClientCertificateCredential(
        config.tenant,
        config.clientId,
        { certificatePath: config.certificateFile! },
        options,
      );
    case "workloadIdentity": {
      const tokenFilePath = config.tokenFile ?? env["AZURE_FEDERATED_TOKEN_FILE"];
      if (tokenFilePath === undefined || tokenFilePath === "")
        throw new DirectoryError({
          message:
            'source.entra.credential is workloadIdentity but there is no service-account token: run the pod with the label azure.workload.identity/use: "true" and a ServiceAccount annotated with azure.workload.identity/client-id (the webhook sets AZURE_FEDERATED_TOKEN_FILE), or set source.entra.tokenFile (docs/entra.md)',
        });
      return new WorkloadIdentityCredential({
        tenantId: config.tenant,
        clientId: config.clientId,
        tokenFilePath,
        ...options,
      });
    }
  }
}

/** The AADSTS code in an identity-platform message, if any. */
function stsCode(message: string): string | undefined {
  return /AADSTS(\d+)/.exec(message)?.[1];
}

/** What a person does about each answer of the token endpoint we know. */
function fixFor(code: string | undefined, message: string, config: EntraConfig): string | undefined {
  const app = `the app registration ${config.clientId}`;
  switch (code) {
    case "90002":
      return `tenant '${config.tenant}' does not exist at ${config.authorityHost}: check source.entra.tenant (the directory id or a verified domain such as contoso.onmicrosoft.com) and authorityHost (a national cloud has its own)`;
    case "700016":
      return `${app} is not in tenant '${config.tenant}': check source.entra.clientId (the application id, not the object id) and the tenant`;
    case "7000215":
      return `the client secret is not a valid secret of ${app}: put the secret's Value (not its Secret ID) in ${config.secretFile ?? config.secretEnv}, or create a new one under Certificates & secrets`;
    case "7000222":
      return `the client secret of ${app} has expired: create a new one under Certificates & secrets and update ${config.secretFile ?? config.secretEnv}, or move to credential: workloadIdentity, which has no secret to expire`;
    case "700213":
    case "70021":
      return `no federated credential of ${app} matches this service-account token: its issuer must be the cluster's OIDC issuer and its subject system:serviceaccount:<namespace>:<serviceaccount> (docs/entra.md)`;
    case "700024":
      return "the service-account token has expired: the kubelet refreshes the projected token; check that the pod mounts it (azure.workload.identity/use) and the clock";
    case "700027":
    case "50027":
      return `the certificate in ${config.certificateFile ?? "certificateFile"} is not registered on ${app}: upload its public part under Certificates & secrets`;
    default:
      return undefined;
  }
}

const unknownTenant = (config: EntraConfig): string =>
  `the identity platform does not know tenant '${config.tenant}' at ${config.authorityHost}: check source.entra.tenant and authorityHost (docs/entra.md)`;

/**
 * MSAL says `endpoints_resolution_error` both when the tenant does not exist and when the identity
 * platform cannot be reached. Asking its discovery document once tells them apart: an answer of
 * 4xx is the tenant (exit 4); no answer, or a 5xx, is an outage (exit 5).
 */
async function discovery(
  config: EntraConfig,
  ca: string[] | undefined,
): Promise<"unknown-tenant" | "unreachable" | { other: string }> {
  const url = `${config.authorityHost.replace(/\/$/, "")}/${encodeURIComponent(config.tenant)}/v2.0/.well-known/openid-configuration`;
  try {
    const status = await platformStatus(url, { ca, timeoutMs: 15_000 });
    if (status >= 400 && status < 500) return "unknown-tenant";
    if (status >= 500 || status === 429) return "unreachable";
    return { other: `its discovery document answers ${status}` };
  } catch (err) {
    if (isOutage(err) || (err as Error).name === "TimeoutError") return "unreachable";
    const code = (err as { code?: string }).code ?? (err as Error).message;
    return { other: `its discovery document cannot be read (${code})` };
  }
}

function isOutage(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  const cause = (err as { cause?: { code?: unknown } }).cause?.code;
  const message = String((err as Error).message ?? "");
  return (
    (typeof code === "string" && RETRYABLE_NETWORK_CODES.has(code)) ||
    (typeof cause === "string" && RETRYABLE_NETWORK_CODES.has(cause)) ||
    /ECONNREFUSED|ETIMEDOUT|ECONNRESET|EAI_AGAIN|socket hang up|status code 5\d\d|temporarily_unavailable|network_error/.test(
      message,
    )
  );
}

/** A token for Graph, or an error a person can act on: exit 4 for setup, exit 5 for an outage. */
export async function graphToken(
  credential: TokenCredential,
  config: EntraConfig,
  ca: string[] | undefined,
): Promise<string> {
  try {
    const token = await credential.getToken(GRAPH_SCOPE);
    if (token === null) throw new Error("the identity platform gave no token");
    return token.token;
  } catch (err) {
    const message = String((err as Error).message ?? err);
    const code = stsCode(message);
    const fix = fixFor(code, message, config);
    const where = `getting a Graph token for ${config.clientId} from ${config.authorityHost}/${config.tenant}`;
    if (fix !== undefined)
      throw new DirectoryError({ message: `${where} failed${code ? ` (AADSTS${code})` : ""}: ${fix}` });
    const unreachable = new SourceUnavailableError({
      message: `${where} failed: the identity platform could not be reached (${message.split("\n")[0]}); nothing was sent, a later run may succeed`,
    });
    if (/endpoints_resolution_error|openid-configuration/i.test(message)) {
      const found = await discovery(config, ca);
      if (found === "unreachable") throw unreachable;
      if (found === "unknown-tenant")
        throw new DirectoryError({ message: `${where} failed: ${unknownTenant(config)}` });
      throw new DirectoryError({
        message: `${where} failed: ${found.other}; check source.entra.authorityHost (docs/entra.md)`,
      });
    }
    if (isOutage(err)) throw unreachable;
    throw new DirectoryError({ message: `${where} failed: ${message.split("\n")[0]} (docs/entra.md)` });
  }
}
