/**
 * `usersync campaign remediate`: the revoke and change decisions made into changes (docs/audits.md,
 * "Remediation"). Lists the organization (GETs only), then writes: the plan of what usersync may
 * change itself (`--out`, applied with `apply --plan`, guarded like every plan), the source's
 * change (`--source-patch`: a unified diff of the desired-state file; `--removals`: a CSV for a
 * directory's owner), and the remedies (`--out` with `.remedies.json`): each decision's actions,
 * for the close-out. A revocation the source still gives is "pending at the source" until the
 * source changes: the next sync would give it back.
 */
import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import { ExitCode } from "../../errors.js";
import { prepareOutputPaths, writeFileAtomic } from "../../files.js";
import { toPolicy } from "../../config/index.js";
import { serializePlan } from "../../plan/index.js";
import { bindToOrganization } from "../plan-organization.js";
import { listActualState } from "../../service/index.js";
import { remedies as remediesOf, type SourceView } from "../../review/campaign/remedies.js";
import { remediationPlan } from "../../review/campaign/remediation-plan.js";
import { patchCsv, patchYaml, type SourceEdit } from "../../review/campaign/source-patch.js";
import { unifiedDiff } from "../../review/campaign/unified-diff.js";
import { renderRemovalsCsv } from "../../report/campaign/removals.js";
import { loadDesired, optional, type Runtime } from "../pipeline.js";
import { intOption } from "../args.js";
import { reviewListings } from "../review-listing.js";
import { connect } from "../target.js";
import { decisionsFromJson, readBytes, readCampaignFile } from "./files.js";
import { maybe, need, type StepInput } from "./need.js";

export const remediesPath = (plan: string): string => plan.replace(/(\.json)?$/, ".remedies.json");

async function sourceView(runtime: Runtime): Promise<SourceView> {
  const { source } = runtime.config;
  if (source.type !== "file") return { kind: "directory", desired: await loadDesired(runtime) };
  if (source.desired === undefined && runtime.desired === undefined) return { kind: "none" };
  return { kind: "file", desired: await loadDesired(runtime) };
}

type Edit = SourceEdit & { file: string; action: { text: string } };

/** The desired-state file's change: one diff per file the edited people come from. */
async function filePatch(edits: readonly Edit[]): Promise<string> {
  const diffs: string[] = [];
  const byFile = new Map<string, Edit[]>();
  for (const e of edits) (byFile.get(e.file) ?? byFile.set(e.file, []).get(e.file)!).push(e);
  for (const [file, fileEdits] of byFile) {
    const text = await readFile(file, "utf8");
    const result = /\.csv$/i.test(file) ? patchCsv(text, fileEdits) : patchYaml(text, fileEdits);
    for (const { edit, why } of result.notMade)
      (edit as Edit).action.text += ` (not in the patch: ${why}; change the source by hand)`;
    diffs.push(unifiedDiff(relative(process.cwd(), file) || file, text, result.text));
  }
  return diffs.join("");
}

// eslint-disable-next-line max-lines-per-function -- read, list, decide the levers, write the three outputs
export async function runRemediate(step: StepInput): Promise<number> {
  const usage =
    "usersync campaign remediate --campaign CAMPAIGN.json --decisions DECISIONS.json --out PLAN.json";
  // With targets, every file is the organization's own: c.json is c.alpha.json (need.ts).
  const campaign = await readCampaignFile(need(step, "campaign", "remediate", usage));
  const decisionsFile = need(step, "decisions", "remediate", usage);
  const out = need(step, "out", "remediate", usage);
  const patch = maybe(step, "source-patch");
  const removals = maybe(step, "removals");
  const decisions = decisionsFromJson(
    decisionsFile,
    JSON.parse((await readBytes(decisionsFile, "--decisions")).text),
    campaign.value,
  );
  const { runtime } = step;
  await prepareOutputPaths({
    "--out": out,
    "--out (remedies)": remediesPath(out),
    "--source-patch": patch,
    "--removals": removals,
  });
  const view = await sourceView(runtime);
  const remedies = remediesOf(campaign.value.rows, decisions.decisions, view);
  const connection = await connect({ config: runtime.config, logger: runtime.logger });
  let actual;
  try {
    actual = await listActualState(
      connection.client,
      reviewListings(connection.client.profile, runtime.config.execution.pageSize),
    );
  } finally {
    await connection.close();
  }
  const plan = remediationPlan({
    remedies,
    actual,
    profile: connection.client.profile,
    policy: toPolicy(runtime.config, {
      ...optional("allowPermissionRemovals", intOption(step.values, "allow-permission-removals")),
    }),
    rows: campaign.value.rows.length,
    inputs: { campaign: campaign.value.id, decisions: decisions.decisions },
  });
  // A saved plan belongs to its organization: apply --plan refuses it anywhere else.
  await writeFileAtomic(out, serializePlan(bindToOrganization(plan, { actual, config: runtime.config })));
  const sourceActions = remedies.flatMap((r) => r.actions.filter((a) => a.via === "source"));
  if (view.kind === "file" && sourceActions.length > 0) {
    const edits: Edit[] = remedies.flatMap((r) =>
      r.actions.flatMap((a) => {
        if (a.via !== "source") return [];
        const user = view.desired?.users.find((u) => u.id === r.userId);
        const { via: _via, text: _text, ...lever } = a;
        return user === undefined
          ? []
          : [{ email: r.email, userId: r.userId, lever, file: user.source.file, action: a }];
      }),
    );
    const diff = await filePatch(edits);
    if (patch !== undefined) await writeFileAtomic(patch, diff);
    else if (diff !== "")
      runtime.logger.warn("the source gives revoked access: write its change with --source-patch FILE");
  }
  if (removals !== undefined) await writeFileAtomic(removals, renderRemovalsCsv(remedies));
  else if (view.kind === "directory" && sourceActions.length > 0)
    runtime.logger.warn(
      "the directory gives revoked access: write the list for its owner with --removals FILE",
    );
  await writeFileAtomic(
    remediesPath(out),
    `${JSON.stringify({ formatVersion: 1, kind: "usersync-campaign-remedies", campaign: campaign.value.id, source: view.kind, remedies }, null, 2)}\n`,
  );
  const count = (via: string): number =>
    remedies.reduce((n, r) => n + r.actions.filter((a) => a.via === via).length, 0);
  runtime.io.stdout.write(
    [
      `remediation of ${remedies.length} decision(s) to revoke or change:`,
      `  in the service (plan ${out}): ${plan.steps.length} step(s)${plan.counts.heldBack > 0 ? `, held back by the permission guard (${plan.permissionGuard?.wanted} removals over ${plan.permissionGuard?.limit})` : ""}: apply with usersync apply --plan ${out}`,
      `  at the source: ${count("source")} change(s)${view.kind === "file" ? (patch !== undefined ? ` (patch ${patch})` : "") : removals !== undefined ? ` (list ${removals})` : ""}: pending at the source until it is merged; the next sync would give them back`,
      ...(count("pending") > 0 ? [`  pending: ${count("pending")} (see ${remediesPath(out)})`] : []),
      "",
    ].join("\n"),
  );
  return ExitCode.ok;
}
