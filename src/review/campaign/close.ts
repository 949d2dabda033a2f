/**
 * The close-out (docs/audits.md, "Close-out"): what was decided, by whom and when, what each
 * revocation became and whether it is carried out, proven by a review listed after remediation.
 * A revoke is done when the row is gone from that review; a change when the row holds no more
 * than was kept. The time it was carried out is the journal's line for the step that did it
 * (when the journal given has one). Pure: the caller passes the files, already read.
 */
import type { Snapshot } from "../snapshot.js";
import { coverage, describe, type Coverage } from "./decisions.js";
import type { RemedyAction, RowRemedy } from "./remedies.js";
import { heldById, snapshotHeader } from "./rows.js";
import type { Campaign, Decision } from "./types.js";

export const CLOSEOUT_KIND = "usersync-campaign-closeout";

/** One journal line of an apply (output.journal, apply --journal), as much as the close-out reads. */
export interface JournalEntry {
  time: string;
  stepId: string;
  kind: string;
  target: string;
  outcome: string;
}

export interface Revocation {
  rowId: string;
  person: string;
  email?: string;
  workspace?: string;
  decision: string;
  reviewer: string;
  decidedAt: string;
  comment?: string;
  /** What the row held in the campaign's snapshot, and holds in the review after (empty: gone). */
  before: string[];
  after: string[];
  /** `done`: verified in the review after; `pending`: the access is still there. */
  status: "done" | "pending";
  /** When it was carried out: the journal's line for its step, when one is given. */
  carriedOut?: string;
  /** The journal steps that carried it out. */
  steps?: string[];
  /** For a pending one: why (pending at the source, a step not applied...). */
  why?: string;
  /** How it was to be carried out: the remedy's actions, one line each. */
  actions: string[];
}

export interface InputDigest {
  role: string;
  file: string;
  sha256: string;
}

export interface CloseOut {
  formatVersion: 1;
  kind: typeof CLOSEOUT_KIND;
  campaign: { id: string; organization: string; openedAt: string; due?: string; snapshotDigest: string };
  review: { listedAt: string; digest: string };
  reviewAfter: { listedAt: string; digest: string };
  coverage: Coverage;
  /** Each decision with what its row held (`held`); a change's `permissions` are what it keeps. */
  decisions: Array<Decision & { email?: string; workspace?: string; held: string[] }>;
  revocations: Revocation[];
  summary: {
    decided: number;
    rows: number;
    revocations: number;
    done: number;
    pending: number;
    late: number;
  };
  signOff: {
    closedBy: string;
    closedAt: string;
    /** Every file the close-out was made from, by the sha256 of its bytes. */
    inputs: InputDigest[];
    /** `sha256:<hex>` over the RFC 8785 canonical JSON of the close-out without `signOff.digest` and `signOff.signature`. */
    digest?: string;
    /** A JWS (compact, detached payload: `<protected>..<signature>`) over `digest`, when a key was given. */
    signature?: string;
  };
}

export interface CloseInput {
  campaign: Campaign;
  decisions: readonly Decision[];
  remedies?: readonly RowRemedy[] | undefined;
  after: Snapshot;
  journal: readonly JournalEntry[];
  closedBy: string;
  closedAt: string;
  inputs: InputDigest[];
}

/** The plan step that carries an action out (remediation-plan.ts's ids). */
function stepOf(a: RemedyAction, userId: string | undefined): string | undefined {
  if (a.via !== "plan") return undefined;
  if (a.kind === "leaveGroup") return `updateMapping:${userId}`;
  if (a.kind === "narrowGrant") return `revokeWorkspacePermissions:${a.workspace}`;
  return "revokeOrganizationPermissions:organization";
}

/** A regular sync carries a source change out: the person's mapping update, or their group's removal. */
const syncSteps = (a: RemedyAction, userId: string | undefined): string[] =>
  a.via === "source" && a.kind === "leaveGroup"
    ? [`updateMapping:${userId}`, `removeMembers:${a.group}`]
    : [];

