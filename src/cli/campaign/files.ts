/**
 * The campaign's files read (docs/audits.md, "The campaign"): the review snapshot, the campaign,
 * decisions (JSON from the page, or the CSV from a spreadsheet). Each is read once, as bytes, so
 * its sha256 (the close-out's sign-off names every input by it) is of exactly what was used: a
 * snapshot or campaign a line at a time, its hash fed from the same read, and a reviewers' CSV a
 * record at a time (docs/benchmarks.md figure 16). A file that cannot be read or is not what it
 * should be is an InputError naming it (exit 4).
 */
import { createHash } from "node:crypto";
import { open, readFile, type FileHandle } from "node:fs/promises";
import { createReadStream } from "node:fs";
import { parse as parseStream } from "csv-parse";
import { InputError, type Problem } from "../../errors.js";
import { unneutraliseCell } from "../../desired/csv-cell.js";
import { snapshotDigest } from "../../review/canonical.js";
import { asSnapshot } from "../../review/from-snapshot.js";
import { rowSharer, shareRowParts } from "../../review/snapshot-intern.js";
import { campaignRowSharer } from "../../review/campaign/share.js";
import { readJsonLines, type Element } from "../snapshot-lines.js";
import type { Snapshot } from "../../review/snapshot.js";
import type { DecisionsInput } from "../../review/campaign/decisions.js";
import type { Campaign, DecisionKind, DecisionsFile } from "../../review/campaign/types.js";

export interface Read<T> {
  file: string;
  sha256: string;
  value: T;
}

export async function readBytes(file: string, what: string): Promise<{ text: string; sha256: string }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new InputError({
      message: `${what} ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`,
    });
  }
  return {
    text: bytes.toString("utf8"),
    sha256: `sha256:${createHash("sha256").update(bytes).digest("hex")}`,
  };
}

/**
 * A file laid out as usersync writes JSON, read a line at a time (cli/snapshot-lines.ts: a
 * snapshot or campaign of 100,000 people is never one string), hashed from the same read;
 * undefined when it is laid out otherwise, or is not a regular file (the caller reads it whole).
 */
async function readJsonLaidOut(
  file: string,
  element?: Element,
): Promise<{ value: unknown; sha256: string } | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file);
  } catch {
    return undefined;
  }
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    const hash = createHash("sha256");
    const value = await readJsonLines(handle, { onBytes: (bytes) => hash.update(bytes), element });
    return value === undefined ? undefined : { value, sha256: `sha256:${hash.digest("hex")}` };
  } finally {
    await handle.close();
  }
}

async function readJson(file: string, what: string, element?: Element): Promise<Read<unknown>> {
  const laidOut = await readJsonLaidOut(file, element);
  if (laidOut !== undefined) return { file, ...laidOut };
  const { text, sha256 } = await readBytes(file, what);
  try {
    return { file, sha256, value: JSON.parse(text) as unknown };
  } catch (err) {
    throw new InputError({ message: `${what} ${file}: not JSON (${(err as Error).message}).` });
  }
}

/** A review snapshot, its digest recomputed: a snapshot changed after it was written is refused (exit 4). */
export async function readSnapshot(file: string, what = "--review"): Promise<Read<Snapshot>> {
  // Each row's equal values shared as it is read (review/snapshot-intern.ts); whole: once read.
  const share = rowSharer();
  const read = await readJson(file, what, (key, value) => (key === "rows" ? share(value) : value));
  const snapshot = asSnapshot(read.value);
  if (typeof snapshot === "string")
    throw new InputError({
      message: `${what} ${file}: ${snapshot}. Give a snapshot saved with usersync review --format json --out FILE.`,
    });
  shareRowParts(snapshot);
  const recomputed = snapshotDigest(snapshot);
  if (recomputed !== snapshot.header.digest)
    throw new InputError({
      message: `${what} ${file}: its content does not match its digest (recorded ${snapshot.header.digest}, recomputed ${recomputed}): it was changed after it was written. Use the snapshot as usersync wrote it.`,
    });
  return { ...read, value: snapshot };
}

export async function readCampaignFile(file: string): Promise<Read<Campaign>> {
  // Each row's equal parts shared as it is read (review/campaign/share.ts).
  const share = campaignRowSharer();
  const read = await readJson(file, "--campaign", (key, value) => (key === "rows" ? share(value) : value));
  const c = read.value as Partial<Campaign> | null;
  if (c === null || typeof c !== "object" || c.kind !== "usersync-access-campaign" || !Array.isArray(c.rows))
    throw new InputError({
      message: `--campaign ${file}: not a usersync campaign (no "kind": "usersync-access-campaign"). Open one with usersync campaign open.`,
    });
  if (c.formatVersion !== 1)
    throw new InputError({
      message: `--campaign ${file}: formatVersion ${String(c.formatVersion)}; this usersync reads 1.`,
    });
  return { ...read, value: c as Campaign };
}

