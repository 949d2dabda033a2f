/** One directory answer read and checked: its headers flat, its body capped and parsed (directory-http.ts); and the pacer that sees every answer. */

export interface DirectoryAnswer<B = unknown> {
  status: number;
  headers: Record<string, string>;
  body: B;
}

/** A shared quota's pacing, per request URL (Okta's families): may wait before a request; sees every answer. */
export interface Pacer {
  beforeRequest(url: URL): Promise<void>;
  /** True: a 429 the pacer itself waits out (no run-wide pause). */
  observe(answer: { status: number; headers: Readonly<Record<string, string>> }, url: URL): boolean | void;
  /** An attempt that got no usable answer (reset, timeout, not JSON): its place is free. */
  settled?(url: URL): void;
}

/** Why one attempt gave no usable answer; retried with backoff. */
export class Transient extends Error {}

export function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

export async function readCapped(
  res: { body: AsyncIterable<Buffer> & { on(event: "error", f: () => void): unknown; destroy(): void } },
  max: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.length;
    if (size > max) {
      res.body.on("error", () => {});
      res.body.destroy();
      throw new Transient(`the body is larger than ${max} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}

/**
 * A 2xx must be JSON that parses (a gateway's HTML page, a body cut short: retried). An error
 * status keeps whatever it carried: parsed JSON, else the start of the text, for the message.
 */
export function parseBody(status: number, headers: Record<string, string>, text: string): unknown {
  const json = /^application\/([a-z.+-]*\+)?json\b/i.test(headers["content-type"] ?? "");
  if (status >= 200 && status < 300) {
    if (!json)
      throw new Transient(`a ${status} answer of type ${headers["content-type"] ?? "(none)"}, not JSON`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Transient(`a ${status} answer whose JSON does not parse (cut short?)`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text.slice(0, 200);
  }
}