function whyPending(remedy: RowRemedy | undefined, journal: ReadonlyMap<string, JournalEntry>): string {
  if (remedy === undefined)
    return "no remediation was made for it (campaign remediate was not run on these decisions)";
  const reasons = remedy.actions.map((a) => {
    if (a.via === "pending") return a.text;
    if (a.via === "source") return `pending at the source: ${a.text}; the source still gives it`;
    const step = stepOf(a, remedy.userId)!;
    const line = journal.get(step);
    return line === undefined
      ? `${a.text}: step ${step} was not applied`
      : `${a.text}: step ${step} ${line.outcome}`;
  });
  return reasons.join("; ");
}

// eslint-disable-next-line max-lines-per-function -- one close-out: each revocation checked, then the record
export function closeOut(input: CloseInput): CloseOut {
  const { campaign } = input;
  const rows = new Map(campaign.rows.map((r) => [r.rowId, r] as const));
  const after = heldById(input.after, new Set(input.decisions.map((d) => d.rowId)));
  const remedies = new Map((input.remedies ?? []).map((r) => [r.rowId, r] as const));
  const journal = new Map<string, JournalEntry>();
  for (const j of input.journal)
    if (j.outcome === "succeeded" || !journal.has(j.stepId)) journal.set(j.stepId, j);
  const revocations: Revocation[] = [];
  for (const d of input.decisions) {
    if (d.decision === "keep") continue;
    const row = rows.get(d.rowId);
    if (row === undefined) continue;
    const held = after.get(d.rowId) ?? [];
    const kept = new Set(d.decision === "change" ? (d.permissions ?? []) : []);
    const done = held.every((p) => kept.has(p));
    const remedy = remedies.get(d.rowId);
    const steps = (remedy?.actions ?? [])
      .flatMap((a) => [stepOf(a, remedy?.userId), ...syncSteps(a, remedy?.userId)])
      .filter((s): s is string => s !== undefined && journal.get(s)?.outcome === "succeeded");
    const times = steps.map((s) => journal.get(s)!.time).sort();
    revocations.push({
      rowId: d.rowId,
      person: row.person,
      ...(row.email !== undefined ? { email: row.email } : {}),
      ...(row.workspace !== undefined ? { workspace: row.workspace } : {}),
      decision: describe(d),
      reviewer: d.reviewer,
      decidedAt: d.decidedAt,
      ...(d.comment !== undefined ? { comment: d.comment } : {}),
      before: row.permissions,
      after: held,
      status: done ? "done" : "pending",
      ...(done && times.length > 0 ? { carriedOut: times[times.length - 1]!, steps } : {}),
      ...(done ? {} : { why: whyPending(remedy, journal) }),
      actions: (remedy?.actions ?? []).map((a) => `${a.via}: ${a.text}`),
    });
  }
  const cov = coverage(campaign, input.decisions);
  const header = snapshotHeader(input.after);
  const due = campaign.due;
  return {
    formatVersion: 1,
    kind: CLOSEOUT_KIND,
    campaign: {
      id: campaign.id,
      organization: campaign.snapshot.organization,
      openedAt: campaign.openedAt,
      ...(due !== undefined ? { due } : {}),
      snapshotDigest: campaign.snapshot.digest,
    },
    review: { listedAt: campaign.snapshot.generatedAt, digest: campaign.snapshot.digest },
    reviewAfter: { listedAt: header.generatedAt, digest: header.digest },
    coverage: cov,
    decisions: input.decisions.map((d) => {
      const row = rows.get(d.rowId);
      return {
        ...d,
        ...(row?.email !== undefined ? { email: row.email } : {}),
        ...(row?.workspace !== undefined ? { workspace: row.workspace } : {}),
        held: row?.permissions ?? [],
      };
    }),
    revocations,
    summary: {
      decided: cov.decided,
      rows: cov.rows,
      revocations: revocations.length,
      done: revocations.filter((r) => r.status === "done").length,
      pending: revocations.filter((r) => r.status === "pending").length,
      late: due === undefined ? 0 : input.decisions.filter((d) => d.decidedAt.slice(0, 10) > due).length,
    },
    signOff: { closedBy: input.closedBy, closedAt: input.closedAt, inputs: input.inputs },
  };
}
