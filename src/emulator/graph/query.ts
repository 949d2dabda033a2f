/**
 * The OData query options the Graph stand-in understands, as Graph documents them: `$select`,
 * `$top` (1 to 999, default 100), `$count=true` (only with `ConsistencyLevel: eventual` on
 * directory objects), `$filter` on groups (a small, honest subset: `eq` on `id`, `displayName`,
 * `mailNickname`, `securityEnabled`, `startswith(displayName,'x')`, joined by `and`), and an
 * opaque `$skiptoken` that only the stand-in can read back.
 */
import { createHmac, randomBytes } from "node:crypto";
import type { GraphGroup } from "./directory.js";

export class GraphQueryError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ListQuery {
  select: string[] | undefined;
  top: number;
  count: boolean;
  filter: string | undefined;
  skip: number;
}

const KEY = randomBytes(16);

/** The state of a listing, signed so a token from another listing (or a made-up one) is refused. */
export function skipToken(listing: string, offset: number): string {
  const payload = Buffer.from(JSON.stringify({ o: offset, n: randomBytes(4).toString("hex") })).toString(
    "base64url",
  );
  const mac = createHmac("sha256", KEY).update(`${listing}|${payload}`).digest("base64url").slice(0, 16);
  // Graph's tokens look like X'4453...'; the quotes make sure a client never builds one itself.
  return `X'${payload}.${mac}'`;
}

function readSkipToken(listing: string, token: string): number {
  const m = /^X'([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)'$/.exec(token);
  const expect = m && createHmac("sha256", KEY).update(`${listing}|${m[1]}`).digest("base64url").slice(0, 16);
  if (!m || expect !== m[2])
    throw new GraphQueryError(
      400,
      "Directory_ExpiredPageToken",
      "The specified page token value has expired and can no longer be included in your request.",
    );
  return Number((JSON.parse(Buffer.from(m[1]!, "base64url").toString()) as { o: number }).o);
}

export function parseListQuery(
  params: URLSearchParams,
  o: { listing: string; eventual: boolean },
): ListQuery {
  const topText = params.get("$top");
  const top = topText === null ? 100 : Number(topText);
  if (!Number.isInteger(top) || top < 1 || top > 999)
    throw new GraphQueryError(
      400,
      "Request_BadRequest",
      `Invalid page size specified: '${topText}'. Must be between 1 and 999 inclusive.`,
    );
  const count = params.get("$count") === "true";
  if (count && !o.eventual)
    throw new GraphQueryError(400, "Request_BadRequest", "$count is not currently supported.");
  const token = params.get("$skiptoken");
  const select = params.get("$select");
  return {
    select: select === null ? undefined : select.split(",").map((s) => s.trim()),
    top,
    count,
    filter: params.get("$filter") ?? undefined,
    skip: token === null ? 0 : readSkipToken(o.listing, token),
  };
}

type GroupTest = (g: GraphGroup) => boolean;
const FIELDS: Record<string, (g: GraphGroup) => unknown> = {
  id: (g) => g.id,
  displayName: (g) => g.displayName,
  mailNickname: (g) => g.mailNickname,
  securityEnabled: (g) => g.securityEnabled,
};

/** One clause: `field eq 'text'`, `field eq true|false`, `startswith(displayName,'text')`. */
function clause(text: string): GroupTest {
  const eq = /^(\w+)\s+eq\s+(?:'((?:[^']|'')*)'|(true|false))$/i.exec(text);
  if (eq) {
    const get = FIELDS[eq[1]!];
    if (!get) throw unsupported(eq[1]!);
    const want = eq[2] !== undefined ? eq[2].replace(/''/g, "'") : eq[3] === "true";
    return (g) => {
      const v = get(g);
      return typeof v === "string" && typeof want === "string"
        ? v.toLowerCase() === want.toLowerCase()
        : v === want;
    };
  }
  const sw = /^startswith\((\w+),\s*'((?:[^']|'')*)'\)$/i.exec(text);
  if (sw) {
    if (sw[1] !== "displayName" && sw[1] !== "mailNickname") throw unsupported(sw[1]!);
    const get = FIELDS[sw[1]]!;
    const prefix = sw[2]!.replace(/''/g, "'").toLowerCase();
    return (g) =>
      String(get(g) ?? "")
        .toLowerCase()
        .startsWith(prefix);
  }
  throw new GraphQueryError(400, "BadRequest", `Invalid filter clause: syntax error at '${text}'.`);
}

function unsupported(field: string): GraphQueryError {
  return new GraphQueryError(
    400,
    "Request_UnsupportedQuery",
    `Unsupported or invalid query filter clause specified for property '${field}' of resource 'Group'.`,
  );
}

export function groupFilter(filter: string | undefined): GroupTest {
  if (filter === undefined) return () => true;
  const tests = filter.split(/\s+and\s+/i).map((c) => clause(c.trim()));
  return (g) => tests.every((t) => t(g));
}

/** Only the selected properties (and always `id`); a property the object lacks is `null`, as Graph sends. */
export function project(
  value: Record<string, unknown>,
  select: string[] | undefined,
  keep: (name: string) => boolean = () => true,
): Record<string, unknown> {
  const names = select ?? Object.keys(value).filter((k) => k !== "members");
  const out: Record<string, unknown> = { id: value["id"] };
  for (const name of names) if (name !== "id") out[name] = keep(name) ? (value[name] ?? null) : null;
  return out;
}
