/**
 * The changes file in a run (`source.changes.mode`, docs/configuration.md "The changes file"):
 * read before the source (what the last successful apply kept), written by `apply` only after
 * every step succeeded, so the people a failed step left behind are planned again next time.
 * With `targets:`, a run of one organization (`--target NAME`, the Indexed Job's pod) keeps the
 * shared read's picture beside that organization's state file; `--all-targets` reads whole.
 */
import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import type { DesiredState } from "../desired/index.js";
import type { ChangesInput } from "../desired/sources/changes/source.js";
import { changesFileOf, readChanges, writeChanges, type KeptChanges } from "../state/changes-file.js";
import { toPolicy } from "../config/index.js";
import { dataFilterListing, permissionListing } from "../plan/index.js";
import { version } from "./version.js";

/** What a changes-only read is given, or undefined when the run reads as always. */
export async function changesInput(
  config: Config,
  logger: Logger,
  /** With targets: the one target's state file (`--target NAME`). */
  targetState?: string,
  /** `plan` and `apply` of one organization: they can plan from the touched people alone. */
  partial = false,
): Promise<ChangesInput | undefined> {
  if (config.source.changes.mode === "off") return undefined;
  if (config.source.type === "file") {
    logger.warn(
      { notice: "no-effect" },
      "source.changes.mode has no effect with source.type file: a file has no change feed, every run reads it whole (docs/sources.md)",
    );
    return undefined;
  }
  if (config.targets.length > 0 && targetState === undefined) {
    logger.warn(
      { notice: "no-effect" },
      "source.changes.mode has no effect with --all-targets: the shared read is whole; run one organization at a time (--target NAME, the Indexed Job) to read changes (docs/sources.md)",
    );
    return undefined;
  }
  const file = targetState ?? config.state.file;
  if (file === undefined) return undefined; // refused with the config (exit 4)
  const kept = await readChanges(changesFileOf(file));
  const usable = partial && config.targets.length === 0 ? partialUsable(config) : undefined;
  // Without a known version (no package.json beside the build), nothing built is trusted as the same.
  const own = version();
  return {
    kept,
    now: Date.now(),
    ...(own !== "unknown" ? { version: own } : {}),
    ...(usable ? { usable } : {}),
  };
}

/**
 * Whether a run may plan from the touched people alone (changes/partial.ts): only where the
 * targeted listing (targeted-listing.ts) is sure to be taken but for the people's own answers,
 * i.e. no grace record (`policy.revokeAfter`) and no grants or filters to list for the groups.
 */
function partialUsable(config: Config): ((groups: DesiredState["groups"]) => boolean) | undefined {
  const policy = toPolicy(config, {});
  if (policy.revokeAfter !== undefined) return undefined;
  return (groups) => {
    const desired: DesiredState = { users: [], groups, files: [] };
    return (
      permissionListing(desired, policy, config.execution.pageSize) === undefined &&
      dataFilterListing({ desired, policy }) === undefined
    );
  };
}

/**
 * Hangs on the state what a changes-only read leaves for the rest of the run: the write of what to
 * keep (for `apply` once every step succeeded) and, when the changes touched few enough people,
 * the people a targeted listing lists (targeted-listing.ts).
 */
export function keepAfterApply(
  state: DesiredState,
  o: {
    config: Config;
    logger: Logger;
    keep: KeptChanges | undefined;
    touched: string[] | undefined;
    groupsChanged: boolean | undefined;
    /** The state file the changes file sits beside (a target's, with targets). */
    stateFile: string | undefined;
  },
): void {
  const { keep, touched } = o;
  const file = o.stateFile;
  if (keep === undefined || file === undefined) return;
  const target = changesFileOf(file);
  const afterApply = async (run: { managedUsers: number; listing: "whole" | "targeted" }) => {
    const kept = run.listing === "whole" ? { ...keep, managedUsers: run.managedUsers } : keep;
    await writeChanges(target, kept);
    o.logger.info(
      { file: target, people: keep.picture.people.length, groups: keep.picture.groups.length },
      "changes file written: the next run reads only what changed since this one",
    );
  };
  Object.defineProperty(state, "afterApply", { value: afterApply, enumerable: false });
  if (touched !== undefined && touched.length <= o.config.source.changes.maxPeople)
    Object.defineProperty(state, "targeted", {
      value: {
        people: touched,
        ...(keep.managedUsers !== undefined ? { managedUsers: keep.managedUsers } : {}),
      },
      enumerable: false,
    });
}
