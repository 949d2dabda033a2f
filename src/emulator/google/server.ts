/**
 * A Google Workspace stand-in on a real socket (HTTPS when given a key and certificate), for
 * tests, benchmarks and rehearsals: one origin stands in for oauth2.googleapis.com (`/token`),
 * sts.googleapis.com (`/v1/token`), iamcredentials.googleapis.com (`:generateAccessToken`) and
 * admin.googleapis.com (`/admin/directory/v1/...`, `/admin/reports/v1/...`), so google-auth-library does its real token
 * exchanges against it (token.ts) and a reader its real paging (directory.ts). Who may read and
 * the quota: access.ts; faults on demand: faults.ts. Every request is logged. It stops by itself
 * after `idleMs` without a request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { listenStandIn } from "../stand-in-listen.js";
import { Access } from "./access.js";
import { GoogleDirectory, type ListReply } from "./directory.js";
import { AdminActivity, GoogleChanges } from "./reports.js";
import { answer, takeFault } from "./faults.js";
import { apiError, GoogleTokens, type TokenReply } from "./token.js";
import type { GoogleFault, GoogleStandInOptions } from "./types.js";

export type * from "./types.js";
export { GOOGLE_TOKEN_URL } from "./token.js";
export { SCOPE } from "./access.js";

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
  /** The Reports API's admin activity (reports.ts), and the changes that are reported in it. */
  activity: AdminActivity;
  changes: GoogleChanges;
  /** Directory API requests (not token requests). */
  readonly apiRequests: number;
  close(): Promise<void>;
}

const DIRECTORY = "/admin/directory/v1";
const REPORTS = "/admin/reports/v1";
const NOT_FOUND = () => apiError(404, "Not Found", "notFound", "NOT_FOUND");

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: ServerResponse, reply: TokenReply): void {
  res.writeHead(reply.status, { "Content-Type": "application/json; charset=UTF-8" });
  res.end(JSON.stringify(reply.body));
}

function jsonOf(text: string): { scope?: unknown } {
  try {
    return JSON.parse(text) as { scope?: unknown };
  } catch {
    return {};
  }
}

/** The token endpoints: the JWT-bearer grant, the STS exchange, an impersonation. */
async function post(req: IncomingMessage, url: URL, tokens: GoogleTokens): Promise<TokenReply> {
  const text = await readBody(req);
  if (url.pathname === "/token") return tokens.jwtBearer(new URLSearchParams(text));
  if (url.pathname === "/v1/token") return tokens.exchange(new URLSearchParams(text));
  const m = /^\/v1\/projects\/-\/serviceAccounts\/([^/:]+):generateAccessToken$/.exec(url.pathname);
  return m
    ? tokens.impersonate(decodeURIComponent(m[1]!), req.headers.authorization, jsonOf(text))
    : NOT_FOUND();
}

/** A Directory API GET, once the caller may read. */
function route(directory: GoogleDirectory, path: string, q: URLSearchParams): ListReply {
  if (path === "/users") return directory.listUsers(q);
  if (path === "/groups") return directory.listGroups(q);
  const user = /^\/users\/([^/]+)$/.exec(path);
  if (user) return directory.getUser(decodeURIComponent(user[1]!));
  const m = /^\/groups\/([^/]+)(\/members)?$/.exec(path);
  if (!m) return NOT_FOUND();
  const key = decodeURIComponent(m[1]!);
  return m[2] ? directory.listMembers(key, q) : directory.getGroup(key);
}

export async function startGoogleStandIn(options: GoogleStandInOptions): Promise<GoogleStandIn> {
  const directory = new GoogleDirectory(options);
  const activity = new AdminActivity({
    customerId: options.customerId,
    actor: `admin@${options.domain}`,
    lagMs: options.reportLagMs ?? 0,
    now: Date.now,
  });
  const tokens = new GoogleTokens(options.serviceAccounts, options.federation, options.tokenSeconds ?? 3600);
  const access = new Access(options, directory, tokens);
  const requests: GoogleRequestRecord[] = [];
  const faults: (GoogleFault & { left?: number })[] = options.faults ?? [];
  const state = { api: 0 };

  const handle = async (req: IncomingMessage, res: ServerResponse, rec: GoogleRequestRecord, url: URL) => {
    if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
    if (req.method === "POST") {
      const reply = await post(req, url, tokens);
      rec.status = reply.status;
      return send(res, reply);
    }
    const base = [DIRECTORY, REPORTS].find((b) => url.pathname.startsWith(`${b}/`));
    if (req.method !== "GET" || base === undefined) {
      rec.status = 404;
      return send(res, NOT_FOUND());
    }
    state.api += 1;
    const path = url.pathname.slice(base.length);
    const who = access.check(req, base === REPORTS ? `/activity${path.replace(/^\/activity/, "")}` : path);
    if ("principal" in who) rec.principal = who.principal;
    const answerOf = () =>
      base === REPORTS ? activity.list(path, url.searchParams) : route(directory, path, url.searchParams);
    const reply = "refused" in who ? who.refused : answerOf();
    const kind = reply.status === 200 || reply.status === 404 ? takeFault(faults, rec.url) : undefined;
    rec.status = answer({ res, reply, kind, directory, send, tokens });
  };
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const rec: GoogleRequestRecord = { method: req.method ?? "", url: url.pathname + url.search, status: 0 };
    requests.push(rec);
    void handle(req, res, rec, url);
  };

  const { url, close } = await listenStandIn(listener, options);
  return {
    url,
    directory,
    activity,
    changes: new GoogleChanges(directory, activity),
    tokens,
    requests,
    faults,
    get apiRequests() {
      return state.api;
    },
    close,
  };
}
