/**
 * The Microsoft identity platform's part of the stand-in, shaped like login.microsoftonline.com:
 * `GET /{tenant}/v2.0/.well-known/openid-configuration` (what MSAL reads before its first token)
 * and `POST /{tenant}/oauth2/v2.0/token` for the client-credentials grant with a client secret or
 * a client assertion (certificate or workload identity federation). Errors are the STS's
 * `{error, error_description: "AADSTS…", error_codes, timestamp, trace_id, correlation_id}`.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { AppRegistration, Directory } from "./directory.js";

export interface IssuedToken {
  clientId: string;
  roles: string[];
  expiresAt: number;
}

export interface LoginReply {
  status: number;
  body: unknown;
}

const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
export const GRAPH_SCOPE = "https://graph.microsoft.com/.default";

function stsError(status: number, error: string, code: number, text: string): LoginReply {
  const trace = randomUUID();
  const correlation = randomUUID();
  const timestamp = new Date()
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z");
  return {
    status,
    body: {
      error,
      error_description: `AADSTS${code}: ${text} Trace ID: ${trace} Correlation ID: ${correlation} Timestamp: ${timestamp}`,
      error_codes: [code],
      timestamp,
      trace_id: trace,
      correlation_id: correlation,
      error_uri: `https://login.microsoftonline.com/error?code=${code}`,
    },
  };
}

function unknownTenant(tenant: string): LoginReply {
  return stsError(
    400,
    "invalid_tenant",
    90002,
    `Tenant '${tenant}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud. Check with your subscription administrator, this may happen if there are no active subscriptions for the tenant.`,
  );
}

export function openIdConfiguration(directory: Directory, tenant: string, base: string): LoginReply {
  if (!directory.matchesTenant(tenant)) return unknownTenant(tenant);
  const id = directory.tenant.tenantId;
  return {
    status: 200,
    body: {
      token_endpoint: `${base}/${id}/oauth2/v2.0/token`,
      token_endpoint_auth_methods_supported: ["client_secret_post", "private_key_jwt", "client_secret_basic"],
      jwks_uri: `${base}/${id}/discovery/v2.0/keys`,
      response_modes_supported: ["query", "fragment", "form_post"],
      subject_types_supported: ["pairwise"],
      id_token_signing_alg_values_supported: ["RS256"],
      response_types_supported: ["code", "id_token", "code id_token", "id_token token"],
      scopes_supported: ["openid", "profile", "email", "offline_access"],
      issuer: `${base}/${id}/v2.0`,
      request_uri_parameter_supported: false,
      authorization_endpoint: `${base}/${id}/oauth2/v2.0/authorize`,
      device_authorization_endpoint: `${base}/${id}/oauth2/v2.0/devicecode`,
      end_session_endpoint: `${base}/${id}/oauth2/v2.0/logout`,
      claims_supported: ["sub", "iss", "aud", "exp", "iat", "oid", "tid", "preferred_username", "email"],
      tenant_region_scope: "EU",
      cloud_instance_name: "microsoftonline.com",
      cloud_graph_host_name: "graph.windows.net",
      msgraph_host: "graph.microsoft.com",
    },
  };
}

function jwtPayload(jwt: string): Record<string, unknown> | undefined {
  const part = jwt.split(".")[1];
  if (part === undefined) return undefined;
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Which credential the form presents, checked against the app registration. */
function authenticate(app: AppRegistration, form: URLSearchParams): LoginReply | undefined {
  const secret = form.get("client_secret");
  if (secret !== null) {
    if (app.secrets?.includes(secret)) return undefined;
    if (app.expiredSecrets?.includes(secret))
      return stsError(
        401,
        "invalid_client",
        7000222,
        `The provided client secret keys for app '${app.clientId}' are expired. Visit the Azure portal to create new keys for your app: https://aka.ms/NewClientSecret, or consider using certificate credentials for added security: https://aka.ms/certCreds.`,
      );
    return stsError(
      401,
      "invalid_client",
      7000215,
      `Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${app.clientId}'.`,
    );
  }
  const assertion = form.get("client_assertion");
  if (assertion === null || form.get("client_assertion_type") !== JWT_BEARER)
    return stsError(
      401,
      "invalid_client",
      7000218,
      "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.",
    );
  const claims = jwtPayload(assertion);
  if (claims === undefined)
    return stsError(401, "invalid_client", 50027, "JWT token is invalid or malformed.");
  if (typeof claims["exp"] === "number" && claims["exp"] * 1000 < Date.now())
    return stsError(400, "invalid_client", 700024, "Client assertion is not within its valid time range.");
  if (app.federated && claims["iss"] === app.federated.issuer) {
    if (claims["sub"] === app.federated.subject) return undefined;
    return stsError(
      400,
      "invalid_request",
      700213,
      `No matching federated identity record found for presented assertion subject '${String(claims["sub"])}'. Please check your federated identity credential Subject, Audience and Issuer against the presented assertion.`,
    );
  }
  if (app.certificate && claims["iss"] === app.clientId && claims["sub"] === app.clientId) return undefined;
  return stsError(
    401,
    "invalid_client",
    700027,
    "The certificate with identifier used to sign the client assertion is not registered on application.",
  );
}

export function issueToken(
  directory: Directory,
  tenant: string,
  form: URLSearchParams,
  tokens: Map<string, IssuedToken>,
): LoginReply {
  if (!directory.matchesTenant(tenant)) return unknownTenant(tenant);
  if (form.get("grant_type") !== "client_credentials")
    return stsError(400, "unsupported_grant_type", 70003, "The app requested an unsupported grant type.");
  const clientId = form.get("client_id") ?? "";
  const app = directory.tenant.apps.find((a) => a.clientId === clientId);
  if (app === undefined)
    return stsError(
      400,
      "unauthorized_client",
      700016,
      `Application with identifier '${clientId}' was not found in the directory '${directory.tenant.domain ?? directory.tenant.tenantId}'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant.`,
    );
  const refused = authenticate(app, form);
  if (refused) return refused;
  if (form.get("scope") !== GRAPH_SCOPE)
    return stsError(
      400,
      "invalid_scope",
      1002012,
      `The provided value for scope ${form.get("scope") ?? ""} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).`,
    );
  // Shaped like a JWT; only the stand-in reads it (clients treat access tokens as opaque).
  const claims = {
    aud: "https://graph.microsoft.com",
    tid: directory.tenant.tenantId,
    appid: app.clientId,
    roles: app.roles,
  };
  const token = [
    Buffer.from(JSON.stringify({ typ: "JWT", alg: "none" })).toString("base64url"),
    Buffer.from(JSON.stringify(claims)).toString("base64url"),
    randomBytes(24).toString("base64url"),
  ].join(".");
  tokens.set(token, { clientId: app.clientId, roles: app.roles, expiresAt: Date.now() + 3_599_000 });
  return {
    status: 200,
    body: { token_type: "Bearer", expires_in: 3599, ext_expires_in: 3599, access_token: token },
  };
}
