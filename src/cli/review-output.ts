/**
 * Where a review's files go (docs/audits.md): one format to `--out` or stdout, and with CSV to a
 * file, the organization permissions and the findings beside it. Every file is rendered from the
 * snapshot, for a review just listed as for one read back with `--from`, so both write the same
 * bytes.
 */
import { batched, writeChunksAtomic, writeFileAtomic } from "../files.js";
import type { Logger } from "pino";
import { fromSnapshot } from "../review/from-snapshot.js";
import type { Snapshot } from "../review/snapshot.js";
import type { Review } from "../review/types.js";
import {
  findingsCsvPath,
  organizationCsvPath,
  renderFindingsCsv,
  renderOrganizationCsv,
  reviewChunks,
  type ReviewFormat,
} from "../report/review/index.js";
import type { Io } from "./io.js";

/** The paths a run writes with this format and `--out`, by the name messages give them. */
export function reviewOutputPaths(out: string | undefined, format: ReviewFormat): Record<string, string> {
  if (out === undefined) return {};
  return {
    "--out": out,
    ...(format === "csv"
      ? {
          "--out (organization CSV)": organizationCsvPath(out),
          "--out (findings CSV)": findingsCsvPath(out),
        }
      : {}),
  };
}

/**
 * Renders the snapshot in `format` and writes it; returns the review model it was rendered from,
 * or undefined for JSON (the snapshot itself is written). The snapshot is spent: for any format
 * but JSON its rows move into that model as it is made (`fromSnapshot`'s release), so a large
 * review is never held twice (docs/benchmarks.md figure 16).
 */
export async function writeReview(
  snapshot: Snapshot,
  o: { format: ReviewFormat; out: string | undefined; io: Io; logger?: Logger | undefined },
): Promise<Review | undefined> {
  const review = o.format === "json" ? undefined : fromSnapshot(snapshot, { release: true });
  // In pieces of about 64 KiB as they are rendered: a large review is never one string.
  const chunks = reviewChunks(snapshot, review, o.format);
  if (o.out === undefined) for (const batch of batched(chunks)) o.io.stdout.write(batch);
  else {
    await writeChunksAtomic(o.out, chunks);
    if (o.format === "csv" && review !== undefined) {
      await writeFileAtomic(organizationCsvPath(o.out), renderOrganizationCsv(review));
      await writeFileAtomic(findingsCsvPath(o.out), renderFindingsCsv(review));
    }
    o.logger?.info({ file: o.out, digest: snapshot.header.digest }, "review saved");
  }
  return review;
}
