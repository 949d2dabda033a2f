/**
 * The answers of the Graph stand-in, one method per route: listings page by page with opaque
 * `$skiptoken` nextLinks and `@odata.count` when asked, Graph's error body, and the faults a test
 * asked for (server.ts puts them on a socket).
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Directory, DirectoryObject } from "./directory.js";
import { issueToken, openIdConfiguration, type IssuedToken, type LoginReply } from "./login.js";
import { groupFilter, parseListQuery, project, skipToken } from "./query.js";
import { TenantChanges } from "./delta.js";

/** `expire`: the caller's token ends there (401 InvalidAuthenticationToken), as one expired or revoked mid-read. */
export type GraphFaultKind = "status" | "html" | "truncated" | "loop" | "miscount" | "reset" | "expire";

/** One injected fault: on requests whose path contains `path` (and, for listings, at page `page`). */
export interface GraphFault {
  kind: GraphFaultKind;
  path?: string;
  /** 0-based page of a listing; unset: any request that matches. */
  page?: number;
  /** For `status`: 429, 503, 504, 500… */
  status?: number;
  retryAfterSeconds?: number;
  /** How many times it fires (default 1; Infinity for always). */
  times?: number;
}

export interface Answer {
  /** -1: drop the connection without an answer. */
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Raw text instead of JSON (a `$count` segment, or a broken page). */
  text?: string;
  contentType?: string;
}

const TYPE_NAMES: Record<DirectoryObject["type"], string> = {
  user: "#microsoft.graph.user",
  group: "#microsoft.graph.group",
  servicePrincipal: "#microsoft.graph.servicePrincipal",
  device: "#microsoft.graph.device",
  orgContact: "#microsoft.graph.orgContact",
};
const READ_GROUPS = [
  "GroupMember.Read.All",
  "Group.Read.All",
  "Directory.Read.All",
  "GroupMember.ReadWrite.All",
];
const READ_USERS = ["User.Read.All", "Directory.Read.All", "User.ReadWrite.All"];

export function graphError(status: number, code: string, message: string): Answer {
  const requestId = randomUUID();
  return {
    status,
    headers: { "request-id": requestId, "client-request-id": requestId },
    body: {
      error: {
        code,
        message,
        innerError: {
          date: new Date().toISOString().replace(/\.\d+Z$/, ""),
          "request-id": requestId,
          "client-request-id": requestId,
        },
      },
    },
  };
}

const notFound = (id: string): Answer =>
  graphError(
    404,
    "Request_ResourceNotFound",
    `Resource '${id}' does not exist or one of its queried reference-property objects are not present.`,
  );

interface Listing {
  listing: string;
  eventual: boolean;
  items: () => Record<string, unknown>[];
  context: string;
}

export class GraphRoutes {
  readonly tokens = new Map<string, IssuedToken>();
  /** The tenant's changes, for the delta query (delta.ts): tests change the tenant through it. */
  readonly changes: TenantChanges;
  base = "";
  /** The token of the request being answered (answers are built synchronously). */
  private bearer = "";
  constructor(
    readonly directory: Directory,
    readonly faults: GraphFault[],
  ) {
    this.changes = new TenantChanges(directory);
  }

