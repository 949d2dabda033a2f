/** The request log and counters tests read to count attempts and faults exactly. */
import type { EmulatorCounters, RequestLogEntry } from "./types.js";

export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private count: EmulatorCounters = emptyCounters();

  constructor(
    private readonly limit: number,
    /** Told of each request once its handler has run, before it is answered (EmulatorOptions.onRequest). */
    private readonly onEntry?: (entry: RequestLogEntry) => void,
  ) {}

  add(entry: RequestLogEntry): void {
    this.entries.push(entry);
    this.onEntry?.({ ...entry });
    // Trim in batches so a long run does not pay a shift() per request.
    if (this.entries.length > this.limit * 2) this.entries = this.entries.slice(-this.limit);
    const c = this.count;
    c.requests++;
    c.byMethod[entry.method] = (c.byMethod[entry.method] ?? 0) + 1;
    c.byStatus[String(entry.status)] = (c.byStatus[String(entry.status)] ?? 0) + 1;
    if (entry.fault) c.faults[entry.fault] = (c.faults[entry.fault] ?? 0) + 1;
  }

  list(): RequestLogEntry[] {
    return this.entries.slice(-this.limit).map((e) => ({ ...e }));
  }

  counters(): EmulatorCounters {
    const c = this.count;
    return {
      requests: c.requests,
      byMethod: { ...c.byMethod },
      byStatus: { ...c.byStatus },
      faults: { ...c.faults },
    };
  }

  reset(): void {
    this.entries = [];
    this.count = emptyCounters();
  }
}

function emptyCounters(): EmulatorCounters {
  return { requests: 0, byMethod: {}, byStatus: {}, faults: {} };
}
