/**
 * The campaign's keys of the `review` section (docs/audits.md, "The campaign"): who reviews what,
 * and by when. Kept in a piece of their own: other keys of `review` live beside them.
 */
import { z } from "zod";

const email = z
  .string()
  .regex(/^[^\s@]+@[^\s@]+$/, "must be an e-mail address, e.g. owner@example.com")
  .transform((s) => s.toLowerCase());
/** One reviewer or several. */
const reviewers = z.preprocess((v) => (typeof v === "string" ? [v] : v), z.array(email).min(1));
const byName = z.record(z.string().min(1), reviewers);

export const campaignReviewers = z.strictObject({
  /** Workspace id (or a glob: `sales-*`) -> reviewer(s): the workspace's owner. */
  workspaces: byName.default({}),
  /** Group id -> reviewer(s): rows reached through that group (anywhere on the chain). */
  groups: byName.default({}),
  /** Organization (the review's organization: the target's name, else the host) -> reviewer(s). */
  organizations: byName.default({}),
  /** Reviewer(s) of every row no rule above assigns. */
  default: reviewers.optional(),
});

/** `2027-01-15`, or a number of days after the campaign opens (`14d`). */
export const campaignDue = z
  .string()
  .regex(/^(\d{4}-\d{2}-\d{2}|\d{1,3}d)$/, 'must be a date (2027-01-15) or days after opening ("14d")');

export const campaignKeys = {
  reviewers: campaignReviewers.prefault({}),
  due: campaignDue.optional(),
};

export const CAMPAIGN_LEAVES = {
  "review.reviewers.default": "list",
  "review.due": "string",
} as const;
