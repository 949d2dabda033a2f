/**
 * Lists every resource of a JSON:API collection. The first page tells the total; the remaining
 * pages are then fetched concurrently (bounded by the transport's concurrency limit). Without a
 * total, pages are read one after another until a short page. `links.next` is present even on the
 * last page, so it is never used as the stop signal.
 */
import { isResource, ENTITY_MEDIA, type Resource } from "./codec.js";
import type { Transport } from "./transport.js";

export interface ListPagesOptions {
  transport: Transport;
  /** Collection path, e.g. `/api/v1/entities/users`. */
  path: string;
  pageSize: number;
  include?: string | undefined;
}

interface Page {
  data: Resource[];
  totalPages: number | undefined;
  /** The size the server applied (it may clamp the one asked for). */
  size: number;
}

function pageUrl(o: ListPagesOptions, page: number): string {
  const q = new URLSearchParams({ page: String(page), size: String(o.pageSize) });
  if (o.include) q.set("include", o.include);
  q.set("metaInclude", "page");
  q.set("sort", "id");
  return `${o.path}?${q.toString()}`;
}

async function fetchPage(o: ListPagesOptions, page: number): Promise<Page> {
  const { json } = await o.transport.request({
    method: "GET",
    path: pageUrl(o, page),
    mediaType: ENTITY_MEDIA,
  });
  const body = (typeof json === "object" && json !== null ? json : {}) as {
    data?: unknown;
    meta?: { page?: { totalPages?: unknown; totalElements?: unknown; size?: unknown } };
  };
  const data = Array.isArray(body.data) ? body.data.filter(isResource) : [];
  const meta = body.meta?.page;
  const size = typeof meta?.size === "number" && meta.size > 0 ? meta.size : o.pageSize;
  let totalPages = typeof meta?.totalPages === "number" ? meta.totalPages : undefined;
  if (totalPages === undefined && typeof meta?.totalElements === "number")
    totalPages = Math.ceil(meta.totalElements / size);
  return { data, totalPages, size };
}

export async function listAllPages(o: ListPagesOptions): Promise<Resource[]> {
  const first = await fetchPage(o, 0);
  const pages: Resource[][] = [first.data];
  if (first.totalPages !== undefined) {
    const rest = Array.from({ length: Math.max(0, first.totalPages - 1) }, (_, i) => fetchPage(o, i + 1));
    for (const p of await Promise.all(rest)) pages.push(p.data);
  } else {
    let last = first;
    for (let n = 1; last.data.length >= last.size && last.data.length > 0; n += 1) {
      last = await fetchPage(o, n);
      pages.push(last.data);
    }
  }
  // Objects created or deleted while listing can shift items across pages: keep each id once.
  const seen = new Set<string>();
  const out: Resource[] = [];
  for (const r of pages.flat()) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    out.push(r);
  }
  return out;
}
