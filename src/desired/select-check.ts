/**
 * Does a target's `select` name what the source read? (docs/multi-org.md, issue 38.) A group the
 * source does not have, a column no person carries or a value nobody holds is a mistake in the
 * config: it would give that organization a slice of nobody, and in `policy.mode: full` revoke
 * everyone there "within the limit". So each name is checked against what was read, with the
 * nearest name as a did-you-mean, before any request to any organization. Pure.
 */
import { didYouMean } from "../suggest.js";
import type { SliceSelector } from "./slice.js";
import type { DesiredState } from "./types.js";

/** `*` matches any run of characters; everything else is literal (as slice.ts reads a pattern). */
function globRe(pattern: string): RegExp {
  const parts = pattern.split("*").map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(".*")}$`);
}

/** Every group id the source read: its groups list and the groups its people are in. */
function groupIds(state: DesiredState): string[] {
  const ids = new Set(state.groups.map((g) => g.id));
  for (const u of state.users) for (const g of u.groups ?? []) ids.add(g);
  return [...ids].sort();
}

/** A short list of known names for a message (the first few, and how many more). */
function someOf(names: readonly string[]): string {
  const shown = names.slice(0, 8).join(", ");
  return names.length > 8 ? `${shown} and ${names.length - 8} more` : shown || "none";
}

/**
 * The names in `selector` the source does not have, each as one sentence (`field: what, did you
 * mean`). `field` is where the selector sits in the config (`targets[1] (beta).select`).
 */
export function unknownSelectNames(state: DesiredState, selector: SliceSelector, field: string): string[] {
  const problems: string[] = [];
  if (selector.groups !== undefined) {
    const known = groupIds(state);
    for (const pattern of selector.groups) {
      const re = globRe(pattern);
      if (known.some((id) => re.test(id))) continue;
      problems.push(
        `${field}.groups: ${pattern} matches no group the source read; ${didYouMean(pattern, known)}` +
          `the source has ${known.length} group(s): ${someOf(known)}`,
      );
    }
  }
  if (selector.column !== undefined) {
    const { name, value } = selector.column;
    const holders = state.users.filter((u) => u.columns !== undefined && name in u.columns);
    if (holders.length === 0) {
      const columns = [...new Set(state.users.flatMap((u) => Object.keys(u.columns ?? {})))].sort();
      problems.push(
        `${field}.column.name: no person the source read has a column ${name}; ${didYouMean(name, columns)}` +
          `the users' extra columns: ${someOf(columns)}`,
      );
    } else {
      const values = [...new Set(holders.map((u) => u.columns![name]!))].sort();
      if (!values.includes(value))
        problems.push(
          `${field}.column.value: nobody's ${name} is ${JSON.stringify(value)}; ${didYouMean(value, values)}` +
            `the values of ${name}: ${someOf(values)}`,
        );
    }
  }
  return problems;
}
