/**
 * Who may read the stand-in's Directory API, as Google decides it: a valid token (else 401), the
 * scope the method needs (else 403 insufficient scopes), an admin behind the token (a delegated
 * admin, or a service account holding an admin role; else 403 "Not Authorized to access this
 * resource/api"), and the per-principal quota (else 403 `userRateLimitExceeded`).
 */
import type { IncomingMessage } from "node:http";
import type { GoogleDirectory } from "./directory.js";
import { apiError, type GoogleTokens, type TokenReply } from "./token.js";
import type { GoogleStandInOptions, GoogleUser } from "./types.js";

export const SCOPE = {
  user: "https://www.googleapis.com/auth/admin.directory.user.readonly",
  group: "https://www.googleapis.com/auth/admin.directory.group.readonly",
  member: "https://www.googleapis.com/auth/admin.directory.group.member.readonly",
  reports: "https://www.googleapis.com/auth/admin.reports.audit.readonly",
};

export const QUOTA_EXCEEDED = () =>
  apiError(
    403,
    "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute per user' of service 'admin.googleapis.com'.",
    "userRateLimitExceeded",
    "PERMISSION_DENIED",
  );

export class Access {
  private readonly quota = new Map<string, { start: number; used: number }>();
  /** Users by primary email, built at the first request (the store's users do not change). */
  private byEmail: Map<string, GoogleUser> | undefined;

  constructor(
    private readonly options: GoogleStandInOptions,
    private readonly directory: GoogleDirectory,
    private readonly tokens: GoogleTokens,
  ) {}

  private admin(principal: string, serviceAccount: string | undefined): boolean {
    this.byEmail ??= new Map([...this.directory.users.values()].map((u) => [u.primaryEmail, u]));
    const user = this.byEmail.get(principal);
    if (user) return user.isAdmin === true && !user.suspended;
    const account = this.options.serviceAccounts.find((a) => a.clientEmail === (serviceAccount ?? principal));
    return principal === account?.clientEmail && account.adminRole === true;
  }

  private overQuota(principal: string): boolean {
    const q = this.options.quota;
    if (!q) return false;
    const now = Date.now();
    let w = this.quota.get(principal);
    if (!w || now - w.start >= q.windowMs) this.quota.set(principal, (w = { start: now, used: 0 }));
    w.used += 1;
    return w.used > q.limit;
  }

  /** The refusal for this request (path below /admin/directory/v1 or /admin/reports/v1), or the principal it reads as. */
  check(req: IncomingMessage, path: string): { refused: TokenReply } | { principal: string } {
    const grant = this.tokens.check(req.headers.authorization);
    if (!grant)
      return {
        refused: apiError(
          401,
          "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
          "authError",
          "UNAUTHENTICATED",
        ),
      };
    const needs = path.startsWith("/activity/")
      ? [SCOPE.reports]
      : path === "/users" || path.startsWith("/users/")
        ? [SCOPE.user]
        : /\/members$/.test(path)
          ? [SCOPE.member, SCOPE.group]
          : [SCOPE.group];
    if (!needs.some((s) => grant.scopes.has(s)))
      return {
        refused: apiError(
          403,
          "Request had insufficient authentication scopes.",
          "insufficientPermissions",
          "PERMISSION_DENIED",
        ),
      };
    if (!this.admin(grant.principal, grant.serviceAccount))
      return {
        refused: apiError(
          403,
          "Not Authorized to access this resource/api",
          "forbidden",
          "PERMISSION_DENIED",
        ),
      };
    if (this.overQuota(grant.principal)) return { refused: QUOTA_EXCEEDED() };
    return { principal: grant.principal };
  }
}
