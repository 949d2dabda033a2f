/**
 * How a directory source reaches its identity platform outside the directory's API, with the CA
 * the source trusts: Google's token endpoints (the fetch google-auth-library is given) and
 * Entra's discovery document (one GET, to tell a misspelled tenant from an unreachable
 * platform). The directory's API itself is DirectoryHttp's (directory-http.ts); the token
 * requests each library makes its own way (retries, caching) stay the library's. What they share
 * here: undici, the source's CA bundle (`caFile` added to Node's roots, never replacing them), no
 * silent retries.
 */
import { readFile } from "node:fs/promises";
import { rootCertificates } from "node:tls";
import { Agent, fetch as undiciFetch, request } from "undici";
import { DirectoryError } from "../../errors.js";

/** The CA bundle of a source: `file`'s CAs added to Node's roots; undefined without a file. */
export async function readSourceCa(file: string | undefined, setting: string): Promise<string[] | undefined> {
  if (file === undefined) return undefined;
  try {
    return [...rootCertificates, await readFile(file, "utf8")];
  } catch (err) {
    throw new DirectoryError({
      message: `${setting} ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): check the path and its permissions`,
    });
  }
}

/** What an identity library passes its fetch: a URL (or Request-like) and the init. */
export type PlatformFetch = (input: unknown, init?: Record<string, unknown>) => Promise<Response>;

/**
 * A fetch for an identity library that takes one (google-auth-library's gaxios): every request
 * over one agent with the source's CA, to `redirect(url)` (a stand-in's token endpoint in place
 * of the library's fixed one). The library's own Node `agent` option is dropped: undici's
 * dispatcher carries the CA.
 */
export function platformFetch(o: { ca?: string[]; redirect?: (url: string) => string }): PlatformFetch {
  const dispatcher = new Agent(o.ca ? { connect: { ca: o.ca } } : {});
  return (input, init) => {
    const url = String(input instanceof URL ? input.href : input);
    const { agent: _agent, ...rest } = init ?? {};
    return undiciFetch(o.redirect ? o.redirect(url) : url, {
      ...(rest as object),
      dispatcher,
    } as Parameters<typeof undiciFetch>[1]) as unknown as Promise<Response>;
  };
}

/**
 * The status of one GET of a platform document (its body read and dropped), within `timeoutMs`.
 * Rejects when the platform cannot be reached (the caller tells an outage from a typo).
 */
export async function platformStatus(
  url: string,
  o: { ca?: string[] | undefined; timeoutMs: number },
): Promise<number> {
  const agent = new Agent({ connect: o.ca !== undefined ? { ca: o.ca } : {} });
  try {
    const res = await request(url, { dispatcher: agent, signal: AbortSignal.timeout(o.timeoutMs) });
    await res.body.text();
    return res.statusCode;
  } finally {
    await agent.close();
  }
}
