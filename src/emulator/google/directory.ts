/**
 * The stand-in's Directory API (admin/directory/v1) over its store: `users.get`, `groups.get`,
 * `groups.list` (customer or domain, `query` on email and name), `members.list` (with
 * `includeDerivedMembership`: members of nested groups too), `users.list` (customer or domain);
 * opaque page tokens bound to their listing; `maxResults` past the discovery document's maximum
 * refused as Google does.
 */
import { randomBytes } from "node:crypto";
import { apiError, type TokenReply } from "./token.js";
import type { GoogleGroup, GoogleMemberRef, GoogleStandInOptions, GoogleUser } from "./types.js";

export const MAX_RESULTS = { groups: 200, members: 200, users: 500 } as const;
const DEFAULT_RESULTS = { groups: 200, members: 200, users: 100 } as const;

type Listing = keyof typeof MAX_RESULTS;

export interface ListReply extends TokenReply {
  /**
   * The page's items and token, before a fault may change them; `again`, where the listing keeps
   * tokens of its own (the Reports API), makes a token for this same page (a repeat-token fault).
   */
  list?: { key: string; items: unknown[]; next?: string; token?: string; again?: () => string };
}

const notFound = (what: string) => apiError(404, `Resource Not Found: ${what}`, "notFound", "NOT_FOUND");
const invalid = (message: string) => apiError(400, message, "invalid", "INVALID_ARGUMENT");

export class GoogleDirectory {
  readonly users = new Map<string, GoogleUser>();
  readonly groups = new Map<string, GoogleGroup>();
  private readonly tokens = new Map<string, { key: string; offset: number }>();

  constructor(readonly o: Pick<GoogleStandInOptions, "customerId" | "domain" | "users" | "groups">) {
    for (const u of o.users) this.users.set(u.id, u);
    for (const g of o.groups) this.groups.set(g.id, g);
  }

  groupByKey(key: string): GoogleGroup | undefined {
    const k = key.toLowerCase();
    return this.groups.get(key) ?? [...this.groups.values()].find((g) => g.email.toLowerCase() === k);
  }

  /** A token for the page at `offset` of the listing `key`. */
  token(key: string, offset: number): string {
    const t = randomBytes(24).toString("base64url");
    this.tokens.set(t, { key, offset });
    return t;
  }

  private page(kind: Listing, key: string, all: unknown[], q: URLSearchParams, field: string): ListReply {
    const max = q.get("maxResults");
    const size = max === null ? DEFAULT_RESULTS[kind] : Number(max);
    if (!Number.isInteger(size) || size < 1 || size > MAX_RESULTS[kind])
      return invalid(`Invalid value '${max}'. Values must be within the range: [1, ${MAX_RESULTS[kind]}]`);
    const token = q.get("pageToken") ?? undefined;
    let offset = 0;
    if (token !== undefined) {
      const at = this.tokens.get(token);
      if (!at || at.key !== key) return invalid("Invalid page token");
      offset = at.offset;
    }
    const items = all.slice(offset, offset + size);
    const next = offset + size < all.length ? this.token(key, offset + size) : undefined;
    const body: Record<string, unknown> = { kind: `admin#directory#${kind}`, etag: '"stand-in"' };
    if (items.length > 0) body[field] = items;
    if (next) body.nextPageToken = next;
    return {
      status: 200,
      body,
      list: { key, items, ...(next ? { next } : {}), ...(token ? { token } : {}) },
    };
  }

  /** `customer` or `domain` names this customer; else Google's answer to a wrong one. */
  private scopeError(q: URLSearchParams): TokenReply | undefined {
    const customer = q.get("customer");
    const domain = q.get("domain");
    if (customer === null && domain === null)
      return apiError(400, "Bad Request", "badRequest", "INVALID_ARGUMENT");
    if (customer !== null && customer !== "my_customer" && customer !== this.o.customerId)
      return apiError(400, "Bad Request", "badRequest", "INVALID_ARGUMENT");
    if (domain !== null && domain.toLowerCase() !== this.o.domain.toLowerCase())
      return apiError(400, "Domain not found.", "notFound", "INVALID_ARGUMENT");
    return undefined;
  }

  groupJson(g: GoogleGroup): Record<string, unknown> {
    return {
      kind: "admin#directory#group",
      id: g.id,
      email: g.email,
      name: g.name,
      description: g.description ?? "",
      directMembersCount: String(g.members.length),
      adminCreated: true,
    };
  }

  getGroup(key: string): TokenReply {
    const g = this.groupByKey(key);
    return g ? { status: 200, body: this.groupJson(g) } : notFound("groupKey");
  }

  listGroups(q: URLSearchParams): ListReply {
    const bad = this.scopeError(q);
    if (bad) return bad;
    const match = groupQuery(q.get("query") ?? "");
    if (match === undefined) return invalid("Invalid Input");
    const all = [...this.groups.values()]
      .filter(match)
      .sort((a, b) => (a.email < b.email ? -1 : 1))
      .map((g) => this.groupJson(g));
    return this.page("groups", `groups?${q.get("query") ?? ""}`, all, q, "groups");
  }

