/**
 * The org authorization server's token endpoint (`POST /oauth2/v1/token`) for a service app with
 * `private_key_jwt`: the client credentials grant, the client assertion verified with `jose`
 * against the app's registered public key (signature, `aud` = this endpoint's URL,
 * `iss` = `sub` = the client id, `exp` no more than an hour ahead, a `jti` never seen before), and
 * an opaque bearer token with the scopes asked for, each of them granted to the app.
 */
import { randomBytes } from "node:crypto";
import type { JWK } from "jose";
import type { ServiceApp } from "./types.js";

export const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

export interface IssuedToken {
  scopes: Set<string>;
  expiresAt: number;
}

export interface TokenReply {
  status: number;
  body: Record<string, unknown>;
}

const oauthError = (status: number, error: string, description: string): TokenReply => ({
  status,
  body: { error, error_description: description },
});

export class TokenIssuer {
  readonly tokens = new Map<string, IssuedToken>();
  private readonly seenJti = new Set<string>();
  /** How many tokens were issued (a run should need one). */
  issued = 0;

  constructor(
    private readonly apps: ServiceApp[],
    private readonly lifetimeSeconds: number,
  ) {}

  async exchange(form: URLSearchParams, endpoint: string): Promise<TokenReply> {
    if (form.get("grant_type") !== "client_credentials")
      return oauthError(
        400,
        "unsupported_grant_type",
        "The authorization grant type is not supported by the authorization server. Configured grant types: [client_credentials].",
      );
    const assertion = form.get("client_assertion");
    if (form.get("client_assertion_type") !== ASSERTION_TYPE || !assertion)
      return oauthError(
        401,
        "invalid_client",
        "Client authentication failed: a client_assertion of type jwt-bearer is required.",
      );
    const verified = await this.verify(assertion, endpoint);
    if ("status" in verified) return verified;
    const asked = (form.get("scope") ?? "").split(" ").filter(Boolean);
    if (asked.length === 0)
      return oauthError(
        400,
        "invalid_scope",
        "The authorization server resource does not have any configured default scopes, 'scope' must be provided.",
      );
    const refused = asked.filter((s) => !verified.scopes.includes(s));
    if (refused.length > 0)
      return oauthError(
        400,
        "invalid_scope",
        `The following scopes are not allowed: ${refused.join(", ")}. Grant them to the app.`,
      );
    const token = randomBytes(24).toString("base64url");
    this.tokens.set(token, { scopes: new Set(asked), expiresAt: Date.now() + this.lifetimeSeconds * 1000 });
    this.issued++;
    return {
      status: 200,
      body: {
        token_type: "Bearer",
        expires_in: this.lifetimeSeconds,
        access_token: token,
        scope: asked.join(" "),
      },
    };
  }

  private async verify(assertion: string, endpoint: string): Promise<ServiceApp | TokenReply> {
    const { decodeJwt, importJWK, jwtVerify } = await import("jose");
    let clientId: unknown;
    try {
      clientId = decodeJwt(assertion).iss;
    } catch {
      return oauthError(401, "invalid_client", "The client_assertion is not a JWT.");
    }
    const app = this.apps.find((a) => a.clientId === clientId);
    if (!app)
      return oauthError(
        401,
        "invalid_client",
        "The client_assertion token has an invalid issuer: no such client.",
      );
    try {
      const key = await importJWK(app.publicJwk as JWK, (app.publicJwk.alg as string | undefined) ?? "RS256");
      const { payload } = await jwtVerify(assertion, key, {
        audience: endpoint,
        issuer: app.clientId,
        subject: app.clientId,
        requiredClaims: ["exp", "jti"],
      });
      if (payload.exp! * 1000 > Date.now() + 3600_000)
        return oauthError(
          401,
          "invalid_client",
          "The client_assertion token has an expiration too far in the future.",
        );
      if (this.seenJti.has(payload.jti!))
        return oauthError(401, "invalid_client", "The client_assertion token has already been used (jti).");
      this.seenJti.add(payload.jti!);
      return app;
    } catch (err) {
      return oauthError(401, "invalid_client", `The client_assertion is invalid: ${(err as Error).message}`);
    }
  }

  /** The scopes of a live token, or undefined for an unknown, expired or revoked one. */
  scopesOf(token: string): Set<string> | undefined {
    const t = this.tokens.get(token);
    return t && t.expiresAt > Date.now() ? t.scopes : undefined;
  }

  revokeAll(): void {
    this.tokens.clear();
  }
}