  async handle(req: IncomingMessage): Promise<Answer> {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const parts = url.pathname.split("/").filter(Boolean);
    const login = (reply: LoginReply): Answer => ({ status: reply.status, body: reply.body });
    if (
      req.method === "GET" &&
      parts[1] === "v2.0" &&
      parts.slice(2).join("/") === ".well-known/openid-configuration"
    )
      return login(openIdConfiguration(this.directory, parts[0]!, this.base));
    if (req.method === "POST" && parts.slice(1).join("/") === "oauth2/v2.0/token") {
      let body = "";
      for await (const chunk of req) body += String(chunk);
      return login(issueToken(this.directory, parts[0]!, new URLSearchParams(body), this.tokens));
    }
    if (parts[0] !== "v1.0") return graphError(404, "NotFound", `No route for ${url.pathname}`);
    if (req.method !== "GET")
      return graphError(405, "Request_BadRequest", "Only GET is served by this stand-in.");
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
    const caller = auth ? this.tokens.get(auth[1]!) : undefined;
    if (caller === undefined || caller.expiresAt < Date.now())
      return graphError(
        401,
        "InvalidAuthenticationToken",
        auth ? "Access token validation failure. Invalid audience." : "Access token is empty.",
      );
    const eventual = String(req.headers["consistencylevel"] ?? "").toLowerCase() === "eventual";
    this.bearer = auth![1]!;
    return this.graph(url, caller, eventual);
  }

  private fault(path: string, page: number | undefined): GraphFault | undefined {
    const f = this.faults.find(
      (x) =>
        (x.times ?? 1) > 0 &&
        (x.path === undefined || path.includes(x.path)) &&
        (x.page === undefined || x.page === page),
    );
    if (f) f.times = (f.times ?? 1) - 1;
    return f;
  }

  /** A fault's answer; `expire` ends the caller's token first. */
  private broken(f: GraphFault): Answer {
    if (f.kind !== "expire") return broken(f);
    this.tokens.delete(this.bearer);
    return graphError(401, "InvalidAuthenticationToken", "Lifetime validation failed, the token is expired.");
  }

  /** One listing page: `value`, `@odata.count` when asked, an opaque `@odata.nextLink` while more remain. */
  private page(url: URL, o: Listing): Answer {
    const q = parseListQuery(url.searchParams, o);
    const all = o.items();
    const f = this.fault(url.pathname, Math.floor(q.skip / q.top));
    if (f && f.kind !== "loop" && f.kind !== "miscount") return this.broken(f);
    const body: Record<string, unknown> = { "@odata.context": `${this.base}/v1.0/$metadata#${o.context}` };
    if (q.count) body["@odata.count"] = all.length + (f?.kind === "miscount" ? 1 : 0);
    body["value"] = all.slice(q.skip, q.skip + q.top);
    // A loop: the next link is the link just followed, as a broken server repeats it.
    if (f?.kind === "loop") body["@odata.nextLink"] = `${this.base}${url.pathname}${url.search}`;
    else if (q.skip + q.top < all.length) {
      const nextOffset = q.skip + q.top;
      const next = new URL(url.href);
      next.searchParams.set("$skiptoken", skipToken(o.listing, nextOffset));
      body["@odata.nextLink"] = `${this.base}${next.pathname}${next.search}`;
    }
    return { status: 200, body };
  }

  private graph(url: URL, caller: IssuedToken, eventual: boolean): Answer {
    const parts = url.pathname.split("/").filter(Boolean).slice(1); // after v1.0
    if (
      (parts[0] === "users" || parts[0] === "groups") &&
      /^(microsoft\.graph\.)?delta$/.test(parts[1] ?? "")
    )
      return this.delta(url, parts[0], caller);
    if (parts[0] !== "groups")
      return graphError(400, "BadRequest", `Resource not found for the segment '${parts[0] ?? ""}'.`);
    if (!caller.roles.some((r) => READ_GROUPS.includes(r)))
      return graphError(
        403,
        "Authorization_RequestDenied",
        "Insufficient privileges to complete the operation.",
      );
    const select = url.searchParams.get("$select")?.split(",");
    if (parts.length === 1) {
      const test = groupFilter(url.searchParams.get("$filter") ?? undefined);
      return this.page(url, {
        listing: `groups|${url.searchParams.get("$filter") ?? ""}|${select?.join(",") ?? ""}`,
        eventual,
        context: "groups",
        items: () => this.directory.tenant.groups.filter(test).map((g) => project(g as never, select)),
      });
    }
    const f = parts.length === 2 ? this.fault(url.pathname, undefined) : undefined;
    if (f) return this.broken(f);
    const group = this.directory.group(parts[1]!);
    if (group === undefined) return notFound(parts[1]!);
    if (parts.length === 2) return { status: 200, body: project(group as never, select) };
    if (parts[2] === "transitiveMembers" || parts[2] === "members")
      return this.members(url, parts.slice(2), caller, eventual);
    return graphError(400, "BadRequest", `Resource not found for the segment '${parts[2]}'.`);
  }

