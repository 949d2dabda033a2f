/**
 * A sorted array of ids kept up to date on every write (binary search + splice), so a list page
 * never sorts the whole store: at 100,000 ids a splice is a memmove of microseconds.
 * Order is plain UTF-16 code-unit order (`<`), which is stable and locale-independent.
 */
export class SortedIds {
  private readonly ids: string[] = [];

  get size(): number {
    return this.ids.length;
  }

  private lowerBound(id: string): number {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.ids[mid] as string) < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(id: string): void {
    const last = this.ids[this.ids.length - 1];
    // Fast path for ids arriving in order (a sorted seed, generated ids): no search, no memmove.
    if (last === undefined || last < id) {
      this.ids.push(id);
      return;
    }
    const at = this.lowerBound(id);
    if (this.ids[at] !== id) this.ids.splice(at, 0, id);
  }

  remove(id: string): void {
    const at = this.lowerBound(id);
    if (this.ids[at] === id) this.ids.splice(at, 1);
  }

  /** Ids [start, start + count) in ascending or descending order. */
  slice(start: number, count: number, descending = false): string[] {
    if (!descending) return this.ids.slice(start, start + count);
    const n = this.ids.length;
    const out: string[] = [];
    for (let i = n - 1 - start; i >= 0 && out.length < count; i--) out.push(this.ids[i] as string);
    return out;
  }

  all(): readonly string[] {
    return this.ids;
  }
}