/** A decisions JSON file (the page's download, or a merged one). */
export function decisionsFromJson(file: string, value: unknown, campaign: Campaign): DecisionsInput {
  const d = value as Partial<DecisionsFile> | null;
  if (
    d === null ||
    typeof d !== "object" ||
    d.kind !== "usersync-campaign-decisions" ||
    !Array.isArray(d.decisions)
  )
    throw new InputError({
      message: `${file}: not a decisions file (no "kind": "usersync-campaign-decisions"): give the file the review page downloads, or the reviewers' CSV.`,
    });
  if (d.campaign !== campaign.id || d.digest !== campaign.snapshot.digest)
    throw new InputError({
      message: `${file}: decisions of campaign ${String(d.campaign)} (snapshot ${String(d.digest)}), not of this one (${campaign.id}, ${campaign.snapshot.digest}).`,
    });
  const name = file.split(/[\\/]/).pop()!;
  return {
    file,
    decisions: d.decisions.map((x, i) => ({
      ...x,
      reviewer: String(x.reviewer).toLowerCase(),
      from: x.from ?? name,
      field: `decisions[${i}]`,
    })),
  };
}

const DECISION = /^\s*(keep|revoke|change)\b[\s:]*(.*)$/i;

/** The first bytes of a file, as text (enough to tell a JSON file from a CSV); InputError if unreadable. */
export async function firstText(file: string, what: string): Promise<string> {
  try {
    const handle = await open(file);
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
      return buffer.subarray(0, bytesRead).toString("utf8");
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw new InputError({
      message: `${what} ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`,
    });
  }
}

/**
 * The reviewers' CSV file, parsed a record at a time as it is read (the whole campaign's CSV, a
 * million rows for 100,000 people, is never held as records: docs/benchmarks.md figure 16).
 */
export function decisionsFromCsvFile(
  file: string,
  who: { reviewer: string; decidedAt: string },
): Promise<{ input: DecisionsInput; problems: Problem[] }> {
  const records = createReadStream(file).pipe(parseStream(CSV_OPTIONS));
  return decisionsFromCsv(file, records as AsyncIterable<Record<string, string>>, who);
}

const CSV_OPTIONS = { columns: true, bom: true, skip_empty_lines: true, relax_column_count: true } as const;

/** The reviewers' CSV with its `decision` and `comment` columns filled; rows left empty are undecided. */
export async function decisionsFromCsv(
  file: string,
  records: AsyncIterable<Record<string, string>> | Iterable<Record<string, string>>,
  who: { reviewer: string; decidedAt: string },
): Promise<{ input: DecisionsInput; problems: Problem[] }> {
  const problems: Problem[] = [];
  const name = file.split(/[\\/]/).pop()!;
  const decisions: DecisionsInput["decisions"] = [];
  let i = -1;
  for await (const r of records) {
    i += 1;
    if (i === 0 && !("row_id" in r && "decision" in r))
      problems.push({
        file,
        line: 1,
        rule: "columns",
        message: "needs the columns row_id and decision (the CSV campaign open --csv writes)",
      });
    const cell = unneutraliseCell(r["decision"] ?? "").trim();
    if (cell === "") continue;
    const line = i + 2;
    const m = DECISION.exec(cell);
    if (m === null) {
      problems.push({
        file,
        line,
        field: "decision",
        rule: "bad-decision",
        message: `"${cell}": write keep, revoke, or change followed by the permissions to keep (change VIEW)`,
      });
      continue;
    }
    const kind = m[1]!.toLowerCase() as DecisionKind;
    const permissions = m[2]!
      .split(/[\s,+]+/)
      .filter((p) => p !== "")
      .map((p) => p.toUpperCase());
    const comment = unneutraliseCell(r["comment"] ?? "").trim();
    decisions.push({
      rowId: unneutraliseCell(r["row_id"] ?? "").trim(),
      decision: kind,
      ...(kind === "change" ? { permissions } : {}),
      ...(comment !== "" ? { comment } : {}),
      reviewer: who.reviewer,
      decidedAt: who.decidedAt,
      from: name,
      line,
      field: "decision",
    });
  }
  return { input: { file, decisions }, problems };
}
