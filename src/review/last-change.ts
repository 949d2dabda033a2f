/**
 * When a person's access last changed, as far as usersync can honestly say (docs/audits.md,
 * "last_change"). The service keeps no date on what a review reads (its API has no createdAt or
 * modifiedAt on users, groups, memberships, grants or data filters: only on analytics objects),
 * and usersync's journal knows only usersync's own steps, not the hand-made changes a review
 * looks for. What a chain of reviews does know: a row that differs from the previous review's
 * changed after that review was listed and before this one was. So `lastChange` is the ISO 8601
 * interval `<previous generatedAt>/<this generatedAt>` when the row changed since the previous
 * review, the previous review's own `lastChange` when it did not (carried from review to review),
 * and absent when no review of the chain saw it change.
 *
 * "Changed" is what the row shows a reviewer: its permissions or the meaning of its filters (the
 * changes `reviewChanges` lists for it); for a person also their status, organization permissions
 * and any row gained or lost.
 */
import type { Review, ReviewChanges } from "./types.js";

/** A UTC time as reviews write it (`toISOString`): such strings sort as the times do. */
const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/**
 * The interval a change seen between two reviews lies in; undefined when `previous` is not the
 * earlier of two UTC times (a review given to `--since` that is newer, or edited by hand).
 */
export function changeInterval(
  previous: { generatedAt: string },
  current: { generatedAt: string },
): string | undefined {
  const [before, now] = [previous.generatedAt, current.generatedAt];
  if (!UTC.test(before) || !UTC.test(now) || !(before < now)) return undefined;
  return `${before}/${now}`;
}

/** Sets `lastChange` on the current review's people and rows, from the changes since `previous`. */
export function dateChanges(previous: Review, current: Review, changes: ReviewChanges): void {
  const interval = changeInterval(previous.snapshot, current.snapshot);
  const changedPeople = new Set<string>();
  const changedRows = new Set<string>();
  for (const c of changes.changes) {
    changedPeople.add(c.person);
    if (c.workspace !== undefined) changedRows.add(`${c.person}\u0000${c.workspace}`);
  }
  const before = new Map(previous.people.map((p) => [p.key, p]));
  for (const p of current.people) {
    const old = before.get(p.key);
    const oldRows = new Map((old?.access ?? []).map((a) => [a.workspace, a]));
    // A row object may be shared by the people of one group set (review-people.ts): a dated row is a copy.
    p.access = p.access.map((a) => {
      const last = changedRows.has(`${p.key}\u0000${a.workspace}`)
        ? interval
        : oldRows.get(a.workspace)?.lastChange;
      return last === undefined ? a : { ...a, lastChange: last };
    });
    const last = changedPeople.has(p.key) ? interval : old?.lastChange;
    if (last !== undefined) p.lastChange = last;
    else delete p.lastChange;
  }
}
