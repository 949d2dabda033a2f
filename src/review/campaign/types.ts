/**
 * The access-review campaign (DESIGN section 12, "The campaign"; docs/audits.md): a review's rows
 * assigned to reviewers, a decision per row, the remediation the revocations become, and the
 * close-out that proves it. Plain JSON data, like the review itself; fields are only ever added.
 */
import type { OrganizationPermission, WorkspacePermission } from "../../permissions.js";
import type { PersonStatus } from "../types.js";

export const CAMPAIGN_FORMAT_VERSION = 1;

/** One reason a row holds its access, as a reviewer reads it and remediation acts on it. */
export interface CampaignReason {
  /** `organization`: a workspace reached through organization MANAGE (every workspace). */
  kind: "direct" | "group" | "hierarchy" | "organization";
  /** Who holds the grant: `user/<id>` or `userGroup/<id>`. */
  holder: string;
  /** For a group: the person's own group first, the holder last. */
  groupChain: string[];
  /** The workspace the grant is on (a parent for `hierarchy`); `organization` for organization rows. */
  grantedOn: string;
  permissions: string[];
  /** `usersync`: the desired state (the source) gives it; `hand-made`; `unknown`: not compared. */
  given: "source" | "hand-made" | "unknown";
  text: string;
}

/** One row of the population a reviewer decides on: a person on one workspace, or their organization permissions. */
export interface CampaignRow {
  /** The snapshot's row id: `<person key>|<workspace id>` or `<person key>|organization`. */
  rowId: string;
  /** The snapshot's person key: the user id, or `login:<email>`. */
  person: string;
  /** The organization user id, when the person has a mapping. */
  userId?: string;
  email?: string;
  displayName?: string;
  /** A workspace id, or absent for the organization-level row. */
  workspace?: string;
  workspaceName?: string;
  /** `workspace` or `organization`. */
  level: "workspace" | "organization";
  /** What the reasons grant, by name (a `change` keeps some of these). */
  permissions: Array<WorkspacePermission | OrganizationPermission>;
  /** What the person can do with them (the service's implications). */
  effective: Array<WorkspacePermission | OrganizationPermission>;
  reasons: CampaignReason[];
  /** `source`: every reason comes from the source; `hand-made`: none does; `mixed`; `unknown` when not compared. */
  given: "source" | "hand-made" | "mixed" | "unknown";
  status: PersonStatus;
  /** The groups the person is a direct member of (for assignment by group). */
  groups: string[];
}

/** What the campaign was opened from. */
export interface CampaignSnapshotRef {
  organization: string;
  baseUrl: string;
  generatedAt: string;
  digest: string;
  /** The snapshot file as given, and the sha256 of its bytes. */
  file: string;
  sha256: string;
}

export interface AssignedRow extends CampaignRow {
  /** Reviewers' e-mail addresses (lower-case), sorted; empty: nobody is assigned. */
  reviewers: string[];
  /** Which rule assigned them: `workspace`, `group`, `organization`, `default`, or `none`. */
  assignedBy: "workspace" | "group" | "organization" | "default" | "none";
}

export interface Campaign {
  formatVersion: typeof CAMPAIGN_FORMAT_VERSION;
  kind: "usersync-access-campaign";
  /** `<organization>/<snapshot generatedAt>`: names the campaign in decisions files. */
  id: string;
  openedAt: string;
  /** YYYY-MM-DD, when given. */
  due?: string;
  snapshot: CampaignSnapshotRef;
  /** Every reviewer and how many rows are theirs, sorted by e-mail. */
  reviewers: Array<{ email: string; rows: number }>;
  rows: AssignedRow[];
  /** Row ids nobody is assigned: listed, never lost (decided by nobody until the config says who). */
  unassigned: string[];
}

export type DecisionKind = "keep" | "revoke" | "change";

export interface Decision {
  rowId: string;
  decision: DecisionKind;
  /** For `change`: the permissions the row should hold instead (fewer than it holds). */
  permissions?: string[];
  comment?: string;
  reviewer: string;
  /** ISO 8601: when the reviewer decided (the page's clock), or when the CSV was recorded. */
  decidedAt: string;
  /** The file the decision came from (its name). */
  from?: string;
}

/** A decisions file: what the HTML page downloads, and what `campaign decide` writes merged. */
export interface DecisionsFile {
  formatVersion: typeof CAMPAIGN_FORMAT_VERSION;
  kind: "usersync-campaign-decisions";
  campaign: string;
  /** The snapshot's digest the decisions were made on. */
  digest: string;
  decisions: Decision[];
}
