/** The normalised desired state, whatever file format it was read from. */
import type { Problem } from "../errors.js";
import type { OrganizationPermission, WorkspaceGrant } from "../permissions.js";

/** The file formats the desired state can be read from and exported to. */
export type DesiredFormat = "yaml" | "csv";

export type Identity = "builtin" | "external";
export type DesiredStateValue = "present" | "absent";

export interface SourceRef {
  file: string;
  /** 1-based line of the row (CSV) or of the list item (YAML). */
  line: number;
}

/** What one user or group should hold on one workspace. */
export interface DesiredWorkspaceGrant extends WorkspaceGrant {
  workspace: string;
}

/**
 * Permissions a user or group carries (docs/permissions.md). A field left out means "not managed":
 * its actual permissions are kept, whatever the mode, as an absent `groups` keeps a user's groups.
 */
export interface DesiredAccess {
  /** Sorted by workspace id, each workspace once; `[]`: managed, and holds nothing. */
  workspaces?: DesiredWorkspaceGrant[];
  organization?: OrganizationPermission[];
  /** User data filters (docs/data-filters.md), sorted by workspace; `[]`: managed, none. */
  dataFilters?: DesiredDataFilter[];
}

/** One user's or group's data filter on one workspace: rendered MAQL, and the label form it came from. */
export interface DesiredDataFilter {
  workspace: string;
  maql: string;
  /** Set when written as a label and values (the values sorted, each once). */
  label?: string;
  values?: string[];
}

export interface DesiredUser extends DesiredAccess {
  /** Trimmed, as given (case preserved: it is sent as given). */
  email: string;
  /** Organization user id: explicit, or derived from the email (see `deriveUserId`). */
  id: string;
  idDerived: boolean;
  displayName?: string;
  firstname?: string;
  lastname?: string;
  /** `undefined`: the field was absent, keep the groups the user has. `[]`: no groups. Sorted, unique. */
  groups?: string[];
  identity: Identity;
  /** Only for `external` users: the `sub` of the external IdP. */
  authenticationId?: string;
  /** Initial password for a new built-in user (column policy). Never logged, never in a plan. */
  password?: string;
  state: DesiredStateValue;
  source: SourceRef;
}

export interface DesiredGroup extends DesiredAccess {
  id: string;
  name?: string;
  /** `undefined`: keep the parents the group has. Sorted, unique. */
  parents?: string[];
  source: SourceRef;
}

export interface DesiredState {
  users: DesiredUser[];
  groups: DesiredGroup[];
  /** The files this state was read from (for messages and plan fingerprints). */
  files: string[];
}

/** A desired state as read, with every problem found in it. */
export interface ReadDesiredResult {
  state: DesiredState;
  /** Errors (severity "error") and warnings, in file and line order. */
  problems: Problem[];
}
