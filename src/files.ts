/** Writing output files atomically (temp file + rename), so a reader never sees half a file. */
import { constants } from "node:fs";
import { access, mkdir, open, rename, writeFile, rm, stat } from "node:fs/promises";
import { dirname, basename, join } from "node:path";
import { ConfigError, SafetyRefusal } from "./errors.js";

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

/** Pieces are gathered into writes of this many characters or more. */
const CHUNK_CHARS = 1 << 16;

/**
 * `writeFileAtomic` for text made in pieces (a large review): the pieces go to the temporary file
 * in writes of about 64 KiB as they come, so the whole text is never one string in memory.
 */
export async function writeChunksAtomic(path: string, chunks: Iterable<string>, mode = 0o644): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${++counter}.tmp`);
  try {
    const handle = await open(tmp, "w", mode);
    try {
      for (const batch of batched(chunks)) await handle.write(batch);
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** The pieces joined into strings of at least CHUNK_CHARS (the last may be shorter). */
export function* batched(chunks: Iterable<string>): Generator<string> {
  let parts: string[] = [];
  let size = 0;
  for (const c of chunks) {
    parts.push(c);
    size += c.length;
    if (size >= CHUNK_CHARS) {
      yield parts.join("");
      parts = [];
      size = 0;
    }
  }
  if (size > 0) yield parts.join("");
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

/**
 * A file that is appended to (the journal, the credentials file), checked as it is before
 * anything is sent, and without creating or writing anything: an existing one must open for
 * appending and, for root (who could write anything), have a write bit: a read-only file is a
 * configuration error (exit 4) naming the option and the path. A `secret` one (passwords) must
 * be a regular file and private: readable by group or others is refused (exit 3).
 * A file that does not exist yet is created later, its folder checked by prepareOutputPaths.
 */
export async function checkAppendTarget(option: string, path: string, secret: boolean): Promise<void> {
  const st = await stat(path).catch(() => undefined);
  if (st === undefined || st.isDirectory()) return; // a folder is said by prepareOutputPaths
  const refuse = (why: string): never => {
    throw new ConfigError({ message: `${option} ${path} ${why}. Nothing was sent.` });
  };
  const mode = (st.mode & 0o777).toString(8);
  // A journal may go to a device (/dev/stderr); passwords only to a file of their own.
  if (secret && !st.isFile()) refuse("is not a regular file; give the path of a file");
  if (st.isFile() && process.getuid?.() === 0 && (st.mode & 0o222) === 0)
    refuse(
      `is read-only (mode ${mode}) and is appended to: make it writable (chmod 600 ${path}) or choose another path`,
    );
  try {
    await (await open(path, constants.O_WRONLY | constants.O_APPEND)).close();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    refuse(
      `cannot be opened for appending (${code}): fix its permissions (chmod 600 ${path}) or choose another path`,
    );
  }
  if (secret && (st.mode & 0o077) !== 0)
    throw new SafetyRefusal({
      message: `${option} ${path} can be read or written by group or others (mode ${mode}) and would hold passwords: run chmod 600 ${path}, or choose another path. Nothing was sent.`,
    });
}
