/**
 * The stand-in's token endpoints, as google-auth-library uses them:
 *
 * - `POST /token` (oauth2.googleapis.com/token): the JWT-bearer grant
 *   (`urn:ietf:params:oauth:grant-type:jwt-bearer`) of a service-account key; the assertion's
 *   RS256 signature is checked with the key's public half, `aud` must be Google's token URL, and
 *   a `sub` (domain-wide delegation) needs the client authorised for every scope asked, else
 *   `unauthorized_client` as Google answers.
 * - `POST /v1/token` (sts.googleapis.com): the token exchange of workload identity federation
 *   (`urn:ietf:params:oauth:grant-type:token-exchange`) for a Kubernetes service-account token
 *   whose `sub` the pool accepts (its signature is not checked: the stand-in has no cluster).
 * - `POST /v1/projects/-/serviceAccounts/{email}:generateAccessToken` (iamcredentials): the
 *   federated principal impersonates a service account it was allowed to.
 *
 * Tokens are random, kept with their principal, scopes and end; `expireAll` ends them early.
 */
import { createPublicKey, randomBytes, verify } from "node:crypto";
import type { StandInFederation, StandInServiceAccount } from "./types.js";

export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";

export interface IssuedToken {
  /** Who acts: the delegated admin's email, or a service account, or `principal://…` (federated). */
  principal: string;
  /** The service account behind it (absent for a bare federated token). */
  serviceAccount?: string;
  scopes: Set<string>;
  until: number;
}

export interface TokenReply {
  status: number;
  body: unknown;
}

const oauthError = (status: number, error: string, description: string): TokenReply => ({
  status,
  body: { error, error_description: description },
});

function decodeJwt(
  jwt: string,
): { header: Record<string, unknown>; claims: Record<string, unknown> } | undefined {
  const parts = jwt.split(".");
  if (parts.length !== 3) return undefined;
  try {
    const json = (p: string) =>
      JSON.parse(Buffer.from(p, "base64url").toString("utf8")) as Record<string, unknown>;
    return { header: json(parts[0]!), claims: json(parts[1]!) };
  } catch {
    return undefined;
  }
}

export class GoogleTokens {
  private readonly issued = new Map<string, IssuedToken>();
  /** Token requests by grant, for tests. */
  readonly grants: string[] = [];

  constructor(
    private readonly accounts: StandInServiceAccount[],
    private readonly federation: StandInFederation | undefined,
    private readonly seconds: number,
  ) {}

  private issue(t: Omit<IssuedToken, "until">): { token: string; expiresIn: number } {
    const token = `ya29.stand-in-${randomBytes(18).toString("base64url")}`;
    this.issued.set(token, { ...t, until: Date.now() + this.seconds * 1000 });
    return { token, expiresIn: this.seconds };
  }

  /** The token's grant, or undefined when unknown or expired. */
  check(authorization: string | undefined): IssuedToken | undefined {
    const m = /^Bearer (\S+)$/.exec(authorization ?? "");
    const t = m ? this.issued.get(m[1]!) : undefined;
    return t && t.until > Date.now() ? t : undefined;
  }

  /** Every token issued so far stops working (a revoked key, an hour gone by). */
  expireAll(): void {
    for (const t of this.issued.values()) t.until = 0;
  }