  /** `users/delta`, `groups/delta` (delta.ts); a fault on its path fires like on any page. */
  private delta(url: URL, resource: "users" | "groups", caller: IssuedToken): Answer {
    const roles = resource === "users" ? READ_USERS : READ_GROUPS;
    if (!caller.roles.some((r) => roles.includes(r)))
      return graphError(
        403,
        "Authorization_RequestDenied",
        "Insufficient privileges to complete the operation.",
      );
    const f = this.fault(url.pathname, undefined);
    if (f && f.kind !== "loop" && f.kind !== "miscount") return this.broken(f);
    const body = this.changes.page({
      resource,
      params: url.searchParams,
      base: this.base,
      typeName: (id) => {
        const o = this.directory.object(id);
        return o ? TYPE_NAMES[o.type] : undefined;
      },
    });
    // A loop: the next link is the link just followed.
    if (f?.kind === "loop") {
      delete body["@odata.deltaLink"];
      body["@odata.nextLink"] = `${this.base}${url.pathname}${url.search}`;
    }
    return { status: 200, body };
  }

  private members(url: URL, rest: string[], caller: IssuedToken, eventual: boolean): Answer {
    const groupId = url.pathname.split("/")[3]!;
    const [relation, cast, countSegment] = rest as [string, string | undefined, string | undefined];
    const castType = cast === "$count" ? undefined : cast?.replace(/^microsoft\.graph\./, "");
    if (castType !== undefined && !(castType in TYPE_NAMES))
      return graphError(
        400,
        "Request_UnsupportedQuery",
        `The type cast 'microsoft.graph.${castType}' is not supported.`,
      );
    const all =
      relation === "transitiveMembers"
        ? this.directory.transitiveMembers(groupId)
        : this.directory.directMembers(groupId);
    const objects = all.filter((o) => castType === undefined || o.type === castType);
    if (cast === "$count" || countSegment === "$count") {
      if (!eventual) return graphError(400, "Request_BadRequest", "$count is not currently supported.");
      return { status: 200, contentType: "text/plain", text: String(objects.length) };
    }
    const userInfo = caller.roles.some((r) => READ_USERS.includes(r));
    const select = url.searchParams.get("$select")?.split(",");
    return this.page(url, {
      listing: `${url.pathname}|${select?.join(",") ?? ""}`,
      eventual,
      context: "directoryObjects",
      items: () =>
        objects.map((o) => ({
          "@odata.type": TYPE_NAMES[o.type],
          // Without a permission to read users, Graph still lists them, with nothing but their id.
          ...project(o.value as never, select, () => o.type !== "user" || userInfo),
        })),
    });
  }
}

function broken(f: GraphFault): Answer {
  switch (f.kind) {
    case "html":
      return {
        status: 200,
        contentType: "text/html",
        text: "<html><body><h1>Sign in to continue</h1></body></html>",
      };
    case "truncated":
      return { status: 200, contentType: "application/json", text: '{"@odata.context":"x","value":[{"id":"' };
    case "reset":
      return { status: -1 };
    default: {
      const status = f.status ?? 503;
      const answer =
        status === 429
          ? graphError(429, "TooManyRequests", "Too many requests.")
          : graphError(status, "UnknownError", "The service is unavailable, retry later.");
      if (f.retryAfterSeconds !== undefined)
        answer.headers = { ...answer.headers, "Retry-After": String(f.retryAfterSeconds) };
      return answer;
    }
  }
}
