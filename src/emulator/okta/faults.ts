/** The broken answers the stand-in gives on demand (`Fault` in types.ts), instead of the real one. */
import type { ServerResponse } from "node:http";
import { notFound, oktaError, type RouteReply } from "./routes.js";
import type { FaultKind } from "./types.js";

export type Send = (res: ServerResponse, reply: RouteReply, headers?: Record<string, string>) => void;

export function answerWithFault(o: {
  res: ServerResponse;
  reply: RouteReply;
  kind: FaultKind | undefined;
  send: Send;
  headers: Record<string, string>;
  /** The request's own path and query: where a link loop points. */
  self: string;
}): number {
  const { res, reply, headers } = o;
  switch (o.kind) {
    case undefined:
      o.send(res, reply, headers);
      return reply.status;
    case "html":
      res.writeHead(200, { "Content-Type": "text/html", ...headers });
      res.end("<html><body><h1>Service temporarily unavailable</h1></body></html>");
      return 200;
    case "truncated": {
      const text = JSON.stringify(reply.body);
      res.writeHead(200, { "Content-Type": "application/json", ...headers });
      res.end(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
      return 200;
    }
    case "link-loop":
      o.send(res, { ...reply, next: o.self }, headers);
      return reply.status;
    case "reset":
      res.socket?.destroy();
      return 0;
    case "empty":
      o.send(res, { status: 200, body: [] }, headers);
      return 200;
    case 404:
      o.send(res, notFound("(UserGroup)"), headers);
      return 404;
    case "expire-token": // answered by the token check before any fault
      o.send(res, reply, headers);
      return reply.status;
    case 429: // answered by the quota before any fault
    default:
      o.send(res, oktaError(o.kind, "E0000009", "Internal Server Error"), headers);
      return o.kind;
  }
}
