/** Writing output files atomically (temp file + rename), so a reader never sees half a file. */
import { mkdir, rename, writeFile, rm } from "node:fs/promises";
import { dirname, basename, join } from "node:path";

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
