/**
 * How usersync proves itself to Okta. As Okta recommends: an OAuth 2.0 service app with
 * `private_key_jwt`: a client assertion signed with the app's private key (`jose`), exchanged at
 * the org authorization server (`/oauth2/v1/token`) for a bearer token with the read scopes, kept
 * until shortly before it expires. Accepted with a warning: an SSWS API token, which Okta
 * discourages (it acts as the admin who made it and never expires unless unused).
 * The key, the assertion and the tokens are never logged; errors name the setting to fix.
 */
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { JWK } from "jose";
import { httpDestination } from "../../../outputs/http.js";
import type { OktaConfig } from "./schema.js";
import { DirectoryError, SourceUnavailableError } from "../../../errors.js";
import { isDirectoryOutage } from "../ldap/client.js";

export const OKTA_SCOPES = ["okta.users.read", "okta.groups.read"];
/** A changes-only run reads the System Log too (okta/changes.ts). */
export const OKTA_LOG_SCOPE = "okta.logs.read";

export interface OktaAuthorizer {
  kind: "service app" | "API token";
  /** The Authorization header's value. */
  authorization(): Promise<string>;
  /** Okta refused `refused` mid-read: mint a fresh token (a service app only; an API token cannot). */
  renew?(refused: string): Promise<void>;
  /** A warning to log once (SSWS). */
  warning?: string;
}

type Credentials = OktaConfig["credentials"];

async function secret(o: {
  file?: string | undefined;
  env: string;
  envs: NodeJS.ProcessEnv;
  what: string;
  key: string;
}) {
  if (o.file !== undefined) {
    try {
      return (await readFile(o.file, "utf8")).trim();
    } catch (err) {
      throw new DirectoryError({
        message: `cannot read the Okta ${o.what} file ${o.file} (${(err as NodeJS.ErrnoException).code ?? "error"}): check source.okta.credentials.${o.key}`,
      });
    }
  }
  const value = o.envs[o.env]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

async function signingKey(text: string, c: Credentials) {
  // jose is loaded when an Okta service app signs in, not at start (docs/architecture.md, "Start-up").
  const { importJWK, importPKCS8 } = await import("jose");
  try {
    if (text.startsWith("{")) return await importJWK(JSON.parse(text) as JWK, c.algorithm);
    if (text.includes("BEGIN RSA PRIVATE KEY") || text.includes("BEGIN EC PRIVATE KEY"))
      throw new Error(
        "the key is PKCS#1/SEC1: convert it with `openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem`",
      );
    return await importPKCS8(text, c.algorithm);
  } catch (err) {
    throw new DirectoryError({
      message: `the Okta service app's private key cannot be used for ${c.algorithm}: ${(err as Error).message.split("\n")[0]} (give a PKCS#8 PEM or a private JWK; source.okta.credentials.algorithm)`,
    });
  }
}

export async function oktaAuthorizer(o: {
  config: OktaConfig;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** The scopes a service app's token asks for (default OKTA_SCOPES). */
  scopes?: readonly string[];
}): Promise<OktaAuthorizer> {
  const c = o.config.credentials;
  if (c.clientId !== undefined) {
    const pem = await secret({
      file: c.privateKeyFile,
      env: c.privateKeyEnv,
      envs: o.env,
      what: "private key",
      key: "privateKeyFile",
    });
    if (pem === undefined)
      throw new DirectoryError({
        message: `no private key for the Okta service app ${c.clientId}: set the environment variable ${c.privateKeyEnv} or source.okta.credentials.privateKeyFile (docs/okta.md)`,
      });
    return serviceApp({
      orgUrl: o.config.orgUrl,
      credentials: c,
      key: await signingKey(pem, c),
      timeoutMs: o.timeoutMs,
      scopes: o.scopes ?? OKTA_SCOPES,
    });
  }
  const token = await secret({
    file: c.apiTokenFile,
    env: c.apiTokenEnv,
    envs: o.env,
    what: "API token",
    key: "apiTokenFile",
  });
  if (token === undefined)
    throw new DirectoryError({
      message: `no Okta credentials: set source.okta.credentials.clientId and a private key (a service app, as Okta recommends), or an API token in ${c.apiTokenEnv} (docs/okta.md)`,
    });
  return {
    kind: "API token",
    authorization: () => Promise.resolve(`SSWS ${token}`),
    warning:
      "source.okta reads with an SSWS API token, which Okta discourages (it acts as the admin who made it, with all of their rights): use a service app with private_key_jwt and the scopes okta.users.read and okta.groups.read (docs/okta.md)",
  };
}

function serviceApp(o: {
  orgUrl: string;
  credentials: Credentials;
  key: Awaited<ReturnType<typeof signingKey>>;
  timeoutMs: number;
  scopes: readonly string[];
}): OktaAuthorizer {
  const endpoint = `${o.orgUrl}/oauth2/v1/token`;
  let cached: { value: string; until: number } | undefined;
  let pending: Promise<string> | undefined;
  const mint = async (): Promise<string> => {
    const { SignJWT } = await import("jose");
    const assertion = await new SignJWT({})
      .setProtectedHeader({
        alg: o.credentials.algorithm,
        ...(o.credentials.keyId ? { kid: o.credentials.keyId } : {}),
      })
      .setIssuer(o.credentials.clientId!)
      .setSubject(o.credentials.clientId!)
      .setAudience(endpoint)
      .setIssuedAt()
      .setExpirationTime("5m")
      .setJti(randomUUID())
      .sign(o.key);
    const answer = await exchange(endpoint, assertion, o.timeoutMs, o.credentials.clientId!, o.scopes);
    cached = {
      value: `Bearer ${answer.token}`,
      until: Date.now() + Math.max(0, answer.expiresIn - 60) * 1000,
    };
    return cached.value;
  };
  const authorization = (): Promise<string> => {
    if (cached && cached.until > Date.now()) return Promise.resolve(cached.value);
    pending ??= mint().finally(() => (pending = undefined));
    return pending;
  };
  return {
    kind: "service app",
    authorization,
    renew: async (refused) => {
      // Callers refused the same token share one new one; a token minted since is already fresh.
      if (cached?.value === refused) cached = undefined;
      await authorization();
    },
  };
}

async function exchange(
  endpoint: string,
  assertion: string,
  timeoutMs: number,
  clientId: string,
  scopes: readonly string[],
) {
  const form = new URLSearchParams({
    grant_type: "client_credentials",
    scope: scopes.join(" "),
    client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
    client_assertion: assertion,
  });
  let status: number;
  let body: Record<string, unknown>;
  try {
    const res = await httpDestination().send(endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form.toString(),
      timeoutMs,
    });
    status = res.status;
    const text = await res.body.text();
    body = (() => {
      try {
        return JSON.parse(text) as Record<string, unknown>;
      } catch {
        return { error_description: `not JSON: ${text.slice(0, 80).replace(/\s+/g, " ")}` };
      }
    })();
  } catch (err) {
    throw tokenNetworkError(err, endpoint);
  }
  if (status === 200 && typeof body.access_token === "string")
    return { token: body.access_token, expiresIn: Number(body.expires_in ?? 3600) };
  throw tokenRefused(status, body, { endpoint, clientId, scopes });
}

