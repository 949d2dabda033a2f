/**
 * Broken answers (issue 20): a success status with a body that cannot be believed, the way
 * gateways, load balancers and single-page-app fallbacks answer now and then. The handler has run
 * (a write landed); only what is sent back is broken. `repeatPage` is the one mode that acts
 * before the handler: it asks the handler for page 0 whatever page was asked.
 */
import type { ServerResponse } from "node:http";
import { isObject, JSON_TYPE, type Reply } from "./http-util.js";
import type { BrokenAnswerMode, BrokenAnswerRule } from "./types.js";

export const BROKEN_ANSWER_MODES: readonly BrokenAnswerMode[] = [
  "html",
  "dataNull",
  "truncated",
  "oversize",
  "repeatPage",
  "emptyPage",
  "trickle",
];
export const DEFAULT_TRICKLE_MS = 500;
export const DEFAULT_OVERSIZE_BYTES = 50 * 1024 * 1024;

/** What a sign-in redirect of a single-page app, served with 200 to an API client, looks like. */
const SIGN_IN_PAGE =
  '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head>\n' +
  '<body><div id="app"><h1>Please log in</h1><form method="post" action="/login"></form></div></body></html>\n';
const PAD_CHUNK = Buffer.alloc(64 * 1024, " ");

type Headers = Record<string, string | number>;

/** The URL the handler answers: `repeatPage` turns every page of a listing into page 0. */
export function brokenUrl(rule: BrokenAnswerRule | undefined, url: string): string {
  const at = url.indexOf("?");
  if (rule?.mode !== "repeatPage" || at < 0) return url;
  const query = new URLSearchParams(url.slice(at + 1));
  if (!query.has("page")) return url;
  query.set("page", "0");
  return `${url.slice(0, at)}?${query.toString()}`;
}

/** Writes the broken form of a successful `reply` (headers already include the rate-limit ones). */
export function writeBroken(
  res: ServerResponse,
  o: { reply: Reply; headers: Headers; rule: BrokenAnswerRule; url: string },
): void {
  const { reply, headers, rule } = o;
  const json = JSON.stringify(reply.body ?? null);
  const type = reply.contentType ?? JSON_TYPE;
  switch (rule.mode) {
    case "html":
      return send(res, { status: 200, headers, type: "text/html; charset=utf-8", text: SIGN_IN_PAGE });
    case "dataNull": {
      // A JSON:API document keeps its other members; any other answer (the IdP list, the profile) is just that.
      const body =
        isObject(reply.body) && "data" in reply.body ? { ...reply.body, data: null } : { data: null };
      return send(res, { status: reply.status, headers, type, text: JSON.stringify(body) });
    }
    case "truncated":
      return send(res, {
        status: reply.status,
        headers,
        type,
        text: json.slice(0, Math.ceil(json.length / 2)),
      });
    case "emptyPage":
      return send(res, {
        status: reply.status,
        headers,
        type,
        text: JSON.stringify(emptied(reply.body, o.url)),
      });
    case "oversize":
      return oversize(
        res,
        { status: reply.status, headers, type, text: json },
        rule.bytes ?? DEFAULT_OVERSIZE_BYTES,
      );
    case "trickle":
      return trickle(
        res,
        { status: reply.status, headers, type, text: json },
        rule.intervalMs ?? DEFAULT_TRICKLE_MS,
      );
    case "repeatPage":
      return send(res, { status: reply.status, headers, type, text: json });
  }
}

interface Out {
  status: number;
  headers: Headers;
  type: string;
  text: string;
}

function send(res: ServerResponse, o: Out): void {
  res.writeHead(o.status, {
    ...o.headers,
    "Content-Type": o.type,
    "Content-Length": Buffer.byteLength(o.text),
  });
  res.end(o.text);
}

/**
 * A page between the first and the last (any page after the first without totals) loses its items:
 * a JSON:API page's `data`, or a userManagement page's `userGroups`/`users` (totals: `totalCount`).
 */
function emptied(body: unknown, url: string): unknown {
  if (!isObject(body)) return body;
  const query = new URL(url, "http://x").searchParams;
  const page = Number(query.get("page") ?? 0);
  const member = ["data", "userGroups", "users"].find((m) => Array.isArray(body[m]));
  if (member === undefined) return body;
  const middle = page >= 1 && (totalPagesOf(body, Number(query.get("size"))) ?? Infinity) - 1 > page;
  return middle ? { ...body, [member]: [] } : body;
}

function totalPagesOf(body: Record<string, unknown>, size: number): number | undefined {
  const meta = body["meta"];
  if (isObject(meta) && isObject(meta["page"]) && typeof meta["page"]["totalPages"] === "number")
    return meta["page"]["totalPages"];
  if (typeof body["totalCount"] === "number" && size > 0) return Math.ceil(body["totalCount"] / size);
  return undefined;
}

/** The JSON, then spaces up to `bytes` (still valid JSON), sent chunked: no Content-Length to go by. */
function oversize(res: ServerResponse, o: Out, bytes: number): void {
  res.writeHead(o.status, { ...o.headers, "Content-Type": o.type });
  let left = Math.max(0, bytes - Buffer.byteLength(o.text));
  res.write(o.text);
  const pump = (): void => {
    while (left > 0 && !res.destroyed) {
      const chunk = left >= PAD_CHUNK.length ? PAD_CHUNK : PAD_CHUNK.subarray(0, left);
      left -= chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

/** The whole answer, one byte every `intervalMs`: each chunk comes in time, the answer never does. */
function trickle(res: ServerResponse, o: Out, intervalMs: number): void {
  const body = Buffer.from(o.text);
  res.writeHead(o.status, { ...o.headers, "Content-Type": o.type, "Content-Length": body.length });
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    res.write(body.subarray(sent, sent + 1));
    sent += 1;
    if (sent >= body.length) {
      clearInterval(timer);
      res.end();
    }
  }, intervalMs);
  res.once("close", () => clearInterval(timer));
}
