/** The broken answers the Google stand-in gives on demand (`GoogleFault` in types.ts) instead of the real one. */
import type { ServerResponse } from "node:http";
import { QUOTA_EXCEEDED } from "./access.js";
import type { GoogleDirectory, ListReply } from "./directory.js";
import { apiError, type GoogleTokens, type TokenReply } from "./token.js";
import type { GoogleFault, GoogleFaultKind } from "./types.js";

export type Send = (res: ServerResponse, reply: TokenReply) => void;

/** The first fault left that matches the request, spent once. */
export function takeFault(
  faults: (GoogleFault & { left?: number })[],
  self: string,
): GoogleFaultKind | undefined {
  const f = faults.find((x) => (x.left ?? x.times ?? Infinity) > 0 && x.match.test(self));
  if (!f) return undefined;
  f.left = (f.left ?? f.times ?? Infinity) - 1;
  return f.kind;
}

/** Faults that are a JSON answer of their own. */
function errorFault(kind: GoogleFaultKind): TokenReply | undefined {
  switch (kind) {
    case "quota":
      return QUOTA_EXCEEDED();
    case "rate":
      return apiError(429, "Rate Limit Exceeded", "rateLimitExceeded", "RESOURCE_EXHAUSTED");
    case "expired":
    case "revoked":
      return apiError(401, "Request had invalid authentication credentials.", "authError", "UNAUTHENTICATED");
    case 500:
      return apiError(500, "Internal error encountered.", "backendError", "INTERNAL");
    case 503:
      return apiError(503, "The service is currently unavailable.", "backendError", "UNAVAILABLE");
    case "not-found":
      return apiError(404, "Resource Not Found: groupKey", "notFound", "NOT_FOUND");
    default:
      return undefined;
  }
}

/** A list page changed: its token repeated, or emptied. */
function pageFault(kind: "repeat-token" | "empty", reply: ListReply, directory: GoogleDirectory): TokenReply {
  const body = reply.body as Record<string, unknown>;
  if (kind === "empty") {
    const { nextPageToken: _n, members: _m, users: _u, groups: _g, items: _i, ...rest } = body;
    return { status: 200, body: rest };
  }
  const list = reply.list;
  const again = list?.token ?? list?.again?.() ?? (list ? directory.token(list.key, 0) : undefined);
  return { status: 200, body: { ...body, ...(again ? { nextPageToken: again } : {}) } };
}

/** Sends the reply, or the fault asked for instead; the status to log (0: no answer). */
export function answer(o: {
  res: ServerResponse;
  reply: ListReply;
  kind: GoogleFaultKind | undefined;
  directory: GoogleDirectory;
  send: Send;
  tokens: GoogleTokens;
}): number {
  const { res, reply, kind } = o;
  if (kind === "revoked") o.tokens.expireAll();
  if (kind === undefined) {
    o.send(res, reply);
    return reply.status;
  }
  const error = errorFault(kind);
  if (error) {
    o.send(res, error);
    return error.status;
  }
  if (kind === "repeat-token" || kind === "empty") {
    o.send(res, pageFault(kind, reply, o.directory));
    return 200;
  }
  if (kind === "reset") {
    res.socket?.destroy();
    return 0;
  }
  const text =
    kind === "html"
      ? "<html><body>Service temporarily unavailable</body></html>"
      : JSON.stringify(reply.body);
  res.writeHead(200, { "Content-Type": kind === "html" ? "text/html" : "application/json" });
  res.end(kind === "html" ? text : text.slice(0, Math.max(1, Math.floor(text.length / 2))));
  return 200;
}
