/** Writing output files: atomically (temp file + rename), so a reader never sees half a file. */
import { mkdir, rename, writeFile, rm } from "node:fs/promises";
import { dirname, basename, join } from "node:path";

export async function writeFileAtomic(path: string, content: string, mode = 0o644): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  try {
    await writeFile(tmp, content, { mode });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