function tokenNetworkError(err: unknown, endpoint: string): Error {
  const code = (err as { code?: string }).code ?? "error";
  const what = `POST ${endpoint} failed (${code}): ${(err as Error).message}`;
  return isDirectoryOutage(err)
    ? new SourceUnavailableError({
        message: `${what}; Okta could not be reached now, nothing was sent: run again later`,
      })
    : new DirectoryError({ message: `${what}: check source.okta.orgUrl (https://<your-org>.okta.com)` });
}

function tokenRefused(
  status: number,
  body: Record<string, unknown>,
  o: { endpoint: string; clientId: string; scopes: readonly string[] },
): Error {
  const said = `${String(body.error ?? status)}: ${String(body.error_description ?? body.errorSummary ?? "")}`;
  const fix =
    body.error === "invalid_scope"
      ? `grant the scopes ${o.scopes.join(", ")} to the app (Okta API Scopes tab)${o.scopes.includes(OKTA_LOG_SCOPE) ? `; ${OKTA_LOG_SCOPE} is for source.changes.mode (docs/okta.md)` : ""}`
      : body.error === "invalid_client"
        ? `check source.okta.credentials.clientId (${o.clientId}), keyId and that the app's public key matches the private key`
        : status === 404
          ? "is source.okta.orgUrl your Okta org's URL (https://<your-org>.okta.com)?"
          : "check the service app in the Okta Admin Console";
  const message = `Okta refused a token for the service app (POST ${o.endpoint} answered ${status}, ${said}): ${fix} (docs/okta.md)`;
  return status >= 500 || status === 429
    ? new SourceUnavailableError({ message })
    : new DirectoryError({ message });
}
