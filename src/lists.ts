/**
 * Lists many records hold alike, held once (issue 33): a million people in one group hold one
 * `["all"]`, not a million. Used for the desired users' groups and the listed mappings' groups.
 */

/** Distinct lists shared per table; past this many, a list is each record's own. */
const MAX_SHARED_LISTS = 4096;

/**
 * The one frozen array equal to `value` kept in `lists` (`value` itself, frozen, the first time).
 * `lists` unset: `value`. Callers hand over a sorted list that nothing changes afterwards.
 */
export function shareList(lists: Map<string, readonly string[]> | undefined, value: string[]): string[] {
  if (lists === undefined) return value;
  const key = value.join("\n");
  const known = lists.get(key);
  if (known !== undefined) return known as string[];
  if (lists.size < MAX_SHARED_LISTS) lists.set(key, Object.freeze(value));
  return value;
}
