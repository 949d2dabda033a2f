/** Writing output files atomically (temp file + rename), so a reader never sees half a file. */
import { constants } from "node:fs";
import { access, mkdir, rename, writeFile, rm, stat } from "node:fs/promises";
import { dirname, basename, join } from "node:path";
import { ConfigError } from "./errors.js";

let counter = 0;

export async function writeFileAtomic(path: string, content: string, mode = 0o644): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // Unique per process and call: two writes of one file never share a temp file.
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${++counter}.tmp`);
  try {
    await writeFile(tmp, content, { mode });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/**
 * Every output path option (--out, --report, --journal, --credentials-file, --metrics-file and
 * their config keys) is checked before anything is sent: its folder is created, and a folder
 * that cannot be created or written, or a path that is a folder, is a configuration error
 * (exit 4) naming the option, instead of an "unexpected error: ENOENT" after the run.
 */
export async function prepareOutputPaths(paths: Record<string, string | undefined>): Promise<void> {
  for (const [option, path] of Object.entries(paths)) {
    if (path === undefined || path === "") continue;
    const folder = dirname(path);
    try {
      await mkdir(folder, { recursive: true });
      await access(folder, constants.W_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "error";
      throw new ConfigError({
        message: `${option} ${path}: its folder ${folder} cannot be created or written (${code}). Choose another path or fix the folder's permissions.`,
      });
    }
    const existing = await stat(path).catch(() => undefined);
    if (existing?.isDirectory()) {
      throw new ConfigError({
        message: `${option} ${path} is a folder; give a file name (e.g. ${join(path, "out.json")}).`,
      });
    }
  }
}
