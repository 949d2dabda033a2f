/**
 * The API token: from `target.tokenFile`, else the variable `target.tokenEnv` names; never from
 * the config file or a flag, and never in a message.
 */
import { readFile } from "node:fs/promises";
import { configError } from "./config-error.js";
import type { Origin } from "./layers.js";
import type { Config } from "./schema.js";

export async function readToken(
  config: Config,
  env: NodeJS.ProcessEnv,
  originOf: (path: string) => Origin,
): Promise<string | undefined> {
  const { tokenFile, tokenEnv } = config.target;
  if (tokenFile !== undefined) {
    let text: string;
    try {
      text = await readFile(tokenFile, "utf8");
    } catch (err) {
      const code = (err as { code?: string }).code ?? "unknown error";
      throw configError([
        {
          ...originOf("target.tokenFile"),
          field: "target.tokenFile",
          rule: "token-file",
          message: `cannot read the token file ${tokenFile} (${code})`,
        },
      ]);
    }
    const token = text.trim();
    if (token === "")
      throw configError([
        {
          ...originOf("target.tokenFile"),
          field: "target.tokenFile",
          rule: "token-file",
          message: `the token file ${tokenFile} is empty`,
        },
      ]);
    return token;
  }
  const fromEnv = env[tokenEnv]?.trim();
  return fromEnv === undefined || fromEnv === "" ? undefined : fromEnv;
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
