/**
 * Following a directory's pages to the end, and proving it: the server's next link is followed
 * verbatim (never rebuilt from a token), a link seen twice is a loop, an id seen twice is a read
 * that moved under us, and when the server announced a count the rows read must match it.
 * Anything else is a SourceIncompleteError (exit 5): what cannot be proved whole is not planned from.
 */
import { SourceIncompleteError } from "./errors.js";
import type { Count, ReadTally } from "./contract.js";

/** A bound no real listing reaches (999 rows a page: 100 million rows), so a link generator cannot run forever. */
export const MAX_PAGES = 100_000;

/** How to read one API's pages: three small functions, no class hierarchy. */
export interface PageRule<B> {
  items(body: B): readonly unknown[];
  /** The next page's URL exactly as the server gave it, or undefined on the last page. */
  next(body: B, headers: Readonly<Record<string, string>>): string | undefined;
  /** The total the server announced (Graph `@odata.count`), on the page that carries it. */
  announced?(body: B): Count | undefined;
  /** An item's id, to refuse one seen twice. */
  idOf?(item: unknown): string | undefined;
}

/** Counts one listing and refuses what does not add up. */
export class Tally {
  pages = 0;
  read = 0;
  announced: Count = "unknown";
  private readonly links = new Set<string>();
  private readonly ids = new Map<string, number>();

  constructor(
    /** What is read, in words, for the evidence and for every refusal. */
    readonly what: string,
    private readonly maxPages = MAX_PAGES,
  ) {}

  /** One page's items; `announced` when this page carries the server's total. */
  page(items: readonly unknown[], announced?: Count, idOf?: (item: unknown) => string | undefined): void {
    this.pages += 1;
    if (this.pages > this.maxPages)
      throw this.incomplete(
        `more than ${this.maxPages.toLocaleString("en-US")} pages: the listing does not end`,
      );
    if (announced !== undefined && announced !== "unknown") {
      if (this.announced !== "unknown" && this.announced !== announced)
        throw this.incomplete(
          `the announced count changed from ${this.announced} to ${announced} on page ${this.pages}: the group changed while it was read`,
        );
      this.announced = announced;
    }
    this.read += items.length;
    if (idOf === undefined) return;
    for (const item of items) {
      const id = idOf(item);
      if (id === undefined) continue;
      const first = this.ids.get(id);
      if (first !== undefined)
        throw this.incomplete(`${id} is listed on page ${first} and again on page ${this.pages}`);
      this.ids.set(id, this.pages);
    }
  }

  /** The next link, refused when it was followed before (a loop that would never end or repeat rows). */
  follow(link: string): void {
    if (this.links.has(link))
      throw this.incomplete(
        `page ${this.pages + 1}'s link was already followed (a paging loop): ${redactLink(link)}`,
      );
    this.links.add(link);
  }

  /** The tally of a listing read to its end; refused when the rows do not match the announced count. */
  close(): ReadTally {
    if (this.announced !== "unknown" && this.announced !== this.read)
      throw this.incomplete(
        `the server announced ${this.announced.toLocaleString("en-US")} and ${this.read.toLocaleString("en-US")} were read over ${this.pages} page${this.pages === 1 ? "" : "s"}`,
      );
    return { what: this.what, pages: this.pages, announced: this.announced, read: this.read };
  }

  incomplete(reason: string): SourceIncompleteError {
    return new SourceIncompleteError({ read: this.what, reason });
  }
}

/**
 * A link for a message: the path and the names of its query parameters, not their values (an
 * opaque skip token is noise, and a query could carry something a person should not paste).
 */
export function redactLink(link: string): string {
  try {
    const url = new URL(link);
    const names = [...new Set([...url.searchParams.keys()])];
    return `${url.origin}${url.pathname}${names.length > 0 ? `?${names.map((n) => `${n}=…`).join("&")}` : ""}`;
  } catch {
    return "(not a URL)";
  }
}

/** What pages() needs of the transport: one GET, retried inside, that answers the parsed body. */
export type PageGet<B> = (url: string) => Promise<{ body: B; headers: Readonly<Record<string, string>> }>;

/**
 * Yields each page's items, first to last. The caller calls `tally.close()` when it is done (or
 * takes the tally `pages` returns at the end through `readAll`).
 */
export async function* pages<B>(o: {
  first: string;
  rule: PageRule<B>;
  get: PageGet<B>;
  tally: Tally;
}): AsyncGenerator<readonly unknown[], ReadTally> {
  const { rule, get, tally } = o;
  let url: string | undefined = o.first;
  tally.follow(url);
  while (url !== undefined) {
    const answer = await get(url);
    const items = rule.items(answer.body);
    tally.page(items, rule.announced?.(answer.body), rule.idOf);
    yield items;
    url = rule.next(answer.body, answer.headers);
    if (url !== undefined) tally.follow(url);
  }
  return tally.close();
}

/** Every item of a listing, with its tally. */
export async function readAll<B>(
  o: Parameters<typeof pages<B>>[0],
): Promise<{ items: unknown[]; tally: ReadTally }> {
  const items: unknown[] = [];
  const it = pages(o);
  for (;;) {
    const step = await it.next();
    if (step.done) return { items, tally: step.value };
    for (const item of step.value) items.push(item);
  }
}
