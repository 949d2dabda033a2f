/**
 * The stand-in's three read routes, answered from its store as Okta answers them: lists of
 * `Group` and `User` sorted by id, a page of at most `limit`, and the cursor (`after`, the last id
 * of the page) in a `Link: <…>; rel="next"` header until the list ends.
 */
import { FILTER_ATTRIBUTES, SearchSyntaxError, attributesOf, matches, parseSearch } from "./search.js";
import { MAX_GROUPS_PAGE, MAX_MEMBERS_PAGE, QUERY_LIMIT, type OktaGroup, type OktaUser } from "./types.js";

export interface RouteReply {
  status: number;
  body: unknown;
  /** Path and query of the next page, if any. */
  next?: string;
}

const CREATED = "2024-01-15T09:00:00.000Z";

export function oktaError(status: number, code: string, summary: string): RouteReply {
  return {
    status,
    body: {
      errorCode: code,
      errorSummary: summary,
      errorLink: code,
      errorId: `oae${code.slice(-4)}stand-in`,
      errorCauses: [],
    },
  };
}

export const notFound = (what: string): RouteReply =>
  oktaError(404, "E0000007", `Not found: Resource not found: ${what}`);

export interface Store {
  users: Map<string, OktaUser>;
  groups: Map<string, OktaGroup>;
  sortedGroups: OktaGroup[];
}

export function groupJson(g: OktaGroup, base: string, stats: boolean): Record<string, unknown> {
  return {
    id: g.id,
    created: CREATED,
    lastUpdated: CREATED,
    lastMembershipUpdated: CREATED,
    objectClass: ["okta:user_group"],
    type: g.type ?? "OKTA_GROUP",
    profile: g.profile,
    _links: { users: { href: `${base}/api/v1/groups/${g.id}/users` } },
    ...(stats ? { _embedded: { stats: { usersCount: g.members.length } } } : {}),
  };
}

export function userJson(u: OktaUser, base: string): Record<string, unknown> {
  return {
    id: u.id,
    status: u.status,
    created: CREATED,
    activated: u.status === "STAGED" ? null : CREATED,
    statusChanged: null,
    lastLogin: null,
    lastUpdated: CREATED,
    passwordChanged: null,
    type: { id: "oty1stand1in" },
    profile: u.profile,
    credentials: { provider: { type: "OKTA", name: "OKTA" } },
    _links: { self: { href: `${base}/api/v1/users/${u.id}` } },
  };
}

const limitOf = (query: URLSearchParams, dflt: number, max: number): number => {
  const n = Number(query.get("limit") ?? dflt);
  return Number.isInteger(n) && n > 0 ? Math.min(n, max) : dflt;
};

/** One page of a list sorted by id, after the cursor. */
function page<T extends { id: string }>(all: T[], query: URLSearchParams, limit: number, path: string) {
  const after = query.get("after");
  const from = after === null ? 0 : all.findIndex((x) => x.id > after);
  const items = from < 0 ? [] : all.slice(from, from + limit);
  const more = from >= 0 && from + limit < all.length;
  if (!more) return { items };
  const next = new URLSearchParams(query);
  next.set("after", items.at(-1)!.id);
  next.set("limit", String(limit));
  return { items, next: `${path}?${next.toString()}` };
}

function groupValue(g: OktaGroup, attr: string): unknown {
  if (attr.startsWith("profile.")) return g.profile[attr.slice("profile.".length)];
  if (attr === "id") return g.id;
  if (attr === "type") return g.type ?? "OKTA_GROUP";
  if (attr === "created" || attr === "lastUpdated" || attr === "lastMembershipUpdated") return CREATED;
  return undefined;
}

export function listGroups(store: Store, query: URLSearchParams, base: string): RouteReply {
  const stats = query.get("expand") === "stats";
  const q = query.get("q");
  if (q !== null) {
    // "Paging and searching are currently mutually exclusive. You can't page a query."
    const found = store.sortedGroups.filter((g) => g.profile.name.toLowerCase().startsWith(q.toLowerCase()));
    return {
      status: 200,
      body: found.slice(0, limitOf(query, QUERY_LIMIT, QUERY_LIMIT)).map((g) => groupJson(g, base, stats)),
    };
  }
  let groups = store.sortedGroups;
  for (const key of ["search", "filter"] as const) {
    const text = query.get(key);
    if (text === null) continue;
    try {
      const tree = parseSearch(text);
      if (key === "filter" && attributesOf(tree).some((a) => !FILTER_ATTRIBUTES.has(a)))
        throw new SearchSyntaxError("filter supports id, type, lastUpdated and lastMembershipUpdated");
      groups = groups.filter((g) => matches(tree, (a) => groupValue(g, a)));
    } catch (err) {
      if (!(err instanceof SearchSyntaxError)) throw err;
      return oktaError(400, "E0000031", `Invalid search criteria. ${err.message}`);
    }
  }
  const p = page(groups, query, limitOf(query, MAX_GROUPS_PAGE, MAX_GROUPS_PAGE), "/api/v1/groups");
  return {
    status: 200,
    body: p.items.map((g) => groupJson(g, base, stats)),
    ...(p.next ? { next: p.next } : {}),
  };
}

export function getGroup(store: Store, id: string, base: string): RouteReply {
  const g = store.groups.get(id);
  return g ? { status: 200, body: groupJson(g, base, false) } : notFound(`${id} (UserGroup)`);
}

export function getUser(store: Store, id: string, base: string): RouteReply {
  const u = store.users.get(id);
  return u ? { status: 200, body: userJson(u, base) } : notFound(`${id} (User)`);
}

export function listMembers(store: Store, id: string, query: URLSearchParams, base: string): RouteReply {
  const g = store.groups.get(id);
  if (!g) return notFound(`${id} (UserGroup)`);
  const members = g.members
    .map((m) => store.users.get(m))
    .filter((u): u is OktaUser => u !== undefined)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const p = page(
    members,
    query,
    limitOf(query, MAX_MEMBERS_PAGE, MAX_MEMBERS_PAGE),
    `/api/v1/groups/${id}/users`,
  );
  return { status: 200, body: p.items.map((u) => userJson(u, base)), ...(p.next ? { next: p.next } : {}) };
}