  /** `POST /token`. */
  jwtBearer(form: URLSearchParams): TokenReply {
    this.grants.push(form.get("grant_type") ?? "");
    if (form.get("grant_type") !== JWT_BEARER)
      return oauthError(
        400,
        "unsupported_grant_type",
        "Invalid grant_type: " + (form.get("grant_type") ?? ""),
      );
    const assertion = form.get("assertion") ?? "";
    const jwt = decodeJwt(assertion);
    if (!jwt) return oauthError(400, "invalid_grant", "Invalid JWT: not a JWT");
    const { claims } = jwt;
    const account = this.accounts.find((a) => a.clientEmail === claims.iss);
    if (!account) return oauthError(400, "invalid_grant", "Invalid JWT Signature.");
    const [h, p, s] = assertion.split(".");
    const signed = verify(
      "RSA-SHA256",
      Buffer.from(`${h}.${p}`),
      createPublicKey(account.publicKeyPem),
      Buffer.from(s!, "base64url"),
    );
    if (!signed) return oauthError(400, "invalid_grant", "Invalid JWT Signature.");
    if (claims.aud !== GOOGLE_TOKEN_URL)
      return oauthError(
        400,
        "invalid_grant",
        `Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.`,
      );
    const now = Date.now() / 1000;
    if (typeof claims.exp !== "number" || claims.exp < now - 60)
      return oauthError(
        400,
        "invalid_grant",
        "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.",
      );
    const scopes = String(claims.scope ?? "")
      .split(/\s+/)
      .filter(Boolean);
    if (scopes.length === 0)
      return oauthError(400, "invalid_scope", "Invalid OAuth scope or ID token audience provided.");
    const sub = typeof claims.sub === "string" && claims.sub !== "" ? claims.sub : undefined;
    if (sub !== undefined) {
      const granted = new Set(account.delegatedScopes ?? []);
      if (!scopes.every((sc) => granted.has(sc)))
        return oauthError(
          401,
          "unauthorized_client",
          "Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.",
        );
    }
    const t = this.issue({
      principal: sub ?? account.clientEmail,
      serviceAccount: account.clientEmail,
      scopes: new Set(scopes),
    });
    return { status: 200, body: { access_token: t.token, expires_in: t.expiresIn, token_type: "Bearer" } };
  }

  /** `POST /v1/token` (STS). */
  exchange(form: URLSearchParams): TokenReply {
    this.grants.push(form.get("grant_type") ?? "");
    const f = this.federation;
    if (form.get("grant_type") !== TOKEN_EXCHANGE)
      return oauthError(400, "unsupported_grant_type", "Unsupported grant_type.");
    if (!f || form.get("audience") !== f.audience)
      return oauthError(
        400,
        "invalid_target",
        'The target service indicated by the "audience" parameters is invalid. This might either be because the pool or provider is disabled or deleted or because it doesn\'t exist.',
      );
    const jwt = decodeJwt(form.get("subject_token") ?? "");
    if (!jwt) return oauthError(400, "invalid_request", 'Invalid value for "subject_token".');
    const sub = String(jwt.claims.sub ?? "");
    if (typeof jwt.claims.exp === "number" && jwt.claims.exp < Date.now() / 1000)
      return oauthError(400, "invalid_grant", "The access token has expired.");
    if (!f.subjects.includes(sub))
      return oauthError(
        400,
        "invalid_grant",
        `The given credential is rejected by the attribute condition (subject ${sub}).`,
      );
    const scopes = (form.get("scope") ?? "").split(/\s+/).filter(Boolean);
    const t = this.issue({
      principal: `principal://${f.audience.slice(2)}/subject/${sub}`,
      scopes: new Set(scopes),
    });
    return {
      status: 200,
      body: {
        access_token: t.token,
        issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
        token_type: "Bearer",
        expires_in: t.expiresIn,
      },
    };
  }

  /** `POST /v1/projects/-/serviceAccounts/{email}:generateAccessToken`. */
  impersonate(email: string, authorization: string | undefined, body: { scope?: unknown }): TokenReply {
    this.grants.push("generateAccessToken");
    const caller = this.check(authorization);
    if (!caller)
      return apiError(401, "Request had invalid authentication credentials.", "authError", "UNAUTHENTICATED");
    const account = this.accounts.find((a) => a.clientEmail === email);
    if (
      !account ||
      !this.federation?.impersonate.includes(email) ||
      !caller.principal.startsWith("principal://")
    )
      return apiError(
        403,
        "Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist).",
        "forbidden",
        "PERMISSION_DENIED",
      );
    const scopes = Array.isArray(body.scope) ? body.scope.map(String) : [];
    const t = this.issue({ principal: email, serviceAccount: email, scopes: new Set(scopes) });
    return {
      status: 200,
      body: { accessToken: t.token, expireTime: new Date(Date.now() + t.expiresIn * 1000).toISOString() },
    };
  }
}

/** Google's JSON error body (discovery `error` shape, as the Directory API sends it). */
export function apiError(code: number, message: string, reason: string, status: string): TokenReply {
  return {
    status: code,
    body: { error: { code, message, errors: [{ message, domain: "global", reason }], status } },
  };
}
