/**
 * A local Okta stand-in over a real socket (127.0.0.1, port 0 by default), for tests, benchmarks
 * and rehearsals: the org authorization server's token endpoint (token.ts), the groups and
 * members listings (routes.ts) with Okta's cursor paging, the shared rate limit per family of
 * endpoints (quota.ts) with its headers and 429, Okta's concurrent limit, the `Date` header on
 * the stand-in's own clock, Okta's error bodies (E0000011 invalid token, E0000006 no permission, E0000007 not found,
 * E0000047 rate limit) and broken answers on demand (`faults`, faults.ts). Every request is logged.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { answerWithFault, type Send } from "./faults.js";
import { Quota } from "./quota.js";
import {
  getGroup,
  getUser,
  listGroups,
  listMembers,
  oktaError,
  type RouteReply,
  type Store,
} from "./routes.js";
import { OktaChanges, SystemLog } from "./system-log.js";
import { TokenIssuer } from "./token.js";
import type { Fault, FaultKind, OktaStandInOptions } from "./types.js";

export interface StandInRequest {
  method: string;
  /** Path and query. */
  url: string;
  status: number;
  /** Epoch ms, local clock. */
  at: number;
}

const JSON_TYPE = "application/json";
const INSUFFICIENT_SCOPE =
  'Bearer realm="IdpAuthorizationServer", error="insufficient_scope", scope="okta.groups.read"';

