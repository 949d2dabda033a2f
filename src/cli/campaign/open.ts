/**
 * `usersync campaign open`: a campaign from a review snapshot (docs/audits.md, "Opening"). Every
 * row gets its reviewer(s) from `review.reviewers`; the rows no rule assigns are listed on stdout
 * and in the campaign's `unassigned`, never dropped.
 */
import { join } from "node:path";
import { ConfigError, ExitCode } from "../../errors.js";
import { prepareOutputPaths, writeChunksAtomic } from "../../files.js";
import { openCampaign } from "../../review/campaign/open.js";
import { campaignCsvChunks } from "../../report/campaign/csv.js";
import { decisionPageChunks } from "../../report/campaign/html.js";
import { prettyJsonChunks } from "../../report/pretty-json.js";
import type { Campaign } from "../../review/campaign/types.js";
import { intOption, stringOption } from "../args.js";
import { DEFAULT_PAGE_ROWS, SINGLE_PAGE_MAX_ROWS } from "../../report/campaign/pages.js";
import { checkPagesFolder, writePagesFolder } from "./pages.js";
import { readSnapshot } from "./files.js";
import { maybe, need, type StepInput } from "./need.js";

/** `due` as a date: a date as given, or `<n>d` days after `openedAt` (UTC). */
export function dueDate(due: string | undefined, openedAt: string): string | undefined {
  if (due === undefined) return undefined;
  const days = /^(\d+)d$/.exec(due);
  if (days !== null)
    return new Date(Date.parse(openedAt) + Number(days[1]) * 86_400_000).toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(due) || Number.isNaN(Date.parse(due)))
    throw new ConfigError({ message: `--due ${due}: give a date (2027-01-15) or days after opening (14d).` });
  return due;
}

/** `JSON.stringify(campaign, null, 2)` and a newline, row by row (report/pretty-json.ts). */
export function* campaignJsonChunks(campaign: Campaign): Generator<string> {
  yield* prettyJsonChunks(campaign, 2);
  yield "\n";
}

export async function runOpen(step: StepInput): Promise<number> {
  const usage =
    "usersync campaign open --review SNAPSHOT.json --campaign CAMPAIGN.json [--csv FILE] [--html FILE | --html-dir DIR]";
  const reviewFile = need(step, "review", "open", usage);
  const out = need(step, "campaign", "open", usage);
  const csv = maybe(step, "csv");
  const html = maybe(step, "html");
  const htmlDir = maybe(step, "html-dir");
  const rowsPerPage = pageRows(step);
  const { config, logger, io } = step.runtime;
  const openedAt = new Date().toISOString();
  const due = dueDate(stringOption(step.values, "due") ?? config.review.due, openedAt);
  const review = await readSnapshot(reviewFile);
  await prepareOutputPaths({ "--campaign": out, "--csv": csv, "--html": html });
  if (htmlDir !== undefined) await checkPagesFolder("--html-dir", htmlDir);
  const campaign = openCampaign({
    snapshot: review.value,
    file: reviewFile,
    sha256: review.sha256,
    openedAt,
    due,
    rules: config.review.reviewers,
    // The snapshot is spent: its rows go as the campaign's are made (never held twice).
    release: true,
  });
  if (html !== undefined) refuseLargePage(html, campaign.rows.length, htmlDir !== undefined);
  // Each file in pieces of about 64 KiB (files.ts): a large campaign is never one string.
  await writeChunksAtomic(out, campaignJsonChunks(campaign));
  if (csv !== undefined) await writeChunksAtomic(csv, campaignCsvChunks(campaign));
  if (html !== undefined) await writeChunksAtomic(html, decisionPageChunks(campaign));
  const pages = htmlDir === undefined ? 0 : await writePagesFolder(htmlDir, campaign, rowsPerPage);
  const lines = [
    `campaign ${campaign.id} opened: ${campaign.rows.length} row(s), ${campaign.reviewers.length} reviewer(s)${due !== undefined ? `, due ${due}` : ""}`,
    ...campaign.reviewers.map((r) => `  ${r.email}: ${r.rows} row(s)`),
  ];
  if (htmlDir !== undefined)
    lines.push(
      `  decision pages: ${join(htmlDir, "index.html")} (${pages - 1} reviewer page(s), at most ${rowsPerPage} rows each)`,
    );
  if (campaign.unassigned.length > 0) {
    lines.push(
      `  nobody is assigned ${campaign.unassigned.length} row(s); name their reviewers in review.reviewers (a default catches them all):`,
    );
    for (const id of campaign.unassigned.slice(0, 20)) lines.push(`    ${id}`);
    if (campaign.unassigned.length > 20)
      lines.push(`    ... and ${campaign.unassigned.length - 20} more (the campaign file lists them all)`);
    logger.warn({ unassigned: campaign.unassigned.length }, "rows without a reviewer");
  }
  io.stdout.write(`${lines.join("\n")}\n`);
  return ExitCode.ok;
}

/** `--html-rows N`: the rows on a reviewer's page of `--html-dir` (at least 1). */
function pageRows(step: StepInput): number {
  const n = intOption(step.values, "html-rows");
  if (n === undefined) return DEFAULT_PAGE_ROWS;
  if (n < 1) throw new ConfigError({ message: "--html-rows takes a number of rows of at least 1." });
  return n;
}

/**
 * One page holding every row is for a small campaign: past SINGLE_PAGE_MAX_ROWS rows (about 11
 * MiB) it would take a browser long to open, and at 100,000 people (567 MiB) none can. Refused
 * before anything is written (exit 4), pointing to the pages.
 */
export function refuseLargePage(html: string, rows: number, dirToo: boolean): void {
  if (rows <= SINGLE_PAGE_MAX_ROWS) return;
  throw new ConfigError({
    message: `--html ${html}: the campaign has ${rows} rows, too many for one page (at most ${SINGLE_PAGE_MAX_ROWS}: past that a browser is slow to open one page, and at 100,000 people it cannot). ${dirToo ? "Leave out --html: --html-dir writes" : "Give --html-dir DIR instead:"} an index and each reviewer's rows on pages of their own. Nothing was written.`,
  });
}
