/**
 * List queries of the entity API: `page` (zero-based), `size` (default 20, at most 1000; more
 * answers 400 rather than silently shrinking the page, which would make a client that stops on a
 * short page stop early), `sort` (`id`, `id,asc`, `id,desc`, `-id`; default id ascending),
 * a minimal RSQL `filter` (`field=='value'` joined by `;`), `include`, `metaInclude=page`.
 * `links.next` is present even on the last page, as the real service does.
 */
import { ProblemError } from "./http-util.js";
import { cmp } from "./store.js";
import type { SortedIds } from "./sorted-ids.js";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 1000;

export interface ListQuery {
  page: number;
  size: number;
  descending: boolean;
  filters: Array<{ field: string; value: string }>;
  include: Set<string>;
  metaPage: boolean;
}

function intParam(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < min || n > max) {
    throw new ProblemError(400, `query parameter ${name}=${raw}: must be an integer from ${min} to ${max}`);
  }
  return n;
}

function commaList(query: URLSearchParams, name: string): string[] {
  return query
    .getAll(name)
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
}

const FILTER_TERM = /^\s*([A-Za-z][A-Za-z.]*)\s*==\s*(?:'([^']*)'|"([^"]*)"|([^;'"]*?))\s*(?:;|$)/;

export function parseFilter(raw: string | null, fields: readonly string[]): ListQuery["filters"] {
  if (raw === null || raw.trim() === "") return [];
  const out: ListQuery["filters"] = [];
  let rest = raw;
  while (rest.trim() !== "") {
    const m = FILTER_TERM.exec(rest);
    if (!m)
      throw new ProblemError(400, `filter=${raw}: only field=='value' terms joined by ';' are supported`);
    const field = m[1] as string;
    if (!fields.includes(field))
      throw new ProblemError(400, `filter field ${field}: unknown (known: ${fields.join(", ")})`);
    out.push({ field, value: m[2] ?? m[3] ?? m[4] ?? "" });
    rest = rest.slice(m[0].length);
  }
  return out;
}

/** `include=a,b` or `include=ALL`, checked against what the collection can include. */
export function parseInclude(query: URLSearchParams, includes: readonly string[]): Set<string> {
  const include = new Set<string>();
  for (const inc of commaList(query, "include")) {
    if (inc === "ALL") includes.forEach((i) => include.add(i));
    else if (includes.includes(inc)) include.add(inc);
    else throw new ProblemError(400, `include=${inc}: supported are ${[...includes, "ALL"].join(", ")}`);
  }
  return include;
}

export function parseListQuery(
  query: URLSearchParams,
  opts: { filterFields: readonly string[]; includes: readonly string[] },
): ListQuery {
  let descending = false;
  for (const s of query.getAll("sort")) {
    const v = s.trim();
    if (v === "id" || v === "id,asc") descending = false;
    else if (v === "-id" || v === "id,desc") descending = true;
    else throw new ProblemError(400, `sort=${s}: supported are id, id,asc, id,desc and -id`);
  }
  const include = parseInclude(query, opts.includes);
  const metaInclude = commaList(query, "metaInclude");
  return {
    page: intParam(query, "page", 0, 0, Number.MAX_SAFE_INTEGER),
    size: intParam(query, "size", DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE),
    descending,
    filters: parseFilter(query.get("filter"), opts.filterFields),
    include,
    metaPage: metaInclude.some((m) => m === "page" || m === "all" || m === "ALL"),
  };
}

/**
 * The ids of one page. `candidates` is a (small) pre-selected set when a filter could use an
 * index; without one the page is cut straight from the sorted index, so no request sorts the store.
 */
export function pageIds(opts: {
  q: ListQuery;
  sorted: SortedIds;
  candidates: Iterable<string> | undefined;
  matches: (id: string) => boolean;
}): { ids: string[]; total: number } {
  const { q, sorted } = opts;
  const start = q.page * q.size;
  if (opts.candidates === undefined && q.filters.length === 0) {
    return { ids: sorted.slice(start, q.size, q.descending), total: sorted.size };
  }
  const all = opts.candidates
    ? [...opts.candidates].filter(opts.matches).sort(cmp)
    : sorted.all().filter(opts.matches);
  if (q.descending) all.reverse();
  return { ids: all.slice(start, start + q.size), total: all.length };
}

export function listLinksAndMeta(opts: { base: string; url: string; q: ListQuery; total: number }): {
  links: { self: string; next: string };
  meta?: { page: { number: number; size: number; totalElements: number; totalPages: number } };
} {
  const { base, url, q, total } = opts;
  const u = new URL(url, base);
  u.searchParams.set("page", String(q.page + 1));
  const links = { self: new URL(url, base).toString(), next: u.toString() };
  if (!q.metaPage) return { links };
  return {
    links,
    meta: {
      page: { number: q.page, size: q.size, totalElements: total, totalPages: Math.ceil(total / q.size) },
    },
  };
}