  private memberJson(m: GoogleMemberRef): Record<string, unknown> {
    const user = m.type === "USER" ? this.users.get(m.id) : undefined;
    const group = m.type === "GROUP" ? this.groups.get(m.id) : undefined;
    const status =
      m.status ?? (user ? (user.archived ? "ARCHIVED" : user.suspended ? "SUSPENDED" : "ACTIVE") : "ACTIVE");
    return {
      kind: "admin#directory#member",
      id: m.id,
      ...(user || group || m.email ? { email: user?.primaryEmail ?? group?.email ?? m.email } : {}),
      role: m.role ?? "MEMBER",
      type: m.type,
      status,
    };
  }

  /** Direct members, then (derived) the members of nested groups at any depth, each once. */
  private membersOf(g: GoogleGroup, derived: boolean): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    const seen = new Set<string>();
    const visit = (group: GoogleGroup, depth: number): void => {
      for (const m of group.members) {
        const nested = m.type === "GROUP" ? this.groups.get(m.id) : undefined;
        if (depth === 0 || m.type !== "GROUP") {
          if (!seen.has(m.id)) {
            seen.add(m.id);
            out.push(this.memberJson(m));
          }
        }
        if (derived && nested && depth < 20) visit(nested, depth + 1);
      }
    };
    visit(g, 0);
    return out;
  }

  listMembers(key: string, q: URLSearchParams): ListReply {
    const g = this.groupByKey(key);
    if (!g) return notFound("groupKey");
    const derived = q.get("includeDerivedMembership") === "true";
    return this.page("members", `members/${g.id}/${derived}`, this.membersOf(g, derived), q, "members");
  }

  /** `users.get`: by id or primary email (any case). */
  getUser(key: string): TokenReply {
    const k = key.toLowerCase();
    const u = this.users.get(key) ?? [...this.users.values()].find((x) => x.primaryEmail.toLowerCase() === k);
    if (!u) return notFound("userKey");
    const { id, primaryEmail, name } = u;
    const flags = {
      suspended: u.suspended ?? false,
      archived: u.archived ?? false,
      isAdmin: u.isAdmin ?? false,
    };
    return {
      status: 200,
      body: { kind: "admin#directory#user", id, primaryEmail, name, ...flags, customerId: this.o.customerId },
    };
  }

  /** users.list's answer rows, built once (a benchmark pages through 100,000 of them). */
  private userRows: Record<string, unknown>[] | undefined;

  /** A user changed (reports.ts GoogleChanges): users.list builds its rows again. */
  usersChanged(): void {
    this.userRows = undefined;
  }

  listUsers(q: URLSearchParams): ListReply {
    const bad = this.scopeError(q);
    if (bad) return bad;
    const all = (this.userRows ??= [...this.users.values()]
      .sort((a, b) => (a.primaryEmail < b.primaryEmail ? -1 : 1))
      .map((u) => ({
        kind: "admin#directory#user",
        id: u.id,
        primaryEmail: u.primaryEmail,
        name: u.name,
        suspended: u.suspended ?? false,
        archived: u.archived ?? false,
        isAdmin: u.isAdmin ?? false,
        customerId: this.o.customerId,
      })));
    return this.page("users", "users", all, q, "users");
  }
}

/**
 * The Directory API's group search (developers.google.com/admin-sdk/directory/v1/guides/search-groups),
 * the part a rule uses: `email:` / `name:` with a trailing `*` for a prefix, `=` for exact, terms
 * joined by spaces (all must hold). Undefined: a query the stand-in cannot read (Google: 400).
 */
export function groupQuery(query: string): ((g: GoogleGroup) => boolean) | undefined {
  const terms = query.match(/\w+\s*[:=]\s*('[^']*'|"[^"]*"|\S+)/g) ?? [];
  if (query.trim() !== "" && terms.join(" ").replace(/\s+/g, "") !== query.replace(/\s+/g, ""))
    return undefined;
  const tests: ((g: GoogleGroup) => boolean)[] = [];
  for (const t of terms) {
    const m = /^(\w+)\s*([:=])\s*(.*)$/.exec(t)!;
    const field = m[1]!.toLowerCase();
    if (field !== "email" && field !== "name") return undefined;
    const raw = m[3]!.replace(/^['"]|['"]$/g, "").toLowerCase();
    const prefix = m[2] === ":" && raw.endsWith("*");
    const value = prefix ? raw.slice(0, -1) : raw;
    tests.push((g) => {
      const v = (field === "email" ? g.email : g.name).toLowerCase();
      return prefix ? v.startsWith(value) : v === value;
    });
  }
  return (g) => tests.every((t) => t(g));
}
