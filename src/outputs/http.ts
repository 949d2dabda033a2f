/**
 * The one HTTP helper of the destinations that are not the service: the in-cluster Kubernetes
 * API (password Secrets) and a Pushgateway (metrics). The service has its own client
 * (service/transport.ts) with retries, pacing and answer checks; these destinations get none of
 * that here, because each caller decides what a failure means (a Secret that cannot be written
 * stops the run before the user's create; a failed push is a warning). What they share: undici,
 * an optional CA of their own, a deadline for the answer's headers and again for its body.
 */
import { Agent, request } from "undici";

export interface HttpRequest {
  method: "GET" | "POST" | "PUT";
  headers: Record<string, string>;
  /** Sent as it is. */
  body?: string;
  /** For the answer's headers, and again for its body. */
  timeoutMs: number;
}

export interface HttpAnswer {
  status: number;
  body: { text(): Promise<string>; json(): Promise<unknown> };
}

export interface HttpDestination {
  /** Rejects when the destination cannot be reached; an answer of any status resolves. */
  send(url: string, req: HttpRequest): Promise<HttpAnswer>;
  close(): Promise<void>;
}

/** `ca` (PEM): the only CA trusted for this destination (a cluster's own); else the system's. */
export function httpDestination(options: { ca?: string } = {}): HttpDestination {
  const dispatcher = options.ca === undefined ? undefined : new Agent({ connect: { ca: options.ca } });
  return {
    async send(url, req) {
      const res = await request(url, {
        method: req.method,
        headers: req.headers,
        ...(req.body === undefined ? {} : { body: req.body }),
        ...(dispatcher === undefined ? {} : { dispatcher }),
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      });
      return { status: res.statusCode, body: res.body };
    },
    close: async () => {
      await dispatcher?.close();
    },
  };
}
