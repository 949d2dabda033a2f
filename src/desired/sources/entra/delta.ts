/**
 * Graph's delta query as Entra's change feed (docs/entra.md, "Changes-only runs"; Microsoft's
 * "Use delta query to track changes in Microsoft Graph data" and "Get incremental changes to
 * groups"): `users/delta` (a leaver's `accountEnabled: false`, a deleted user's `@removed`) and
 * `groups/delta` with `members` (`members@delta`). Every page is followed from the kept
 * `@odata.deltaLink` through each `@odata.nextLink` to the next deltaLink, verbatim. Graph says
 * which group's members changed, not who reaches a picked group through nesting, so a picked group
 * that a change touches (itself or a group nested in it) is read again whole: exact at any depth.
 *
 * What cannot be proved whole falls back to a whole read: an expired token (410 Gone
 * `syncStateNotFound`, as Graph answers after days unused), a token Graph does not know, a page
 * that loops or ends without a link, a change to which groups the rules pick. A page that fails
 * after its retries is exit 5 (DirectoryHttp), as in a whole read.
 */
import type { EntraConfig } from "./schema.js";
import type { ReadTally } from "../contract.js";
import type { DirectoryHttp } from "../directory-http.js";
import { DirectoryHttpError } from "../errors.js";
import type { DirectoryChange, WholeReason } from "../changes/feed.js";
import { graphErrorOf, graphUrl, GRAPH } from "./graph.js";
import { groupProperties } from "./groups.js";
import { userProperties } from "./users.js";

/** A delta round that cannot be proved whole: the run reads whole instead. */
export class DeltaFallback extends Error {
  constructor(
    readonly reason: WholeReason,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** A page bound no real change feed reaches between two runs. */
const MAX_DELTA_PAGES = 10_000;

export type DeltaItem = Record<string, unknown> & { id: string };

interface DeltaPage {
  value?: unknown;
  "@odata.nextLink"?: unknown;
  "@odata.deltaLink"?: unknown;
}

/** The first delta link of a stream, with what is tracked in it ($select is kept in Graph's tokens). */
export function deltaStart(config: EntraConfig, stream: "users" | "groups", latest: boolean): string {
  const select =
    stream === "users"
      ? [...new Set([...userProperties(config), "userPrincipalName"])]
      : [...groupProperties(config), "members"];
  return graphUrl(config, `${stream}/delta`, {
    $select: select.join(","),
    ...(latest ? { $deltatoken: "latest" } : {}),
  });
}

function refused(err: DirectoryHttpError, stream: string): DeltaFallback | undefined {
  const { code, message } = graphErrorOf(err);
  const said = `${GRAPH} answered ${err.status} ${code} to ${stream}/delta: ${message}`;
  if (err.status === 410 || /syncStateNotFound|resyncRequired|syncStateInvalid/i.test(code))
    return new DeltaFallback("position-expired", said);
  if (err.status === 400 && /token/i.test(`${code} ${message}`))
    return new DeltaFallback("position-unknown", said);
  return undefined;
}

/** One stream's changes from `link` to its next deltaLink, proved whole; a fallback when not. */
export async function readDelta(
  http: DirectoryHttp,
  link: string,
  stream: "users" | "groups",
): Promise<{ items: DeltaItem[]; deltaLink: string; tally: ReadTally }> {
  const what = `${stream} changed (${stream}/delta)`;
  const seen = new Set<string>();
  const items: DeltaItem[] = [];
  let url: string | undefined = link;
  let pages = 0;
  while (url !== undefined) {
    if (seen.has(url) || pages >= MAX_DELTA_PAGES)
      throw new DeltaFallback(
        "broken-page",
        `${what}: page ${pages + 1}'s link was already followed (a paging loop)`,
      );
    seen.add(url);
    let body: DeltaPage;
    try {
      body = (await http.get<DeltaPage>(url, what)).body;
    } catch (err) {
      const fallback = err instanceof DirectoryHttpError ? refused(err, stream) : undefined;
      throw fallback ?? err;
    }
    pages += 1;
    if (!Array.isArray(body.value))
      throw new DeltaFallback("broken-page", `${what}: page ${pages} has no value array`);
    for (const item of body.value as unknown[])
      if (item && typeof (item as { id?: unknown }).id === "string") items.push(item as DeltaItem);
    const next = body["@odata.nextLink"];
    const delta = body["@odata.deltaLink"];
    if (typeof next === "string") url = next;
    else if (typeof delta === "string")
      return { items, deltaLink: delta, tally: { what, pages, announced: "unknown", read: items.length } };
    else
      throw new DeltaFallback(
        "broken-page",
        `${what}: page ${pages} ends with neither a nextLink nor a deltaLink`,
      );
  }
  throw new DeltaFallback("broken-page", `${what}: no deltaLink`);
}

/** Users' changes in the picture's terms: only people the picture holds matter. */
export function userChanges(
  items: readonly DeltaItem[],
  known: ReadonlyMap<string, { status: string }>,
): DirectoryChange[] {
  const out: DirectoryChange[] = [];
  for (const item of items) {
    const kept = known.get(item.id);
    if (kept === undefined) continue;
    // `@removed`: deleted (restorable for 30 days, reason `changed`, or for good, `deleted`):
    // Graph takes a deleted user out of every group, so the whole read would not list them.
    if (item["@removed"] !== undefined) {
      out.push({ type: "person-removed", id: item.id });
      continue;
    }
    const attributes: Record<string, string | number | boolean | null | string[]> = {};
    for (const [k, v] of Object.entries(item))
      if (
        k !== "id" &&
        !k.includes("@") &&
        (v === null || ["string", "number", "boolean"].includes(typeof v))
      )
        attributes[k] = v as string | number | boolean | null;
    const enabled = item["accountEnabled"];
    const status = enabled === false ? "disabled" : enabled === true ? "enabled" : (kept.status as "enabled");
    out.push({ type: "person-upserted", person: { id: item.id, status, attributes } });
  }
  return out;
}
