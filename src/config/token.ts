/**
 * Where a run's API token comes from (target.tokenFile, else the variable target.tokenEnv names)
 * and the checks of a service URL: shared by the one target of a plain config and by each entry
 * of `targets:` (targets.ts), so both refuse the same things with the same words.
 */
import { readFile } from "node:fs/promises";
import { configError } from "./config-error.js";
import type { Origin } from "./layers.js";
import type { Config } from "./schema.js";

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

/**
 * The run's API token (one target): from `target.tokenFile`, else the variable `target.tokenEnv`
 * names; never from the config file or a flag, and never in a message. With `targets:`, each
 * target reads its own (targets.ts) and a `{target}` path is a template: nothing to read here.
 */
export async function readToken(
  config: Config,
  env: NodeJS.ProcessEnv,
  originOf: (path: string) => Origin,
): Promise<string | undefined> {
  if (config.targets.length > 0 || config.target.tokenFile?.includes("{target}")) return undefined;
  const read = await readTokenFrom(config.target, env);
  if (read.problem !== undefined)
    throw configError([
      {
        ...originOf("target.tokenFile"),
        field: "target.tokenFile",
        rule: "token-file",
        message: read.problem,
      },
    ]);
  return read.token;
}

/**
 * A token copied with its scheme (`Bearer eyJ…`, as curl examples show it) would be sent as
 * `Bearer Bearer …` and refused with a 401 that blames the token: the prefix is dropped, and a
 * warning says where it was (never the token).
 */
export function withoutScheme(
  token: string | undefined,
  target: Config["target"],
): { token: string | undefined; warning?: string } {
  const m = token === undefined ? null : /^Bearer\s+(\S.*)$/is.exec(token);
  if (m === null) return { token };
  const where = target.tokenFile !== undefined ? `the token file ${target.tokenFile}` : target.tokenEnv;
  return {
    token: m[1]!,
    warning: `the token in ${where} starts with "Bearer ": usersync adds the scheme itself and sends the token without it; store the token alone`,
  };
}
