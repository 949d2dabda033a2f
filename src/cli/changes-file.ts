/**
 * The changes file in a run (`source.changes.mode`, docs/configuration.md "The changes file"):
 * read before the source (what the last successful apply kept), written by `apply` only after
 * every step succeeded, so the people a failed step left behind are planned again next time.
 * With `targets:` the shared read is whole: each organization's state is its own, the
 * directory's position is not (docs/sources.md).
 */
import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import type { DesiredState } from "../desired/index.js";
import type { ChangesInput } from "../desired/sources/changes/source.js";
import { changesFileOf, readChanges, writeChanges, type KeptChanges } from "../state/changes-file.js";

/** What a changes-only read is given, or undefined when the run reads as always. */
export async function changesInput(config: Config, logger: Logger): Promise<ChangesInput | undefined> {
  if (config.source.changes.mode === "off" || config.source.type === "file") return undefined;
  const file = config.state.file;
  if (file === undefined) return undefined; // refused with the config (exit 4)
  if (config.targets.length > 0) {
    logger.warn(
      { notice: "no-effect" },
      "source.changes.mode has no effect with targets: yet: the shared read is whole (docs/sources.md)",
    );
    return undefined;
  }
  const kept = await readChanges(changesFileOf(file));
  return { kept, now: Date.now() };
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
  },
): void {
  const { keep, touched } = o;
  const file = o.config.state.file;
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
