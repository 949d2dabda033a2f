/**
 * The `review:` section (docs/configuration.md, docs/audits.md "Dated removals"): settings of
 * `usersync review`. Each issue adds its keys as a piece of its own, spread into the section here,
 * so pieces merge without touching each other.
 */
import { z } from "zod";
import { revokeAfter } from "./values.js";
import { campaignKeys } from "./review-campaign-schema.js";

/** Issue 46: how long a leaver's access may outlive their leaving before it is a finding. */
export const reviewRemovalFields = {
  /** A duration (`24h`, `3d`); unset or 0: no `removalLate` finding. */
  removalWithin: revokeAfter.optional(),
};

// Issue 47: the campaign's reviewers and due date (review-campaign-schema.ts).
export const reviewSection = z.strictObject({ ...reviewRemovalFields, ...campaignKeys });

/** Its keys for `USERSYNC_REVIEW_…` environment overrides (schema.ts LEAVES). */
export const REVIEW_LEAVES = { "review.removalWithin": "string" } as const;
