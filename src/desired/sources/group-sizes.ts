/**
 * A picked directory group that reads empty, or is gone, while the last successful run saw
 * members in it is not believed: a half-broken directory (a replica still syncing, a permission
 * lost on one group) answers "no members" as readily as a real empty group, and "everyone left"
 * is exactly the plan a sync must never make from a bad read (ssosync #278, idp-scim-sync #70).
 * Exit 5; a person who knows the group really emptied lifts it for one run with
 * `--allow-empty-groups`. The sizes live in the state file, written after a successful apply.
 */
import { SourceIncompleteError } from "./errors.js";
import type { Evidence } from "./contract.js";

export interface GroupSizesCheck {
  evidence: Evidence;
  /** Sizes the last successful run saw; undefined when there is no state file or no record yet. */
  lastGood: Readonly<Record<string, number>> | undefined;
  /** `--allow-empty-groups`: this run believes an emptied group. */
  allowEmpty: boolean;
}

/** The groups that had members and now read none (or are gone); sorted. */
export function emptiedGroups(
  o: Omit<GroupSizesCheck, "allowEmpty">,
): { key: string; before: number; now: number | "gone" }[] {
  if (o.lastGood === undefined) return [];
  const out: { key: string; before: number; now: number | "gone" }[] = [];
  for (const [key, before] of Object.entries(o.lastGood)) {
    if (before <= 0) continue;
    const now = o.evidence.groupSizes[key];
    if (now === undefined) out.push({ key, before, now: "gone" });
    else if (now === 0) out.push({ key, before, now });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : 1));
}

/** Throws SourceIncompleteError (exit 5) naming every emptied group, unless allowed for this run. */
export function checkGroupSizes(o: GroupSizesCheck): void {
  if (o.allowEmpty) return;
  const emptied = emptiedGroups(o);
  if (emptied.length === 0) return;
  const list = emptied
    .slice(0, 10)
    .map(
      (g) =>
        `${g.key} (${g.before} member${g.before === 1 ? "" : "s"} at the last successful run, ${g.now === "gone" ? "not found now" : "none now"})`,
    )
    .join(", ");
  const more = emptied.length > 10 ? ` and ${emptied.length - 10} more` : "";
  throw new SourceIncompleteError({
    read: `${o.evidence.kind} ${o.evidence.source}`,
    reason: `${emptied.length} picked group${emptied.length === 1 ? " reads" : "s read"} empty: ${list}${more}. A read that suddenly finds a group empty is not believed; if the group really emptied, run once with --allow-empty-groups`,
  });
}
