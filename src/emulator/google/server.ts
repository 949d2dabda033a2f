/**
 * A Google Workspace stand-in on a real socket (HTTPS when given a key and certificate), for
 * tests, benchmarks and rehearsals: one origin stands in for oauth2.googleapis.com (`/token`),
 * sts.googleapis.com (`/v1/token`), iamcredentials.googleapis.com (`:generateAccessToken`) and
 * admin.googleapis.com (`/admin/directory/v1/...`), so google-auth-library does its real token
 * exchanges against it (token.ts) and a reader its real paging (directory.ts). Who may read:
 * a delegated admin (`sub`) or a service account with an admin role, with the scope each method
 * needs; a per-principal quota answered as Google does (403 `userRateLimitExceeded`); faults on
 * demand (types.ts). Every request is logged. It stops by itself after `idleMs` without a request.
 */
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttps } from "node:https";
import type { AddressInfo } from "node:net";
import { GoogleDirectory, type ListReply } from "./directory.js";
import { apiError, GoogleTokens, type TokenReply } from "./token.js";
import type { GoogleFault, GoogleFaultKind, GoogleStandInOptions } from "./types.js";

export type * from "./types.js";
export { GOOGLE_TOKEN_URL } from "./token.js";

export const SCOPE = {
  user: "https://www.googleapis.com/auth/admin.directory.user.readonly",
  group: "https://www.googleapis.com/auth/admin.directory.group.readonly",
  member: "https://www.googleapis.com/auth/admin.directory.group.member.readonly",
};

export interface GoogleRequestRecord {
  method: string;
  /** Path and query. */
  url: string;
  status: number;
  principal?: string;
}

export interface GoogleStandIn {
  url: string;
  directory: GoogleDirectory;
  tokens: GoogleTokens;
  requests: GoogleRequestRecord[];
  /** Faults still to fire; push more between runs. */
  faults: (GoogleFault & { left?: number })[];
  /** Directory API requests (not token requests). */
  readonly apiRequests: number;
  close(): Promise<void>;
}

