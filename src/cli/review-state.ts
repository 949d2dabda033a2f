/**
 * What the review reads from usersync's state file (docs/audits.md "Dated removals"): when a run
 * first saw each person gone from the source (`policy.revokeAfter` keeps it, reason `missing`).
 * Only read, never written; no file (or no `state.file`) means no date.
 */
import { durationSeconds, type Config } from "../config/index.js";
import { isoTime } from "../plan/index.js";
import { readState } from "../state/index.js";

export async function reviewRemovalInput(
  config: Config,
): Promise<{ goneSince: Map<string, string> | undefined; removalWithinSeconds: number }> {
  const removalWithinSeconds = durationSeconds(config.review.removalWithin);
  if (config.state.file === undefined) return { goneSince: undefined, removalWithinSeconds };
  const { data } = await readState(config.state.file);
  const goneSince = new Map<string, string>();
  for (const [key, entry] of data.people)
    if (entry.reason === "missing" && key.startsWith("mapping:"))
      goneSince.set(key.slice("mapping:".length), isoTime(entry.since));
  return { goneSince, removalWithinSeconds };
}
