/**
 * The userManagement listings (`GET /api/v1/actions/userManagement/{userGroups|users}`), accepted
 * only when provably whole, like the entity listings of paging.ts (issue 20): every page tells
 * the same `totalCount`, every page before the last is full, the last holds the rest, no id
 * appears twice, and the number of pages is bounded by the total. A listing that does not add up
 * is read again (a concurrent change shifts items across pages), then refused: a group whose
 * grants were missed would be planned as having none.
 */
import { AnswerError } from "../errors.js";
import { MAX_LISTED, NotWhole, readWhole, uniqueItems } from "./paging.js";
import { assigneePageAnswer, type AssigneeItem } from "./permission-answers.js";
import { JSON_MEDIA } from "./codec.js";
import type { Transport } from "./transport.js";

export interface AssigneeListingOptions {
  transport: Pick<Transport, "request" | "reread">;
  path: string;
  member: "userGroups" | "users";
  pageSize: number;
  rereads?: number;
}

async function readPage(
  o: AssigneeListingOptions,
  n: number,
): Promise<{ items: AssigneeItem[]; total: number }> {
  const { json } = await o.transport.request({
    method: "GET",
    path: `${o.path}?page=${n}&size=${o.pageSize}`,
    mediaType: JSON_MEDIA,
    answer: assigneePageAnswer(o.member),
  });
  const items = json.items;
  if (json.totalCount > MAX_LISTED)
    throw new AnswerError({
      method: "GET",
      path: o.path,
      problem: `totalCount ${json.totalCount} is past any real organization (${MAX_LISTED}): not read`,
    });
  if (items.length > o.pageSize)
    throw new NotWhole(`page=${n} has ${items.length} items, more than its size ${o.pageSize}`);
  return { items, total: json.totalCount };
}

async function readListing(o: AssigneeListingOptions): Promise<AssigneeItem[]> {
  const first = await readPage(o, 0);
  const pageCount = Math.max(1, Math.ceil(first.total / o.pageSize));
  const rest = await Promise.all(Array.from({ length: pageCount - 1 }, (_, i) => readPage(o, i + 1)));
  const pages = [first, ...rest];
  pages.forEach((p, n) => {
    if (p.total !== first.total)
      throw new NotWhole(`page=${n} says totalCount ${p.total}, page=0 said ${first.total}`);
    const expected = n < pageCount - 1 ? o.pageSize : first.total - o.pageSize * (pageCount - 1);
    if (p.items.length !== expected)
      throw new NotWhole(
        `page=${n} has ${p.items.length} items where totalCount ${first.total} needs ${expected}`,
      );
  });
  return uniqueItems(pages.map((p) => p.items));
}

/** Every assignee of the listing, whole, or an AnswerError after the rereads. */
export function listAssignees(o: AssigneeListingOptions): Promise<AssigneeItem[]> {
  return readWhole(o, () => readListing(o));
}