const DIRECTORY = "/admin/directory/v1";

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startGoogleStandIn(options: GoogleStandInOptions): Promise<GoogleStandIn> {
  const directory = new GoogleDirectory(options);
  const tokens = new GoogleTokens(options.serviceAccounts, options.federation, options.tokenSeconds ?? 3600);
  const requests: GoogleRequestRecord[] = [];
  const faults: (GoogleFault & { left?: number })[] = options.faults ?? [];
  const quota = new Map<string, { start: number; used: number }>();
  const state: { idle?: NodeJS.Timeout; api: number } = { api: 0 };

  const takeFault = (self: string): GoogleFaultKind | undefined => {
    const f = faults.find((x) => (x.left ?? x.times ?? Infinity) > 0 && x.match.test(self));
    if (!f) return undefined;
    f.left = (f.left ?? f.times ?? Infinity) - 1;
    return f.kind;
  };

  const admin = (principal: string, serviceAccount: string | undefined): boolean => {
    const user = [...directory.users.values()].find((u) => u.primaryEmail === principal);
    if (user) return user.isAdmin === true && !user.suspended;
    const account = options.serviceAccounts.find((a) => a.clientEmail === (serviceAccount ?? principal));
    return principal === account?.clientEmail && account.adminRole === true;
  };

  const overQuota = (principal: string): boolean => {
    if (!options.quota) return false;
    const now = Date.now();
    let w = quota.get(principal);
    if (!w || now - w.start >= options.quota.windowMs) quota.set(principal, (w = { start: now, used: 0 }));
    w.used += 1;
    return w.used > options.quota.limit;
  };

  const api = (req: IncomingMessage, url: URL, rec: GoogleRequestRecord): ListReply => {
    const grant = tokens.check(req.headers.authorization);
    if (!grant)
      return apiError(401, "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.", "authError", "UNAUTHENTICATED");
    rec.principal = grant.principal;
    const path = url.pathname.slice(DIRECTORY.length);
    const q = url.searchParams;
    const needs = path === "/users" ? [SCOPE.user] : /\/members$/.test(path) ? [SCOPE.member, SCOPE.group] : [SCOPE.group];
    if (!needs.some((s) => grant.scopes.has(s)))
      return apiError(403, "Request had insufficient authentication scopes.", "insufficientPermissions", "PERMISSION_DENIED");
    if (!admin(grant.principal, grant.serviceAccount))
      return apiError(403, "Not Authorized to access this resource/api", "forbidden", "PERMISSION_DENIED");
    if (overQuota(grant.principal))
      return apiError(403, "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute per user' of service 'admin.googleapis.com'.", "userRateLimitExceeded", "PERMISSION_DENIED");
    if (path === "/users") return directory.listUsers(q);
    if (path === "/groups") return directory.listGroups(q);
    const m = /^\/groups\/([^/]+)(\/members)?$/.exec(path);
    if (!m) return apiError(404, "Not Found", "notFound", "NOT_FOUND");
    const key = decodeURIComponent(m[1]!);
    return m[2] ? directory.listMembers(key, q) : directory.getGroup(key);
  };

  const send = (res: ServerResponse, reply: TokenReply): void => {
    res.writeHead(reply.status, { "Content-Type": "application/json; charset=UTF-8" });
    res.end(JSON.stringify(reply.body));
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    state.idle?.refresh();
    const url = new URL(req.url ?? "/", "http://stand-in");
    const rec: GoogleRequestRecord = { method: req.method ?? "", url: url.pathname + url.search, status: 0 };
    requests.push(rec);
    void (async () => {
      if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
      if (req.method === "POST") {
        const text = await readBody(req);
        const impersonate = /^\/v1\/projects\/-\/serviceAccounts\/([^/:]+):generateAccessToken$/.exec(url.pathname);
        const reply =
          url.pathname === "/token"
            ? tokens.jwtBearer(new URLSearchParams(text))
            : url.pathname === "/v1/token"
              ? tokens.exchange(new URLSearchParams(text))
              : impersonate
                ? tokens.impersonate(decodeURIComponent(impersonate[1]!), req.headers.authorization, safeJson(text))
                : apiError(404, "Not Found", "notFound", "NOT_FOUND");
        rec.status = reply.status;
        return send(res, reply);
      }
      if (req.method !== "GET" || !url.pathname.startsWith(`${DIRECTORY}/`)) {
        rec.status = 404;
        return send(res, apiError(404, "Not Found", "notFound", "NOT_FOUND"));
      }
      state.api += 1;
      const reply = api(req, url, rec);
      const kind = reply.status === 200 || reply.status === 404 ? takeFault(rec.url) : undefined;
      rec.status = answer(res, reply, kind, directory, send);
    })();
  };

  const server: Server = options.tls
    ? createHttps({ ...options.tls, noDelay: true }, listener)
    : createHttp({ noDelay: true }, listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `${options.tls ? "https" : "http"}://127.0.0.1:${port}`;
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      clearTimeout(state.idle);
      server.closeAllConnections();
      server.close(() => resolve());
    });
  state.idle = setTimeout(() => void close(), options.idleMs ?? 600_000);
  state.idle.unref();
  return {
    url,
    directory,
    tokens,
    requests,
    faults,
    get apiRequests() {
      return state.api;
    },
    close,
  };
}

function safeJson(text: string): { scope?: unknown } {
  try {
    return JSON.parse(text) as { scope?: unknown };
  } catch {
    return {};
  }
}

/** The reply, or the fault asked for instead; the status logged. */
function answer(
  res: ServerResponse,
  reply: ListReply,
  kind: GoogleFaultKind | undefined,
  directory: GoogleDirectory,
  send: (res: ServerResponse, r: TokenReply) => void,
): number {
  switch (kind) {
    case undefined:
      send(res, reply);
      return reply.status;
    case "quota":
      send(res, apiError(403, "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute per user' of service 'admin.googleapis.com'.", "userRateLimitExceeded", "PERMISSION_DENIED"));
      return 403;
    case "rate":
      send(res, apiError(429, "Rate Limit Exceeded", "rateLimitExceeded", "RESOURCE_EXHAUSTED"));
      return 429;
    case "expired":
      send(res, apiError(401, "Request had invalid authentication credentials.", "authError", "UNAUTHENTICATED"));
      return 401;
    case "reset":
      res.socket?.destroy();
      return 0;
    case "html":
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("<html><body>Service temporarily unavailable</body></html>");
      return 200;
    case "truncated": {
      const text = JSON.stringify(reply.body);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
      return 200;
    }
    case "repeat-token": {
      const list = reply.list;
      const again = list?.token ?? (list ? directory.token(list.key, 0) : undefined);
      send(res, { status: 200, body: { ...(reply.body as object), ...(again ? { nextPageToken: again } : {}) } });
      return 200;
    }
    case "empty": {
      const { nextPageToken: _n, members: _m, users: _u, groups: _g, ...rest } = reply.body as Record<string, unknown>;
      send(res, { status: 200, body: rest });
      return 200;
    }
    default:
      send(res, apiError(kind, kind === 503 ? "The service is currently unavailable." : "Internal error encountered.", "backendError", kind === 503 ? "UNAVAILABLE" : "INTERNAL"));
      return kind;
  }
}
