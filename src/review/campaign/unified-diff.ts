/**
 * A unified diff of two texts, line by line (Myers' O(ND) shortest edit script, fast for the few
 * edits a remediation makes to a large file), with three lines of context: what `git apply` and
 * `patch -p1` read, and what a person opens as a pull request. Pure.
 */

type Op = { op: " " | "-" | "+"; line: string };

function editScript(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Map<number, number>([[1, 0]]);
  const trace: Array<Map<number, number>> = [];
  for (let d = 0; d <= max; d++) {
    trace.push(new Map(v));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v.get(k - 1)! < v.get(k + 1)!);
      let x = down ? v.get(k + 1)! : v.get(k - 1)! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v.set(k, x);
      if (x >= n && y >= m) return backtrack(trace, a, b, d);
    }
  }
  return [];
}

function backtrack(
  trace: ReadonlyArray<Map<number, number>>,
  a: readonly string[],
  b: readonly string[],
  last: number,
): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = last; d >= 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && v.get(k - 1)! < v.get(k + 1)!);
    const prevK = down ? k + 1 : k - 1;
    const prevX = v.get(prevK) ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ op: " ", line: a[--x]! });
      y--;
    }
    if (d > 0) ops.push(down ? { op: "+", line: b[--y]! } : { op: "-", line: a[--x]! });
  }
  return ops.reverse();
}

/** `--- a/<path>` / `+++ b/<path>` and the hunks; empty when the texts are equal. */
export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  if (before === after) return "";
  const split = (t: string): string[] => (t.endsWith("\n") ? t.slice(0, -1) : t).split("\n");
  const ops = editScript(split(before), split(after));
  const out = [`--- a/${path}`, `+++ b/${path}`];
  let i = 0;
  let aLine = 1;
  let bLine = 1;
  const lines: Array<Op & { a: number; b: number }> = ops.map((o) => {
    const at = { ...o, a: aLine, b: bLine };
    if (o.op !== "+") aLine++;
    if (o.op !== "-") bLine++;
    return at;
  });
  while (i < lines.length) {
    if (lines[i]!.op === " ") {
      i++;
      continue;
    }
    const start = Math.max(0, i - context);
    let end = i;
    for (let j = i; j < lines.length; j++) {
      if (lines[j]!.op !== " ") end = j;
      else if (j - end > 2 * context) break;
    }
    end = Math.min(lines.length - 1, end + context);
    const hunk = lines.slice(start, end + 1);
    const aCount = hunk.filter((l) => l.op !== "+").length;
    const bCount = hunk.filter((l) => l.op !== "-").length;
    out.push(
      `@@ -${hunk[0]!.a},${aCount} +${hunk[0]!.b},${bCount} @@`,
      ...hunk.map((l) => `${l.op}${l.line}`),
    );
    i = end + 1;
  }
  return `${out.join("\n")}\n`;
}
