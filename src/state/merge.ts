/**
 * The state file's content as data, and how a plan changes it: pure, so every rule about who is
 * remembered and who is forgotten is tested without a disk. Two runs may write one file (the
 * onboarding Job and the hourly sync): the writer re-reads the file under a lock and merges, and
 * every way a merge can lose something only makes a grace period start later, never earlier.
 */
import { isoTime, type GraceEntry, type GraceReason, type Plan, type RecentChange } from "../plan/index.js";
import { changesOf, mappingKey, nounOf, personOfSteps, verbOf } from "../plan/index.js";

export const STATE_FORMAT_VERSION = 1;

export interface StateData {
  /** The plan time of the newest full run that wrote the file (epoch ms). */
  fullRunAt?: number;
  /** By person key (`mapping:<user id>`, `idp:<email>`): since when missing, or created. */
  people: Map<string, GraceEntry>;
  /**
   * Members per picked directory group at the last successful apply (src/desired/sources/
   * group-sizes.ts): a group that suddenly reads empty against it is not believed.
   */
  groupSizes?: Record<string, number>;
  /** What recent applies changed, field by field, for the revert guard (`policy.revertWindow`). */
  changes?: RecentChange[];
  /**
   * By person key (`mapping:<user id>`): the last time an apply removed all of the person's
   * access (docs/audits.md "Dated removals"), read by `usersync review`.
   */
  removals?: Map<string, RemovalRecord>;
}

/** One person's access removed by a run: when (epoch ms), which run, and since when they were gone. */
export interface RemovalRecord {
  at: number;
  runId: string;
  goneSince?: number;
}

/** How many removal records the file keeps: the newest, so a file of many leavers stays small. */
export const MAX_REMOVALS = 100_000;

/** `data` with `records` added (a newer record of a person replaces the older), the newest kept. */
export function withRemovals(data: StateData, records: ReadonlyMap<string, RemovalRecord>): StateData {
  const all = new Map(data.removals ?? []);
  for (const [key, r] of records) {
    const old = all.get(key);
    if (old === undefined || old.at <= r.at) all.set(key, r);
  }
  const kept = [...all].sort(([, a], [, b]) => b.at - a.at).slice(0, MAX_REMOVALS);
  return { ...data, removals: new Map(kept) };
}

export const emptyState = (): StateData => ({ people: new Map() });

/** People an incremental plan creates (a login or a user): their grace period starts now. */
export function createdKeys(plan: Plan): string[] {
  const person = personOfSteps(plan.steps);
  const keys = new Set<string>();
  for (const s of plan.steps) {
    if (s.status !== "planned" || verbOf(s.kind) !== "create") continue;
    const noun = nounOf(s.kind);
    if (noun === "mapping") keys.add(mappingKey(s.target));
    else if (noun === "credentials") keys.add(mappingKey(person.get(s.id) ?? s.target));
  }
  return [...keys];
}

const later = (a: GraceEntry | undefined, b: GraceEntry): GraceEntry =>
  a !== undefined && a.since > b.since ? a : b;

/**
 * The state after `plan`, merged into the file as it is now (`fresh`); `stale` when a newer full
 * run already wrote what it saw; undefined when the plan has no grace period (nothing to write).
 *
 * - A full plan knows everyone missing at its time T: its pending and due people are written
 *   (keeping the later `since` where the file has one), and every entry from T or before that
 *   it does not name is forgotten (back in the source, revoked, out of scope). Entries after T
 *   come from runs that started later and are kept.
 * - An incremental plan adds the people it creates, since T, reason `created`; the rest stays.
 */
export function mergeState(
  fresh: StateData,
  plan: Plan,
): { next: StateData } | { stale: string } | undefined {
  const grace = plan.grace;
  if (grace === undefined) return undefined;
  const at = Date.parse(grace.now);
  if (plan.mode !== "full") {
    const people = new Map(fresh.people);
    for (const key of createdKeys(plan))
      people.set(key, later(people.get(key), { since: at, reason: "created" }));
    return { next: { ...fresh, people } };
  }
  if (fresh.fullRunAt !== undefined && fresh.fullRunAt > at)
    return {
      stale: `a full run planned at ${isoTime(fresh.fullRunAt)} wrote the state file after this one (planned at ${grace.now}) had read it`,
    };
  const people = new Map([...fresh.people].filter(([, e]) => e.since > at));
  for (const p of [...grace.pending, ...grace.due]) {
    const entry = { since: Date.parse(p.since), reason: p.reason as GraceReason };
    people.set(p.target, later(people.get(p.target), entry));
  }
  return { next: { ...fresh, fullRunAt: at, people } };
}

/** The recorded changes plus `added`, those older than the window before `now` dropped. */
export function withChanges(
  data: StateData,
  added: readonly RecentChange[],
  now: number,
  windowMs: number,
): StateData {
  const changes = [...(data.changes ?? []), ...added].filter((c) => now - c.at <= windowMs);
  const { changes: _old, ...rest } = data;
  return changes.length > 0 ? { ...rest, changes } : rest;
}

/** What the plan's succeeded steps changed, field by field, at `at`, named by the plan's stateDigest. */
export function changesOfRun(
  plan: Plan,
  succeeded: ReadonlySet<string>,
  at: number,
  runId?: string,
): RecentChange[] {
  const run = plan.stateDigest ?? "unknown";
  return plan.steps
    .filter((s) => succeeded.has(s.id))
    .flatMap((s) => changesOf(s).map((c) => ({ ...c, at, run, ...(runId !== undefined ? { runId } : {}) })));
}
