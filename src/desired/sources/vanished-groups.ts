/**
 * The one rule for a group that is not there (docs/sources.md, "A group that is not there"):
 *
 * - a picked group deleted between its lookup and the read of its members is a read not whole
 *   (exit 5), whatever the last run saw: each reader turns that 404 into a SourceIncompleteError;
 * - a rule that finds no group (an id, email or name the directory does not have, a search that
 *   matches none) is a mistake (exit 4, NoSuchGroupError) ...
 * - ... unless a group the last successful run saw with members is not found now: then the rule
 *   most likely named that group, and a group gone from under a run is not believed (exit 5), as a
 *   picked group that reads empty is not (group-sizes.ts). `--allow-empty-groups` believes it, and
 *   the rule that names nothing is then the mistake it is (exit 4).
 */
import { DirectoryError } from "../../errors.js";
import { SourceIncompleteError } from "./errors.js";

/** A rule found no group: exit 4 unless vanishedOrMistake finds a group that had members gone. */
export class NoSuchGroupError extends DirectoryError {
  /** The group-size keys (`google:03ab…`) of the groups the other rules picked this run. */
  found: string[] = [];
  /** This directory's group-size key prefix (`google:`); empty until the rules are settled. */
  prefix = "";
}

/**
 * Every rule's answer, in rule order; all of them settled, so that a rule finding no group can
 * say which groups the others found. Any other failure is thrown first (the first in rule order).
 */
export async function settleRules<T>(
  answers: readonly Promise<T>[],
  o: { prefix: string; keysOf: (answer: T) => string[] },
): Promise<T[]> {
  const settled = await Promise.allSettled(answers);
  const rejected = settled.flatMap((s) => (s.status === "rejected" ? [s.reason as unknown] : []));
  const other = rejected.find((r) => !(r instanceof NoSuchGroupError));
  if (other !== undefined) throw other;
  const values = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const missing = rejected[0];
  if (missing instanceof NoSuchGroupError) {
    missing.prefix = o.prefix;
    missing.found = values.flatMap(o.keysOf);
    throw missing;
  }
  return values;
}

/**
 * A rule that found no group, judged against the group sizes of the last successful run: exit 5
 * (SourceIncompleteError) naming the groups that had members and are not found now, or the
 * mistake itself (exit 4) when none is gone, no sizes are known, or `--allow-empty-groups`.
 */
export function vanishedOrMistake(
  err: NoSuchGroupError,
  lastGood: Readonly<Record<string, number>> | undefined,
  allowEmpty: boolean,
): Error {
  if (allowEmpty || lastGood === undefined || err.prefix === "") return err;
  const found = new Set(err.found);
  const gone = Object.entries(lastGood)
    .filter(([key, before]) => before > 0 && key.startsWith(err.prefix) && !found.has(key))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  if (gone.length === 0) return err;
  const list = gone
    .slice(0, 10)
    .map(([key, before]) => `${key} (${before} member${before === 1 ? "" : "s"} at the last successful run)`)
    .join(", ");
  const more = gone.length > 10 ? ` and ${gone.length - 10} more` : "";
  return new SourceIncompleteError({
    read: "the picked groups",
    reason: `${err.message}; and ${gone.length === 1 ? "a group" : `${gone.length} groups`} the last successful run saw with members ${gone.length === 1 ? "is" : "are"} not found now: ${list}${more}. A group gone from under a run is not believed: run again later; if it was deleted on purpose, correct the rule that names it and run once with --allow-empty-groups`,
  });
}
