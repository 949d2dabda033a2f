/**
 * Lists every resource of a JSON:API collection, and accepts the listing only when it is provably
 * whole (issue 20). The first page tells the totals (`metaInclude=page`); the remaining pages are
 * then fetched concurrently (bounded by the transport's concurrency limit), exactly as many as the
 * totals say. Every page must agree with the first's totals, every page before the last be full,
 * the last hold the rest, and no id appear twice. Without totals, pages are read one after another
 * until a short page. `links.next` is present even on the last page, so it is never followed.
 *
 * A listing that does not add up may be an honest one that a concurrent change shifted (an object
 * created or deleted between two page reads moves items across the page boundary): it is read
 * again, whole, up to `LISTING_REREADS` more times, then refused with an AnswerError.
 */
import { AnswerError } from "../errors.js";
import { pageAnswer, type ResourceSchema } from "./answers.js";
import { ENTITY_MEDIA, type Resource } from "./codec.js";
import type { Transport } from "./transport.js";

/** Whole re-reads of a listing whose pages do not add up, before it is refused. */
export const LISTING_REREADS = 2;
/** Totals past this are read as a broken answer, not fetched (a bound on the pages read). */
export const MAX_LISTED = 10_000_000;

export interface ListPagesOptions {
  transport: Pick<Transport, "request" | "reread">;
  /** Collection path, e.g. `/api/v1/entities/users`. */
  path: string;
  pageSize: number;
  include?: string | undefined;
  /** More query parameters, e.g. `origin: "NATIVE"`. */
  query?: Readonly<Record<string, string>>;
  /** The shape of every item (answers.ts). */
  item: ResourceSchema;
  /** Default LISTING_REREADS. */
  rereads?: number;
  /**
   * What the caller keeps of each item, made page by page: a page's answer is garbage once read
   * rather than held until the last page (issue 33). Unset: the resources themselves.
   */
  decode?: (r: Resource) => { id: string };
}

interface Totals {
  elements: number | undefined;
  pages: number;
}

interface Page {
  /** Zero-based, as in the query. */
  number: number;
  /** The items, decoded when the listing has `decode`. */
  data: Array<{ id: string }>;
  /** The size the server applied (it may clamp the one asked for). */
  size: number;
  totals: Totals | undefined;
}

/** The pages do not add up: read the listing again, or refuse it. */
export class NotWhole extends Error {}

function pageUrl(o: ListPagesOptions, page: number): string {
  const q = new URLSearchParams({ page: String(page), size: String(o.pageSize) });
  if (o.include) q.set("include", o.include);
  for (const [k, v] of Object.entries(o.query ?? {})) q.set(k, v);
  q.set("metaInclude", "page");
  q.set("sort", "id");
  return `${o.path}?${q.toString()}`;
}

async function fetchPage(o: ListPagesOptions, n: number): Promise<Page> {
  const { json } = await o.transport.request({
    method: "GET",
    path: pageUrl(o, n),
    mediaType: ENTITY_MEDIA,
    answer: pageAnswer(o.item),
  });
  const meta = json.meta?.page;
  const size = meta?.size ?? o.pageSize;
  if (meta?.number !== undefined && meta.number !== n)
    throw new NotWhole(`page=${n} answered as page ${meta.number}`);
  if (json.data.length > size)
    throw new NotWhole(`page=${n} has ${json.data.length} items, more than its size ${size}`);
  const data = o.decode ? json.data.map(o.decode) : json.data;
  return { number: n, data, size, totals: totalsOf(meta, size, n) };
}

function totalsOf(
  meta: { totalElements?: number | undefined; totalPages?: number | undefined } | undefined,
  size: number,
  n: number,
): Totals | undefined {
  const elements = meta?.totalElements;
  const derived = elements === undefined ? undefined : Math.ceil(elements / size);
  const pages = meta?.totalPages ?? derived;
  if (pages === undefined) return undefined;
  if (derived !== undefined && pages !== derived)
    throw new NotWhole(`page=${n} says ${elements} items in ${pages} pages of ${size}, which do not agree`);
  if (pages * size > MAX_LISTED && (elements ?? pages * size) > MAX_LISTED)
    throw new NotWhole(`page=${n} says ${elements ?? `${pages} pages of`} items, more than ${MAX_LISTED}`);
  return { elements, pages };
}

