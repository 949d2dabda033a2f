/**
 * Where a run's API token comes from (target.tokenFile, else the variable target.tokenEnv names)
 * and the checks of a service URL: shared by the one target of a plain config and by each entry
 * of `targets:` (targets.ts), so both refuse the same things with the same words.
 */
import { readFile } from "node:fs/promises";

/** The token, or why it cannot be read (a message for the field the file came from). */
export async function readTokenFrom(
  t: { tokenFile?: string | undefined; tokenEnv: string },
  env: NodeJS.ProcessEnv,
): Promise<{ token?: string; problem?: string }> {
  if (t.tokenFile !== undefined) {
    let text: string;
    try {
      text = await readFile(t.tokenFile, "utf8");
    } catch (err) {
      const code = (err as { code?: string }).code ?? "unknown error";
      return { problem: `cannot read the token file ${t.tokenFile} (${code})` };
    }
    const token = text.trim();
    return token === "" ? { problem: `the token file ${t.tokenFile} is empty` } : { token };
  }
  const fromEnv = env[t.tokenEnv]?.trim();
  return fromEnv === undefined || fromEnv === "" ? {} : { token: fromEnv };
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** What is wrong with a service URL (`embedded` is not a URL and is fine), or undefined. */
export function urlProblem(
  baseUrl: string,
  allowInsecureHttp: boolean,
): { rule: string; message: string } | undefined {
  if (baseUrl === "embedded") return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { rule: "bad-url", message: `"${baseUrl}" is not a URL: use https://host[:port] or embedded` };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return { rule: "bad-url", message: `"${baseUrl}": only http and https URLs are supported` };
  if (url.username || url.password)
    return {
      rule: "bad-url",
      message:
        "must not contain a user name or password: the token comes from the environment or a token file",
    };
  if (url.protocol === "http:" && !LOOPBACK.test(url.hostname) && !allowInsecureHttp)
    return {
      rule: "insecure-http",
      message: `plain http:// to ${url.hostname} would send the token unencrypted: use https:// or set target.allowInsecureHttp: true`,
    };
  return undefined;
}
