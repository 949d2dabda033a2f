/**
 * What the review finds (a finding, the first thing a reviewer reads) and what changed since a
 * previous review, per person and workspace; part of the review model (types.ts).
 */

export type FindingKind =
  /** A person whose login is revoked, or whom the desired state marks absent, still holds access. */
  | "revokedWithAccess"
  /** A person whose login is revoked, or whom the desired state marks absent, still has API tokens. */
  | "leaverApiTokens"
  /** A direct grant (person, not group) made by hand to a person usersync manages. */
  | "handMadeDirectGrant"
  /** Organization MANAGE or workspace MANAGE the desired state does not give. */
  | "privilegedOutsideDesired"
  /** The desired state gives the person a filter on a workspace they reach, and it is not there. */
  | "missingDesiredFilter"
  /** Access through no group: only direct grants (the person's own or a hierarchy grant of theirs). */
  | "accessNoGroupExplains"
  /** Mappings share one authenticationId: only the alphabetically first userId signs in (R15). */
  | "sharedAuthenticationId"
  /** A leaver's access outlived their leaving by more than review.removalWithin. */
  | "removalLate";

export interface Finding {
  kind: FindingKind;
  severity: "high" | "medium";
  /** The person's key (ReviewPerson.key). */
  person: string;
  email?: string;
  workspace?: string;
  /** The snapshot row it is about (`<person>|<workspace>`, `<person>|organization`), when about one. */
  rowId?: string;
  /** One sentence a reviewer can act on. */
  detail: string;
}

export type ChangeKind =
  | "personCame"
  | "personWent"
  | "accessGained"
  | "accessLost"
  | "permissionsRaised"
  | "permissionsLowered"
  /** A filter that applied is gone (or its MAQL changed so it may allow more). */
  | "filtersWidened"
  /** A filter applies that did not. */
  | "filtersNarrowed"
  | "organizationPermissionsRaised"
  | "organizationPermissionsLowered"
  | "statusChanged";

export interface ReviewChange {
  kind: ChangeKind;
  person: string;
  email?: string;
  workspace?: string;
  /** Permissions, filters (MAQL) or status before and after, as the kind needs. */
  before?: string[];
  after?: string[];
  /** accessLost by usersync: when, which run, since when the person was gone (review/removals.ts). */
  removedAt?: string;
  runId?: string;
  goneSince?: string;
}