const describe = (t: Totals): string =>
  t.elements === undefined ? `${t.pages} pages` : `${t.elements} items in ${t.pages} pages`;

/** How many items page `n` must hold; undefined when only "1 to size" is known (the last, no item count). */
function expectedItems(n: number, totals: Totals, size: number): number | undefined {
  if (totals.pages === 0) return 0;
  const last = totals.pages - 1;
  if (n < last) return size;
  return totals.elements === undefined ? undefined : totals.elements - size * last;
}

function checkPage(p: Page, totals: Totals, size: number): void {
  if (p.totals?.elements !== totals.elements || p.totals?.pages !== totals.pages)
    throw new NotWhole(
      `page=${p.number} says ${p.totals ? describe(p.totals) : "no totals"}, page=0 said ${describe(totals)}: the collection changed while it was listed`,
    );
  const expected = expectedItems(p.number, totals, size);
  const count = p.data.length;
  if (expected === undefined ? count === 0 : count !== expected) {
    const role =
      p.number < totals.pages - 1 ? "a page before the last must be full" : "the last page holds the rest";
    throw new NotWhole(
      `page=${p.number} has ${count} items, expected ${expected ?? `1 to ${size}`} (${role}; ${describe(totals)} of ${size})`,
    );
  }
}

async function pagesByTotals(o: ListPagesOptions, first: Page, totals: Totals): Promise<Page[]> {
  const rest = Array.from({ length: Math.max(0, totals.pages - 1) }, (_, i) => fetchPage(o, i + 1));
  const pages = [first, ...(await Promise.all(rest))];
  for (const p of pages) checkPage(p, totals, first.size);
  return pages;
}

async function pagesUntilShort(o: ListPagesOptions, first: Page): Promise<Page[]> {
  const pages = [first];
  for (let last = first; last.data.length >= last.size && last.data.length > 0;) {
    if (pages.length * last.size >= MAX_LISTED)
      throw new NotWhole(`more than ${MAX_LISTED} items and no totals: the pages never end`);
    last = await fetchPage(o, pages.length);
    pages.push(last);
  }
  return pages;
}

/** The items of every page (in page order), each id once: an id listed twice means the pages overlap. */
export function uniqueItems<T extends { id: string }>(pages: ReadonlyArray<readonly T[]>): T[] {
  const seen = new Map<string, number>();
  const out: T[] = [];
  pages.forEach((items, n) => {
    for (const r of items) {
      const at = seen.get(r.id);
      if (at !== undefined) throw new NotWhole(`${r.id} is listed twice (page=${at} and page=${n})`);
      seen.set(r.id, n);
      out.push(r);
    }
  });
  return out;
}

async function readListing(o: ListPagesOptions): Promise<Array<{ id: string }>> {
  const first = await fetchPage(o, 0);
  const pages = first.totals ? await pagesByTotals(o, first, first.totals) : await pagesUntilShort(o, first);
  return uniqueItems(pages.map((p) => p.data));
}

export async function listAllPages(o: ListPagesOptions & { decode?: undefined }): Promise<Resource[]>;
export async function listAllPages<T extends { id: string }>(
  o: ListPagesOptions & { decode: (r: Resource) => T },
): Promise<T[]>;
export async function listAllPages(o: ListPagesOptions): Promise<Array<{ id: string }>> {
  return readWhole(o, () => readListing(o));
}

/**
 * `read()` until a read adds up (it throws `NotWhole` when it does not): at most `rereads` more
 * times, waiting as before a retry, then an AnswerError naming the listing and the last mismatch.
 */
export async function readWhole<T>(
  o: { transport: Pick<Transport, "reread">; path: string; rereads?: number | undefined },
  read: () => Promise<T>,
): Promise<T> {
  const rereads = o.rereads ?? LISTING_REREADS;
  for (let n = 1; ; n++) {
    try {
      return await read();
    } catch (err) {
      if (!(err instanceof NotWhole)) throw err;
      if (n > rereads)
        throw new AnswerError({
          method: "GET",
          path: o.path,
          problem: `the pages do not add up: ${err.message}; read ${n} times, the listing never added up, so it cannot be proven whole`,
        });
      await o.transport.reread({ path: o.path, read: n, problem: err.message });
    }
  }
}
