/**
 * Microsoft Graph v1.0 as a directory: plain undici (DirectoryHttp), not a Graph SDK. Every
 * listing asks `$select` for the fields used and `$top=999`, sends `ConsistencyLevel: eventual`
 * with `$count=true` so Graph announces the total, and follows `@odata.nextLink` verbatim until it
 * is gone (pages.ts proves the rows add up). A status no retry fixes becomes a setup error that
 * names the fix (exit 4).
 */
import type { Logger } from "pino";
import type { EntraConfig } from "./schema.js";
import { DirectoryError } from "../../../errors.js";
import { NoSuchGroupError } from "../vanished-groups.js";
import { DirectoryHttp } from "../directory-http.js";
import { DirectoryHttpError } from "../errors.js";
import { readAll, Tally, type PageRule } from "../pages.js";
import type { ReadTally } from "../contract.js";

export const GRAPH = "Microsoft Graph";
export const PAGE_SIZE = 999;

interface GraphPage {
  value?: unknown;
  "@odata.nextLink"?: unknown;
  "@odata.count"?: unknown;
}

/** Graph's collection answers: `value`, `@odata.nextLink`, `@odata.count`. */
export const GRAPH_PAGES: PageRule<GraphPage> = {
  items: (body) => {
    if (!Array.isArray(body.value)) throw new TypeError("a Graph page without a value array");
    return body.value as unknown[];
  },
  next: (body) => (typeof body["@odata.nextLink"] === "string" ? body["@odata.nextLink"] : undefined),
  announced: (body) => (typeof body["@odata.count"] === "number" ? body["@odata.count"] : undefined),
  idOf: (item) => {
    const id = (item as { id?: unknown }).id;
    return typeof id === "string" ? id : undefined;
  },
};

export function graphHttp(o: {
  config: EntraConfig;
  ca: string[] | undefined;
  authorize: () => Promise<string>;
  renew?: (refused: string) => Promise<void>;
  logger: Logger;
}): DirectoryHttp {
  const { config } = o;
  return new DirectoryHttp({
    directory: GRAPH,
    origin: config.graphUrl,
    authorize: o.authorize,
    ...(o.renew ? { renew: o.renew } : {}),
    // The advanced query parameters: an index that may lag, but one that counts (aad-advanced-queries).
    headers: { ConsistencyLevel: "eventual" },
    concurrency: config.concurrency,
    timeoutMs: config.timeoutMs,
    maxThrottleWaitMs: config.throttleBudgetMs,
    logger: o.logger,
    ...(o.ca !== undefined ? { ca: o.ca } : {}),
  });
}

/** `{graphUrl}/v1.0/{path}?{query}` with the values encoded as Graph documents them. */
export function graphUrl(config: EntraConfig, path: string, query: Record<string, string>): string {
  const q = Object.entries(query)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join("&");
  return `${config.graphUrl.replace(/\/$/, "")}/v1.0/${path}${q ? `?${q}` : ""}`;
}

/** A whole listing, proved: every page followed, the rows matching Graph's count. */
export async function listAll(
  http: DirectoryHttp,
  first: string,
  what: string,
): Promise<{ items: unknown[]; tally: ReadTally }> {
  return readAll({
    first,
    rule: GRAPH_PAGES,
    get: async (url) => {
      const a = await http.get<GraphPage>(url, what);
      return { body: a.body, headers: a.headers };
    },
    tally: new Tally(what),
  });
}

/** Graph's `{error: {code, message}}`, or what there is. */
export function graphErrorOf(err: DirectoryHttpError): { code: string; message: string } {
  const e = (err.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return {
    code: typeof e?.code === "string" ? e.code : `HTTP ${err.status}`,
    message: typeof e?.message === "string" ? e.message : String(err.body ?? "").slice(0, 200),
  };
}

/**
 * A refusal Graph will give again until someone changes a setting: the fix, named. `about` is what
 * the request was for (`source.entra.groups[1].filter`), `what` the read in words.
 */
export function setupError(err: unknown, o: { config: EntraConfig; what: string; about?: string }): unknown {
  if (!(err instanceof DirectoryHttpError)) return err;
  const { code, message } = graphErrorOf(err);
  const said = `${GRAPH} answered ${err.status} ${code} to ${o.what}: ${message}`;
  const app = `the app registration ${o.config.clientId}`;
  let fix: string;
  if (err.status === 403 || code === "Authorization_RequestDenied")
    fix = `give ${app} the Microsoft Graph application permissions GroupMember.Read.All and User.Read.All, and grant admin consent (docs/entra.md)`;
  else if (err.status === 401)
    fix = `the token was refused: check that source.entra.graphUrl and authorityHost are the same cloud, and that ${app} has admin consent`;
  else if (err.status === 404 && o.about !== undefined)
    fix = `no such group: check ${o.about} (a group's object id, from the Entra admin center)`;
  else if (err.status === 400 && o.about !== undefined)
    fix = `Graph rejected the query: correct ${o.about} (Graph's $filter syntax, e.g. startswith(displayName,'Analytics-'))`;
  else fix = "check source.entra and docs/entra.md";
  // A rule's group that Graph does not have: a mistake, unless one that had members is gone.
  if (err.status === 404 && o.about !== undefined)
    return new NoSuchGroupError({ message: `${said}. Fix: ${fix}` });
  return new DirectoryError({ message: `${said}. Fix: ${fix}` });
}
