/** A tiny HTTP helper for the emulator tests: real requests over 127.0.0.1, parsed answers. */
import type { EmulatorHandle } from "../../src/emulator/index.js";

export const JSON_API = "application/vnd.gooddata.api+json";

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read into answers freely
  json: any;
}

export interface CallOptions {
  body?: unknown;
  /** Defaults to application/json for /auth paths and the JSON:API type otherwise. */
  contentType?: string;
  /** Default "dev-token"; null sends no Authorization header. */
  token?: string | null;
}

export async function call(
  emu: Pick<EmulatorHandle, "url">,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const token = opts.token === undefined ? "dev-token" : opts.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (opts.body !== undefined) {
    headers["content-type"] = opts.contentType ?? (path.includes("/auth/") ? "application/json" : JSON_API);
  }
  const res = await fetch(emu.url + path, {
    method,
    headers,
    ...(opts.body !== undefined
      ? { body: typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body) }
      : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export const userDoc = (id: string, attributes: Record<string, unknown> = {}, groups?: string[]) => ({
  data: {
    id,
    type: "user",
    attributes,
    ...(groups
      ? { relationships: { userGroups: { data: groups.map((g) => ({ id: g, type: "userGroup" })) } } }
      : {}),
  },
});

export const groupDoc = (id: string, name?: string, parents?: string[]) => ({
  data: {
    id,
    type: "userGroup",
    ...(name !== undefined ? { attributes: { name } } : {}),
    ...(parents
      ? { relationships: { parents: { data: parents.map((g) => ({ id: g, type: "userGroup" })) } } }
      : {}),
  },
});
