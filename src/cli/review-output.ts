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
  renderReviewCsv,
  reviewChunks,
  type ReviewFormat,
} from "../report/review/index.js";
import { ConfigError } from "../errors.js";
import { stringOption, type ParsedCommand } from "./args.js";
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

/** `--combined-csv FILE`, which joins the reviews of --all-targets (refused without it, exit 4). */
export function combinedCsvOption(command: ParsedCommand): string | undefined {
  const combined = stringOption(command.values, "combined-csv");
  if (combined !== undefined && command.values["all-targets"] !== true)
    throw new ConfigError({
      message: "--combined-csv joins the reviews of --all-targets: add --all-targets, or drop it.",
    });
  return combined;
}

/** The files `--combined-csv FILE` writes, by the name messages give them. */
export function combinedCsvPaths(combined: string): Record<string, string> {
  return {
    "--combined-csv": combined,
    "--combined-csv (organization)": organizationCsvPath(combined),
    "--combined-csv (findings)": findingsCsvPath(combined),
  };
}

/**
 * The combined CSV of many organizations' reviews (`--combined-csv` with --all-targets): each
 * organization's rows, in the order of their names, an organization column first; the header once.
 */
export async function writeCombinedCsv(combined: string, reviews: readonly Review[]): Promise<void> {
  const sorted = [...reviews].sort((a, b) => (a.snapshot.organization < b.snapshot.organization ? -1 : 1));
  const access = sorted.map((r, i) => renderReviewCsv(r, { organization: true, header: i === 0 })).join("");
  const org = sorted
    .map((r, i) => renderOrganizationCsv(r, { organization: true, header: i === 0 }))
    .join("");
  const findings = sorted
    .map((r, i) => renderFindingsCsv(r, { organization: true, header: i === 0 }))
    .join("");
  await writeFileAtomic(combined, access);
  await writeFileAtomic(organizationCsvPath(combined), org);
  await writeFileAtomic(findingsCsvPath(combined), findings);
}
