/** What the access review is computed from (review.ts): the listing, the policy, and the desired state and its plan when compared. */
import type { DesiredState } from "../desired/types.js";
import type { ActualState } from "../service/types.js";
import type { Policy } from "../plan/policy.js";
import type { Plan } from "../plan/types.js";
import type { ReviewSnapshot } from "./types.js";

export interface ReviewInput {
  /** The listing: every workspace, grant, organization grant and filter (cli/review-listing.ts). */
  actual: ActualState;
  policy: Policy;
  /** How the organization signs in, when the service says: a mapping with no built-in login is then external, not revoked. */
  signIn?: "builtin" | "oidc" | undefined;
  /** The e-mail domains the organization's identity providers claim: a mapping with such an e-mail is external. */
  externalDomains?: string[] | undefined;
  /** The desired state and the plan made against it (cli), when a source is configured. */
  desired?: { state: DesiredState; plan: Plan; source?: string | undefined } | undefined;
  snapshot: Omit<ReviewSnapshot, "digest">;
  /** By userId: when a listing of the source first showed the person gone (the state file), ISO 8601. */
  goneSince?: ReadonlyMap<string, string> | undefined;
  /** review.removalWithin in seconds: a leaver's access older than this after goneSince is a finding; 0: none. */
  removalWithinSeconds?: number | undefined;
  requests: number;
  notes?: string[];
}
