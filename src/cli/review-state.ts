/**
 * What the review reads from usersync's state file (docs/audits.md "Dated removals"): when a run
 * first saw each person gone from the source (`policy.revokeAfter` keeps it, reason `missing`).
 * And when an apply removed each leaver's access (`removals`). Only read, never written; no file (or no `state.file`) means no date.
 */
import { durationSeconds, type Config } from "../config/index.js";
import { isoTime } from "../plan/index.js";
import type { RemovalDate } from "../review/removals.js";
import { readState } from "../state/index.js";

export async function reviewRemovalInput(config: Config): Promise<{
  goneSince: Map<string, string> | undefined;
  removalWithinSeconds: number;
  removals: Map<string, RemovalDate>;
}> {
  const removalWithinSeconds = durationSeconds(config.review.removalWithin);
  const removals = new Map<string, RemovalDate>();
  if (config.state.file === undefined) return { goneSince: undefined, removalWithinSeconds, removals };
  const { data } = await readState(config.state.file);
  const goneSince = new Map<string, string>();
  for (const [key, entry] of data.people)
    if (entry.reason === "missing" && key.startsWith("mapping:"))
      goneSince.set(key.slice("mapping:".length), isoTime(entry.since));
  for (const [key, r] of data.removals ?? [])
    if (key.startsWith("mapping:"))
      removals.set(key.slice("mapping:".length), {
        removedAt: isoTime(r.at),
        runId: r.runId,
        ...(r.goneSince !== undefined ? { goneSince: isoTime(r.goneSince) } : {}),
      });
  return { goneSince, removalWithinSeconds, removals };
}
