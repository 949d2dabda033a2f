/**
 * The one adapter between the review snapshot and the campaign: every row a reviewer decides on
 * (a person on a workspace, a person's organization permissions) as a CampaignRow. Everything else
 * of the campaign reads CampaignRow only, so a change of the snapshot's shape is met here.
 * A person who reaches nothing has no row: there is no access to keep or revoke.
 */
import { assigneeKey } from "../../permissions.js";
import type { AccessReason } from "../../plan/access/reach-types.js";
import type { OrganizationReason, Review, ReviewPerson, WorkspaceAccess } from "../types.js";
import type { CampaignReason, CampaignRow } from "./types.js";

export const ORGANIZATION_ROW = "organization";

export const rowIdOf = (person: string, workspace: string | undefined): string =>
  `${person}@${workspace ?? ORGANIZATION_ROW}`;

const givenOf = (managed: boolean | undefined): CampaignReason["given"] =>
  managed === undefined ? "unknown" : managed ? "source" : "hand-made";

function rowGiven(reasons: readonly CampaignReason[]): CampaignRow["given"] {
  const kinds = new Set(reasons.map((r) => r.given));
  if (kinds.has("unknown") || kinds.size === 0) return "unknown";
  return kinds.size === 1 ? (kinds.has("source") ? "source" : "hand-made") : "mixed";
}

function accessReason(r: AccessReason): CampaignReason {
  return {
    kind: r.kind,
    holder: assigneeKey(r.holder),
    groupChain: r.groupChain,
    grantedOn: r.grantedOn,
    permissions: r.permissions,
    given: givenOf(r.managed),
    text: r.text,
  };
}

function organizationReason(r: OrganizationReason): CampaignReason {
  return {
    kind: r.kind,
    holder: assigneeKey(r.holder),
    groupChain: r.groupChain,
    grantedOn: ORGANIZATION_ROW,
    permissions: r.permissions,
    given: givenOf(r.managed),
    text: r.text,
  };
}

function personPart(
  p: ReviewPerson,
): Omit<CampaignRow, "rowId" | "level" | "permissions" | "reasons" | "given"> {
  return {
    person: p.key,
    ...(p.id !== undefined ? { userId: p.id } : {}),
    ...(p.email !== undefined ? { email: p.email } : {}),
    ...(p.displayName !== undefined ? { displayName: p.displayName } : {}),
    status: p.status,
    groups: p.groups,
  };
}

function workspaceRow(p: ReviewPerson, a: WorkspaceAccess): CampaignRow {
  const reasons = a.reasons.map(accessReason);
  return {
    rowId: rowIdOf(p.key, a.workspace),
    ...personPart(p),
    workspace: a.workspace,
    ...(a.workspaceName !== undefined ? { workspaceName: a.workspaceName } : {}),
    level: "workspace",
    permissions: a.permissions,
    reasons,
    given: rowGiven(reasons),
  };
}

/** Every row of the review, in the review's order (people by key; their workspaces, then the organization row). */
export function campaignRows(review: Review): CampaignRow[] {
  const rows: CampaignRow[] = [];
  for (const p of review.people) {
    for (const a of p.access) rows.push(workspaceRow(p, a));
    if (p.organizationPermissions.length > 0) {
      const reasons = p.organizationReasons.map(organizationReason);
      rows.push({
        rowId: rowIdOf(p.key, undefined),
        ...personPart(p),
        level: "organization",
        permissions: p.organizationPermissions,
        reasons,
        given: rowGiven(reasons),
      });
    }
  }
  return rows;
}

/** What the campaign records of the snapshot it was opened from. */
export function snapshotHeader(review: Review): {
  organization: string;
  baseUrl: string;
  generatedAt: string;
  digest: string;
} {
  const s = review.snapshot;
  return { organization: s.organization, baseUrl: s.baseUrl, generatedAt: s.generatedAt, digest: s.digest };
}
