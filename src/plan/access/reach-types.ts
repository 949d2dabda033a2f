/**
 * What the one reach model answers for a person on a workspace (effective-access.ts): through
 * what they reach it, and which data filters narrow what they see there. The access review
 * (src/review/) shows these as they are.
 */
import type { Assignee, WorkspacePermission } from "../../permissions.js";

/** Why a person holds a permission on a workspace. */
export interface AccessReason {
  /**
   * `direct`: the person's own grant on this workspace; `group`: a grant of a group they are in
   * (directly or through parent groups) on this workspace; `hierarchy`: a grant (the person's or a
   * group's) on a workspace above this one, with `hierarchy` permissions; `organization`:
   * organization MANAGE (the person's or a group's), which reaches every workspace (R9).
   */
  kind: "direct" | "group" | "hierarchy" | "organization";
  /** Who holds the grant: the person or a group. */
  holder: Assignee;
  /**
   * For a group grant: the groups from one the person is a direct member of up to the holder,
   * e.g. `["emea-sales", "sales"]` (emea-sales's parent sales holds the grant). Empty for the
   * person's own grant.
   */
  groupChain: string[];
  /** The workspace the grant is on: this one, or for `hierarchy` the ancestor. */
  grantedOn: string;
  /** For `hierarchy`: the workspaces from `grantedOn` down to this one, both included. */
  workspaceChain: string[];
  /** What this grant gives on this workspace (its permissions, or its hierarchy permissions below). */
  permissions: WorkspacePermission[];
  /**
   * On the workspace that holds a grant with hierarchy permissions: they also reach this many
   * workspaces below it (each shows a `hierarchy` reason), so the reviewer of this row sees it.
   */
  below?: { permissions: WorkspacePermission[]; workspaces: number };
  /**
   * Whether the desired state gives this grant (holder, workspace, permissions) so usersync keeps
   * it: false for a grant made by hand; absent when no desired state was compared.
   */
  managed?: boolean;
  /** One line for a person: `group emea-sales -> sales, hierarchy from root`. */
  text: string;
}

/** One data filter that narrows what the person sees on a workspace. */
export interface EffectiveFilter {
  /** The filter's id in the service. */
  id: string;
  title?: string;
  /** `own`: set on the person; `group`: on a group they are in; the filter's workspace may be a parent (`fromParent`). */
  via: "own" | "group";
  holder: Assignee;
  /** As in AccessReason: the person's direct group up to the holder; empty for `own`. */
  groupChain: string[];
  /** The workspace the filter is on: this one, or a workspace above it (`fromParent`). */
  workspace: string;
  /** The filter is on a parent workspace and narrows this one too. */
  fromParent: boolean;
  maql: string;
  /** Made by usersync (tagged and with a usersync id); false: made by hand or another tool. */
  managed: boolean;
  /** Whether the desired state gives this filter; absent when no desired state was compared. */
  desired?: boolean;
}
