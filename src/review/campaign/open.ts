/**
 * A campaign opened from a review snapshot (docs/audits.md, "The campaign"): every row with its
 * reviewers, the rows nobody is assigned, each reviewer's count. Pure: the caller passes the time,
 * the due date and the snapshot file's digest.
 */
import type { Snapshot } from "../snapshot.js";
import { assignRows, reviewerCounts, type ReviewerRules } from "./assign.js";
import { campaignRows, snapshotHeader } from "./rows.js";
import { CAMPAIGN_FORMAT_VERSION, type Campaign } from "./types.js";

export interface OpenInput {
  snapshot: Snapshot;
  /** The snapshot file as given and the sha256 of its bytes. */
  file: string;
  sha256: string;
  openedAt: string;
  due?: string | undefined;
  rules: ReviewerRules;
  /** Let the snapshot's rows go as the campaign's are made (campaignRows): the snapshot is spent. */
  release?: boolean;
}

export function openCampaign(input: OpenInput): Campaign {
  const header = snapshotHeader(input.snapshot);
  const { rows, unassigned } = assignRows(
    campaignRows(input.snapshot, { release: input.release === true }),
    input.rules,
    header.organization,
  );
  return {
    formatVersion: CAMPAIGN_FORMAT_VERSION,
    kind: "usersync-access-campaign",
    id: `${header.organization}/${header.generatedAt}`,
    openedAt: input.openedAt,
    ...(input.due !== undefined ? { due: input.due } : {}),
    snapshot: { ...header, file: input.file, sha256: input.sha256 },
    reviewers: reviewerCounts(rows),
    rows,
    unassigned,
  };
}
