/**
 * The end of a request: it is logged, then answered (its rate-limit headers, its JSON body), or its
 * answer is lost or sent broken, and the store's persistence is scheduled.
 */
import type { ServerResponse } from "node:http";
import { writeBroken } from "./broken-answers.js";
import type { FaultDecision } from "./faults.js";
import { JSON_TYPE, type Reply } from "./http-util.js";
import type { Persister } from "./persistence.js";
import { rateLimitHeaders, type RateLimitStatus } from "./rate-headers.js";
import type { RequestLog } from "./request-log.js";
import type { BrokenAnswerRule, RequestLogEntry } from "./types.js";

/** What happens to an answer once the handler has run: lost (`lose`) or broken. */
export interface After {
  fault?: FaultDecision["fault"];
  broken?: BrokenAnswerRule | undefined;
}

/** The function that ends one request: logs it, answers (or loses or breaks the answer), persists. */
export function finisher(o: {
  log: RequestLog;
  persister: Persister | undefined;
  res: ServerResponse;
  entry: RequestLogEntry;
  url: string;
}): (reply: Reply | undefined, rate: RateLimitStatus | undefined, after?: After) => void {
  const { res, entry, url } = o;
  return (reply, rate, after = {}) => {
    const lose = after.fault === "lose";
    // A broken answer (broken-answers.ts) is a successful one, sent broken.
    const broken = !lose && reply && reply.status < 300 ? after.broken : undefined;
    if (reply) entry.status = reply.status;
    if (lose || broken) entry.fault = broken?.mode ?? "lose";
    o.log.add(entry);
    if (lose || !reply) res.destroy();
    else writeAnswer(res, { reply, rate, ...(broken ? { broken: { rule: broken, url } } : {}) });
    o.persister?.schedule();
  };
}

export function writeAnswer(
  res: ServerResponse,
  o: {
    reply: Reply;
    rate?: RateLimitStatus | undefined;
    /** Send the (successful) reply broken, as `rule` says; `url` is the one asked. */
    broken?: { rule: BrokenAnswerRule; url: string };
  },
): void {
  const { reply, rate } = o;
  const headers: Record<string, string | number> = { ...reply.headers };
  if (rate) Object.assign(headers, rateLimitHeaders(rate));
  if (o.broken) return writeBroken(res, { reply, headers, ...o.broken });
  if (reply.body === undefined) {
    headers["Content-Length"] = 0;
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(reply.body);
  headers["Content-Type"] = reply.contentType ?? JSON_TYPE;
  headers["Content-Length"] = Buffer.byteLength(text);
  res.writeHead(reply.status, headers);
  res.end(text);
}
