/**
 * The one contract every source of the desired state keeps (docs/sources.md): it returns the
 * desired state together with the evidence that the read is whole, or it throws a
 * SourceUnavailableError (exit 5; SourceIncompleteError names the read and why). The planner never
 * knows which source it was; the plan carries the evidence so an auditor sees what it was made from.
 */
import type { Logger } from "pino";
import type { Problem } from "../../errors.js";
import type { DesiredState, Evidence, Identity, SignInStep, SkippedCount } from "../types.js";
import { SKIPPED_SAMPLE } from "../types.js";

export type { Count, Evidence, ReadTally, SignInContext, SignInStep, SkippedCount } from "../types.js";
export { SKIPPED_SAMPLE } from "../types.js";

export interface SourceResult {
  state: DesiredState;
  /** Errors (exit 4) and warnings, as the file readers report them. */
  problems: Problem[];
  evidence: Evidence;
  /**
   * Who signs in as whom: every directory source keeps this step (a file says it row by row). Run
   * after the whole read, once connected, with how the organization signs people in; the pipeline
   * calls it without knowing which source it was (sign-in.ts).
   */
  signIn?: SignInStep;
}

/** What a reader gets from the run, beside its own config. */
export interface SourceContext {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  defaultIdentity: Identity;
  signal?: AbortSignal;
}

export interface SourceReader {
  read(): Promise<SourceResult>;
}

/** Counts deliberate skips by reason, keeping a few ids of each for the evidence. */
export class SkipCounter {
  private readonly byReason = new Map<string, SkippedCount>();
  skip(reason: string, id: string): void {
    let entry = this.byReason.get(reason);
    if (entry === undefined) this.byReason.set(reason, (entry = { reason, count: 0, sample: [] }));
    entry.count += 1;
    if (entry.sample.length < SKIPPED_SAMPLE) entry.sample.push(id);
  }
  list(): SkippedCount[] {
    return [...this.byReason.values()].sort((a, b) =>
      a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0,
    );
  }
}

/** A line for logs and the text plan: `3 groups, 12 pages, 1,234 people; skipped 3 guests`. */
export function evidenceLine(e: Evidence): string {
  const people = e.people ?? 0;
  const pages = e.reads.reduce((n, r) => n + r.pages, 0);
  const announced = e.reads.filter((r) => r.announced !== "unknown");
  const counted =
    announced.length > 0
      ? `, ${announced.length} of ${e.reads.length} reads counted by the server and matched`
      : "";
  const skipped = e.skipped.map((s) => `${s.count.toLocaleString("en-US")} ${s.reason}`).join(", ");
  return [
    `${e.kind} ${e.source}: ${people.toLocaleString("en-US")} people from ${e.reads.length} read${e.reads.length === 1 ? "" : "s"} (${pages.toLocaleString("en-US")} page${pages === 1 ? "" : "s"}${counted})`,
    e.scope.length > 0 ? `scope ${e.scope.join(", ")}` : "",
    skipped ? `skipped ${skipped}` : "",
  ]
    .filter(Boolean)
    .join("; ");
}