function storeOf(options: OktaStandInOptions): Store {
  const groups = new Map(options.groups.map((g) => [g.id, g]));
  return {
    users: new Map(options.users.map((u) => [u.id, u])),
    groups,
    sortedGroups: [...groups.values()].sort((a, b) => (a.id < b.id ? -1 : 1)),
  };
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

export class OktaStandIn {
  /** `http://127.0.0.1:PORT`: the org URL. */
  url = "";
  readonly requests: StandInRequest[] = [];
  readonly quota: Quota;
  readonly tokens: TokenIssuer;
  readonly store: Store;
  /** The System Log (`/api/v1/logs`), and the changes that write to it (system-log.ts). */
  readonly log: SystemLog;
  readonly changes: OktaChanges;
  /** Most /api/v1 requests answered at once. */
  peakConcurrency = 0;
  private inFlight = 0;
  private readonly faults: (Fault & { left: number })[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  constructor(private readonly options: OktaStandInOptions) {
    this.quota = new Quota(options.quota ?? { limit: 600, windowSeconds: 60 }, () => this.now());
    this.tokens = new TokenIssuer(options.serviceApps ?? [], options.tokenSeconds ?? 3600);
    this.store = storeOf(options);
    this.log = new SystemLog(() => this.now());
    this.changes = new OktaChanges(this.store, this.log);
    (options.faults ?? []).forEach((f) => this.addFault(f));
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
  }

  /** The stand-in's clock, which its `Date` and `X-Rate-Limit-Reset` headers tell. */
  now(): number {
    return Date.now() + (this.options.clockSkewMs ?? 0);
  }

  addFault(fault: Fault): void {
    this.faults.push({ ...fault, left: fault.times ?? Infinity });
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  /** Requests that answered 429. */
  get refused(): number {
    return this.requests.filter((r) => r.status === 429).length;
  }

  async listen(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      for (const s of this.sockets) s.destroy();
      this.server.close(() => resolve());
    });
  }

  private readonly send: Send = (res, reply, headers = {}) => {
    res.writeHead(reply.status, {
      "Content-Type": JSON_TYPE,
      Date: new Date(this.now()).toUTCString(),
      ...headers,
      ...(reply.next !== undefined ? { Link: `<${this.url}${reply.next}>; rel="next"` } : {}),
    });
    res.end(JSON.stringify(reply.body));
  };

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const at = Date.now();
    const log = (status: number): void => {
      this.requests.push({ method: req.method ?? "GET", url: url.pathname + url.search, status, at });
    };
    if (url.pathname === "/oauth2/v1/token" && req.method === "POST") {
      void readForm(req)
        .then((form) => this.tokens.exchange(form, `${this.url}/oauth2/v1/token`))
        .then((reply) => {
          this.send(res, reply, { "Cache-Control": "no-store" });
          log(reply.status);
        });
      return;
    }
    if (!url.pathname.startsWith("/api/v1/") || req.method !== "GET") {
      this.send(res, oktaError(404, "E0000022", "The endpoint does not support the provided HTTP method"));
      return log(404);
    }
    this.inFlight++;
    this.peakConcurrency = Math.max(this.peakConcurrency, this.inFlight);
    void this.api(req, res, url)
      .then(log)
      .finally(() => this.inFlight--);
  }

  private authorize(req: IncomingMessage, path: string): RouteReply | undefined {
    const [scheme, token = ""] = (req.headers.authorization ?? "").split(" ");
    if (scheme === "SSWS" && (this.options.apiTokens ?? []).includes(token)) return undefined;
    const forbidden = scheme === "SSWS" && (this.options.forbiddenTokens ?? []).includes(token);
    const scopes =
      scheme === "Bearer" ? this.tokens.scopesOf(token) : forbidden ? new Set<string>() : undefined;
    if (!scopes) return oktaError(401, "E0000011", "Invalid token provided");
    const needs = path === "/api/v1/logs" ? "okta.logs.read" : "okta.groups.read";
    if (!scopes.has(needs))
      return oktaError(403, "E0000006", "You do not have permission to perform the requested action");
    return undefined;
  }

  private async api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<number> {
    const self = url.pathname + url.search;
    if (this.takeFault(self, (k) => k === "expire-token"))
      this.tokens.tokens.delete((req.headers.authorization ?? "").replace(/^Bearer /, ""));
    const denied = this.authorize(req, url.pathname);
    // A 429 fault: the organization's other integrations have just spent the family's window.
    if (this.takeFault(self, (k) => k === 429)) this.quota.spend(Infinity, url.pathname);
    const rate = this.quota.take(url.pathname);
    const crowded = this.options.maxConcurrent !== undefined && this.inFlight > this.options.maxConcurrent;
    if (!rate.allowed || crowded) {
      const tooMany = oktaError(429, "E0000047", "API call exceeded rate limit due to too many requests.");
      this.send(res, tooMany, rate.headers);
      return 429;
    }
    if (this.options.latencyMs) await new Promise((r) => setTimeout(r, this.options.latencyMs));
    if (denied) {
      this.send(res, denied, {
        ...rate.headers,
        ...(denied.status === 403 ? { "WWW-Authenticate": INSUFFICIENT_SCOPE } : {}),
      });
      return denied.status;
    }
    const reply = this.route(url.pathname, url.searchParams);
    const kind = this.takeFault(self, (k) => k !== 429 && k !== "expire-token");
    return answerWithFault({ res, reply, kind, send: this.send, headers: rate.headers, self });
  }

  private takeFault(self: string, which: (kind: FaultKind) => boolean): FaultKind | undefined {
    const fault = this.faults.find((f) => f.left > 0 && which(f.kind) && f.match.test(self));
    if (fault) fault.left--;
    return fault?.kind;
  }

  private route(path: string, query: URLSearchParams): RouteReply {
    if (path === "/api/v1/groups") return listGroups(this.store, query, this.url);
    if (path === "/api/v1/logs") return this.log.list(query);
    const user = /^\/api\/v1\/users\/([^/]+)$/.exec(path);
    if (user) return getUser(this.store, decodeURIComponent(user[1]!), this.url);
    const m = /^\/api\/v1\/groups\/([^/]+)(\/users)?$/.exec(path);
    if (!m) return oktaError(404, "E0000022", "The endpoint does not support the provided HTTP method");
    const id = decodeURIComponent(m[1]!);
    return m[2] ? listMembers(this.store, id, query, this.url) : getGroup(this.store, id, this.url);
  }
}

/** Starts a stand-in on 127.0.0.1 (port 0: a free one). */
export function startOktaStandIn(options: OktaStandInOptions, port = 0): Promise<OktaStandIn> {
  return new OktaStandIn(options).listen(port);
}
