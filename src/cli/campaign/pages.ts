/**
 * `campaign open --html-dir DIR`: the decision pages written as a folder (report/campaign/
 * pages.ts): an index and each reviewer's pages. The folder is checked before the campaign is
 * opened (new, empty, or pages usersync wrote before: nothing else is ever replaced), written
 * beside it under a temporary name a page at a time, then moved into place (writePagesFolder), so
 * a reader never sees half a page and a reviewer dropped since leaves no page behind.
 */
import { mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { ConfigError } from "../../errors.js";
import { writeChunksAtomic } from "../../files.js";
import {
  indexPageChunks,
  pageFiles,
  partPageChunks,
  PAGES_GENERATOR,
  reviewerParts,
  rowsByReviewer,
} from "../../report/campaign/pages.js";
import type { Campaign } from "../../review/campaign/types.js";

/** DIR may be written: it does not exist, is empty, or holds only pages a previous open wrote. */
export async function checkPagesFolder(option: string, dir: string): Promise<void> {
  const refuse = (why: string): never => {
    throw new ConfigError({ message: `${option} ${dir} ${why}. Nothing was written.` });
  };
  const st = await stat(dir).catch(() => undefined);
  if (st === undefined) {
    try {
      await mkdir(dirname(dir), { recursive: true });
    } catch (err) {
      refuse(`cannot be made: its parent folder cannot (${(err as NodeJS.ErrnoException).code ?? "error"})`);
    }
    return;
  }
  if (!st.isDirectory()) refuse("is a file: give a folder for the pages (a new one is made)");
  const entries = await readdir(dir);
  if (entries.length === 0) return;
  const index = await readFile(join(dir, "index.html"), "utf8").catch(() => "");
  const ours = index.includes(`<meta name="generator" content="${PAGES_GENERATOR}">`);
  if (!ours || entries.some((e) => !e.endsWith(".html")))
    refuse(
      "holds other files: give a new or empty folder (the pages replace a folder only when usersync campaign open wrote it)",
    );
}

/**
 * The index and every reviewer's pages into DIR. A new DIR is the staged folder renamed whole; an
 * existing one (its own permissions kept, a share's say) gets each page moved in, replacing the
 * page of that name, and loses the pages not written this time (a reviewer dropped since).
 * Returns the number of files written.
 */
export async function writePagesFolder(
  dir: string,
  campaign: Campaign,
  rowsPerPage: number,
): Promise<number> {
  const at = resolve(dir);
  const staging = join(dirname(at), `.${basename(at)}.${process.pid}.tmp`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  try {
    const reviewers = pageFiles(campaign.reviewers, rowsPerPage);
    const rowsOf = rowsByReviewer(campaign);
    await writeChunksAtomic(join(staging, "index.html"), indexPageChunks(campaign, reviewers, rowsPerPage));
    for (const r of reviewers) {
      let part = 0;
      for (const rows of reviewerParts(campaign, rowsOf.get(r.email)!, rowsPerPage)) {
        part += 1;
        const file = join(staging, r.files[part - 1]!);
        await writeChunksAtomic(file, partPageChunks(campaign, r, part, rows, rowsPerPage));
      }
    }
    const files = new Set(await readdir(staging));
    if ((await stat(at).catch(() => undefined)) === undefined) {
      await rename(staging, at);
      return files.size;
    }
    // The index last, so a folder with the new index holds every page it links.
    for (const f of [...files].filter((f) => f !== "index.html")) await rename(join(staging, f), join(at, f));
    await rename(join(staging, "index.html"), join(at, "index.html"));
    for (const f of await readdir(at)) if (!files.has(f) && f.endsWith(".html")) await rm(join(at, f));
    return files.size;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
