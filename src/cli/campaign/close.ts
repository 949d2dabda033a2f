/**
 * `usersync campaign close`: the close-out evidence (docs/audits.md, "Close-out") from the
 * campaign, its decisions, the remedies, the remediation's apply journal(s) and a review listed
 * after remediation. Signed off by who closes it, with the sha256 of every input file; signed
 * (a detached JWS over its digest) when a key is given.
 */
import { userInfo } from "node:os";
import { createHash } from "node:crypto";
import { ConfigError, ExitCode, InputError } from "../../errors.js";
import { prepareOutputPaths, writeFileAtomic } from "../../files.js";
import { canonicalText } from "../../review/canonical.js";
import { closeOut, type CloseOut, type InputDigest, type JournalEntry } from "../../review/campaign/close.js";
import type { RowRemedy } from "../../review/campaign/remedies.js";
import {
  CLOSEOUT_FORMATS,
  renderCloseOutCsv,
  renderCloseOutHtml,
  renderCloseOutJson,
} from "../../report/campaign/closeout.js";
import { choiceOption, stringOption } from "../args.js";
import { readPrivateKey } from "../review-snapshot-file.js";
import { decisionsFromJson, readBytes, readCampaignFile, readSnapshot } from "./files.js";
import { maybe, need, type StepInput } from "./need.js";
import { coverageLines } from "./decide.js";

function journalLines(file: string, text: string): JournalEntry[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      try {
        return JSON.parse(l) as JournalEntry;
      } catch {
        throw new InputError({
          message: `--journal ${file}:${i + 1}: not a journal line (JSON). Give the file apply --journal wrote.`,
        });
      }
    });
}

export const closeOutDigest = (c: CloseOut): string => {
  const { digest: _d, signature: _s, ...signOff } = c.signOff;
  return `sha256:${createHash("sha256")
    .update(canonicalText({ ...c, signOff }))
    .digest("hex")}`;
};

async function sign(c: CloseOut, keyFile: string): Promise<void> {
  const key = await readPrivateKey(keyFile, "--signing-key");
  const type = key.asymmetricKeyType;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const alg =
    type === "ed25519" ? "EdDSA" : type === "rsa" ? "RS256" : curve === "secp384r1" ? "ES384" : "ES256";
  const { CompactSign } = await import("jose");
  const jws = await new CompactSign(new TextEncoder().encode(c.signOff.digest))
    .setProtectedHeader({ alg, typ: "usersync-closeout-digest" })
    .sign(key);
  const [h, , s] = jws.split(".");
  c.signOff.signature = `${h}..${s}`;
}

// eslint-disable-next-line max-lines-per-function -- read every input (with its digest), close, sign, write
export async function runClose(step: StepInput): Promise<number> {
  const usage =
    "usersync campaign close --campaign CAMPAIGN.json --decisions DECISIONS.json --after REVIEW.json --out CLOSEOUT.json";
  const campaignFile = need(step, "campaign", "close", usage);
  const decisionsFile = need(step, "decisions", "close", usage);
  const afterFile = need(step, "after", "close", usage);
  const out = maybe(step, "out");
  const format = choiceOption(step.values, "format", CLOSEOUT_FORMATS) ?? "json";
  const journals = (step.values["journal"] as string[] | undefined) ?? [];
  const remediesFile = maybe(step, "remedies");
  const campaign = await readCampaignFile(campaignFile);
  const decisionsRead = await readBytes(decisionsFile, "--decisions");
  const decisions = decisionsFromJson(decisionsFile, JSON.parse(decisionsRead.text), campaign.value);
  const after = await readSnapshot(afterFile, "--after");
  if (after.value.header.organization !== campaign.value.snapshot.organization)
    throw new ConfigError({
      message: `--after ${afterFile} is a review of ${after.value.header.organization}, the campaign of ${campaign.value.snapshot.organization}.`,
    });
  if (after.value.header.listedAt <= campaign.value.snapshot.generatedAt)
    throw new ConfigError({
      message: `--after ${afterFile} was listed ${after.value.header.listedAt}, not after the campaign's review (${campaign.value.snapshot.generatedAt}): list a new review after remediation.`,
    });
  const inputs: InputDigest[] = [
    { role: "review", file: campaign.value.snapshot.file, sha256: campaign.value.snapshot.sha256 },
    { role: "campaign", file: campaignFile, sha256: campaign.sha256 },
    { role: "decisions", file: decisionsFile, sha256: decisionsRead.sha256 },
  ];
  let remedies: RowRemedy[] | undefined;
  if (remediesFile !== undefined) {
    const r = await readBytes(remediesFile, "--remedies");
    remedies = (JSON.parse(r.text) as { remedies: RowRemedy[] }).remedies;
    inputs.push({ role: "remedies", file: remediesFile, sha256: r.sha256 });
  }
  const journal: JournalEntry[] = [];
  for (const file of journals) {
    const j = await readBytes(file, "--journal");
    journal.push(...journalLines(file, j.text));
    inputs.push({ role: "journal", file, sha256: j.sha256 });
  }
  inputs.push({ role: "reviewAfter", file: afterFile, sha256: after.sha256 });
  await prepareOutputPaths({ "--out": out });
  const closed = closeOut({
    campaign: campaign.value,
    decisions: decisions.decisions.map(({ field: _f, line: _l, ...d }) => d),
    remedies,
    after: after.value,
    journal,
    closedBy: stringOption(step.values, "signed-by") ?? step.runtime.io.env["USER"] ?? userInfo().username,
    closedAt: new Date().toISOString(),
    inputs,
  });
  closed.signOff.digest = closeOutDigest(closed);
  const key = maybe(step, "signing-key");
  if (key !== undefined) await sign(closed, key);
  const text =
    format === "csv"
      ? renderCloseOutCsv(closed)
      : format === "html"
        ? renderCloseOutHtml(closed)
        : renderCloseOutJson(closed);
  if (out === undefined) step.runtime.io.stdout.write(text);
  else {
    await writeFileAtomic(out, text);
    const s = closed.summary;
    step.runtime.io.stdout.write(
      `${[
        `campaign ${closed.campaign.id} closed by ${closed.signOff.closedBy}: ${out}`,
        ...coverageLines(closed.coverage),
        `revocations: ${s.revocations}, ${s.done} verified gone in the review of ${closed.reviewAfter.listedAt}, ${s.pending} pending`,
        ...closed.revocations
          .filter((r) => r.status === "pending")
          .map((r) => `  pending ${r.rowId}: ${r.why ?? ""}`),
      ].join("\n")}\n`,
    );
  }
  return closed.summary.pending > 0 || closed.coverage.decided < closed.coverage.rows
    ? ExitCode.changes
    : ExitCode.ok;
}
