/**
 * `usersync campaign decide`: reviewers' decisions checked against the campaign and merged into
 * one decisions file (docs/audits.md, "Deciding"). Any problem (a row not in the snapshot, a
 * reviewer deciding a row not theirs, a conflict, a bad change) stops it with every problem listed,
 * nothing written (exit 4). Prints coverage per reviewer.
 */
import { access } from "node:fs/promises";
import { ConfigError, ExitCode, InputError, type Problem } from "../../errors.js";
import { prepareOutputPaths, writeFileAtomic } from "../../files.js";
import {
  coverage,
  mergeDecisions,
  type Coverage,
  type DecisionsInput,
} from "../../review/campaign/decisions.js";
import { CAMPAIGN_FORMAT_VERSION, type Campaign, type DecisionsFile } from "../../review/campaign/types.js";
import { stringOption } from "../args.js";
import { decisionsFromCsvFile, decisionsFromJson, firstText, readBytes, readCampaignFile } from "./files.js";
import { need, type StepInput } from "./need.js";

const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  );

async function readInput(file: string, campaign: Campaign, reviewer: string | undefined, now: string) {
  // JSON (the page's download) is read whole; a CSV a record at a time (it may be the whole campaign's).
  if (/^\s*\{/.test(await firstText(file, "decisions"))) {
    const { text } = await readBytes(file, "decisions");
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new InputError({ message: `${file}: not JSON (${(err as Error).message}).` });
    }
    return { input: decisionsFromJson(file, value, campaign), problems: [] as Problem[] };
  }
  if (reviewer === undefined)
    throw new ConfigError({
      message: `${file} is a CSV: say whose decisions it holds with --reviewer EMAIL (one of ${campaign.reviewers.map((r) => r.email).join(", ") || "nobody: no row is assigned"}).`,
    });
  return decisionsFromCsvFile(file, { reviewer, decidedAt: now });
}

export function coverageLines(c: Coverage): string[] {
  const pct = (n: number, of: number): string => (of === 0 ? "100%" : `${Math.floor((n * 100) / of)}%`);
  return [
    `coverage: ${c.decided} of ${c.rows} row(s) decided (${pct(c.decided, c.rows)}): keep ${c.byDecision.keep}, revoke ${c.byDecision.revoke}, change ${c.byDecision.change}${c.unassigned > 0 ? `; ${c.unassigned} row(s) have no reviewer` : ""}`,
    ...c.reviewers.map(
      (r) =>
        `  ${r.email}: ${r.decided} of ${r.assigned} decided (${pct(r.decided, r.assigned)}), ${r.pending} pending`,
    ),
  ];
}

export async function runDecide(step: StepInput): Promise<number> {
  const usage =
    "usersync campaign decide --campaign CAMPAIGN.json --decisions DECISIONS.json [--reviewer EMAIL] FILE...";
  const campaign = await readCampaignFile(need(step, "campaign", "decide", usage));
  const out = need(step, "decisions", "decide", usage);
  const reviewer = stringOption(step.values, "reviewer")?.toLowerCase();
  const now = new Date().toISOString();
  const existing = (await exists(out))
    ? decisionsFromJson(out, JSON.parse((await readBytes(out, "--decisions")).text), campaign.value)
    : undefined;
  const inputs: DecisionsInput[] = [];
  const problems: Problem[] = [];
  for (const file of step.files) {
    const read = await readInput(file, campaign.value, reviewer, now);
    inputs.push(read.input);
    problems.push(...read.problems);
  }
  const before = (existing?.decisions ?? []).map(({ field: _field, line: _line, ...d }) => d);
  const merged = mergeDecisions(campaign.value, before, inputs);
  problems.push(...merged.problems);
  // A ConfigError: the hint for InputError sends a person to `validate`, which does not read decisions.
  if (problems.length > 0)
    throw new ConfigError({
      message: `${problems.length} problem(s) in the decisions; nothing was merged. Fix them and run again.`,
      problems,
    });
  await prepareOutputPaths({ "--decisions": out });
  const file: DecisionsFile = {
    formatVersion: CAMPAIGN_FORMAT_VERSION,
    kind: "usersync-campaign-decisions",
    campaign: campaign.value.id,
    digest: campaign.value.snapshot.digest,
    decisions: merged.decisions,
  };
  await writeFileAtomic(out, `${JSON.stringify(file, null, 2)}\n`);
  const added = merged.decisions.length - (existing?.decisions.length ?? 0);
  step.runtime.io.stdout.write(
    `${[`merged ${step.files.length} file(s) into ${out}: ${added} new decision(s), ${merged.replaced} replaced by their reviewer`, ...coverageLines(coverage(campaign.value, merged.decisions))].join("\n")}\n`,
  );
  return ExitCode.ok;
}
