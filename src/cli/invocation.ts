/**
 * How the person who ran this CLI runs it again, for the commands a hint prints: `usersync` when
 * that name on their PATH is this very CLI (a global install, the image's /usr/local/bin/usersync),
 * else `npx usersync` (a checkout, or a project's dependency), which is what works there.
 */
import { realpathSync } from "node:fs";
import { delimiter, join, sep } from "node:path";

let cached: string | undefined;

/** `usersync` or `npx usersync`, for this process. */
export function usersyncCommand(): string {
  cached ??= commandFor({ env: process.env, script: process.argv[1] });
  return cached;
}

export function commandFor(options: { env: NodeJS.ProcessEnv; script: string | undefined }): string {
  const self = realpath(options.script);
  if (self === undefined) return "npx usersync";
  for (const dir of (options.env["PATH"] ?? "").split(delimiter)) {
    // npm and npx put node_modules/.bin on the PATH of what they run, not of the person's shell.
    if (dir === "" || dir.endsWith(`node_modules${sep}.bin`)) continue;
    if (realpath(join(dir, "usersync")) === self) return "usersync";
  }
  return "npx usersync";
}

function realpath(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
