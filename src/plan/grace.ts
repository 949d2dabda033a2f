/**
 * The grace period for leavers (`policy.revokeAfter`). A person a full run finds missing from the
 * source is revoked or removed only once they have been missing that long; a person an
 * incremental run (an onboarding batch) created counts as missing from their creation on, so the
 * scheduled full sync does not undo the batch before the source has caught up. Since when is
 * remembered between runs in the state file; the planner gets it, and the time, as its `grace`
 * input: it reads no clock. What it decided goes into the plan (`grace`), from which the state
 * file is written again (src/state/).
 */
import { InternalError } from "../errors.js";
import type { Policy } from "./policy.js";

/** `missing`: a full run found them missing; `created`: an incremental run created them. */
export type GraceReason = "missing" | "created";

export interface GraceEntry {
  /** Epoch milliseconds. */
  since: number;
  reason: GraceReason;
}

/** The planner's view of earlier runs, read from the state file by the caller. */
export interface GraceInput {
  /** Epoch milliseconds: the planner takes no clock. */
  now: number;
  /** By object key of the person (`mapping:<user id>`, or `idp:<email>` for unlinked credentials). */
  people: ReadonlyMap<string, GraceEntry>;
}

/** Missing from the source and kept until `until` (ISO 8601, UTC). */
export interface PendingPerson {
  target: string;
  since: string;
  until: string;
  reason: GraceReason;
}

/** Missing for longer than the grace period: their deletion steps are in the plan (maybe held back). */
export interface DuePerson {
  target: string;
  since: string;
  reason: GraceReason;
}

/** The plan's record of the grace period: who waits and who is due, as of `now`. */
export interface PlanGrace {
  /** `policy.revokeAfter` as configured, e.g. "72h". */
  revokeAfter: string;
  now: string;
  /** Sorted by `until`, then target. */
  pending: PendingPerson[];
  /** Sorted by target. */
  due: DuePerson[];
}

/** The grace bookkeeping of one planning run. */
export interface GraceState {
  input: GraceInput;
  revokeAfterMs: number;
  pending: PendingPerson[];
  due: DuePerson[];
}

let lastIso: { ms: number; text: string } | undefined;

/** An instant as ISO 8601 (UTC): formatting a given time, not reading the clock. */
export function isoTime(ms: number): string {
  // A state file after a large run holds one time for thousands of records: format it once.
  if (lastIso?.ms === ms) return lastIso.text;
  // eslint-disable-next-line no-restricted-globals -- formats the instant it is given; no clock
  const text = new Date(ms).toISOString();
  lastIso = { ms, text };
  return text;
}

export function makeGraceState(policy: Policy, input: GraceInput | undefined): GraceState | undefined {
  if (policy.revokeAfter === undefined) return undefined;
  if (input === undefined)
    throw new InternalError({ message: "policy.revokeAfter is set but the planner got no grace input" });
  return { input, revokeAfterMs: policy.revokeAfter.seconds * 1000, pending: [], due: [] };
}

/**
 * A deletion of a person missing from the source: undefined while the grace period lasts (the
 * person is recorded as pending and nothing is planned), else since when they are missing.
 */
export function graceSince(g: GraceState, target: string): string | undefined {
  const entry = g.input.people.get(target);
  const since = entry?.since ?? g.input.now;
  const reason = entry?.reason ?? "missing";
  const until = since + g.revokeAfterMs;
  if (g.input.now < until) {
    g.pending.push({ target, since: isoTime(since), until: isoTime(until), reason });
    return undefined;
  }
  g.due.push({ target, since: isoTime(since), reason });
  return isoTime(since);
}

const byTarget = (a: { target: string }, b: { target: string }): number =>
  a.target < b.target ? -1 : a.target > b.target ? 1 : 0;

export function planGrace(g: GraceState, revokeAfter: string): PlanGrace {
  return {
    revokeAfter,
    now: isoTime(g.input.now),
    pending: g.pending.sort((a, b) => (a.until < b.until ? -1 : a.until > b.until ? 1 : byTarget(a, b))),
    due: g.due.sort(byTarget),
  };
}
