/**
 * Okta counts its rate limit per family of endpoints ("Management rate limits",
 * developer.okta.com/docs/reference/rl-global-mgmt): each family has its own window, its own
 * limit and its own reset, and its answers' `X-Rate-Limit-*` headers tell that family's count
 * only. The pacer (pacer.ts) keeps one window per family, and the Okta stand-in
 * (src/emulator/okta/quota.ts) counts by the same families, so both name them alike:
 *
 * - `/api/v1/groups`: list or search groups (and a group's other sub-resources);
 * - `/api/v1/groups/{id}`: one group by id;
 * - `/api/v1/groups/{id}/users`: a group's members;
 * - `/api/v1/users`: list or search users;
 * - `/api/v1/users/{id}`: one user by id or login;
 * - `/api/v1/apps`, `/api/v1/apps/{id}`, `/api/v1/logs`;
 * - `/api/v1`: every other action.
 */
export type OktaRateFamily = string;

/** The family of a request path (query and trailing slash ignored). */
export function oktaRateFamily(pathOrUrl: string): OktaRateFamily {
  const path = pathOrUrl
    .replace(/^[a-z]+:\/\/[^/]+/i, "")
    .split(/[?#]/)[0]!
    .replace(/\/+$/, "");
  const m = /^\/api\/v1\/(groups|users|apps|logs)(?:\/([^/]+)(?:\/(.+))?)?$/.exec(path);
  if (!m) return "/api/v1";
  const [, kind, id, rest] = m;
  if (kind === "logs") return "/api/v1/logs";
  if (id === undefined) return `/api/v1/${kind}`;
  if (rest === undefined) return `/api/v1/${kind}/{id}`;
  if (kind === "groups") return rest === "users" ? "/api/v1/groups/{id}/users" : "/api/v1/groups";
  return kind === "apps" ? "/api/v1/apps" : "/api/v1";
}
