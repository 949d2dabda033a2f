/**
 * "Did you mean …?" for a mistyped option or command: the closest known name by edit distance,
 * when it is close enough to be a typo (at most 2 edits, and fewer than half the name).
 */

/** The known name nearest to `typed`, or undefined when none is near enough to be a typo. */
export function closest(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  const near = bestDistance <= 2 && bestDistance < Math.max(typed.length, 2) / 2;
  return near ? best : undefined;
}

/** `did you mean maxDeletes? ` when a known name is near enough to be a typo, else "". */
export function didYouMean(typed: string, known: readonly string[]): string {
  const near = closest(typed, known);
  return near === undefined ? "" : `did you mean ${near}? `;
}

/** Damerau–Levenshtein (optimal string alignment): a swap of two letters counts as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i]!;
    const prev = rows[i - 1]!;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}
