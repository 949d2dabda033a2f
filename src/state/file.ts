/**
 * The state file (`state.file`): read before planning, written by `apply` after a complete
 * listing and plan and before the first change is sent, atomically and under a lock, merged
 * with whatever another run wrote meanwhile (merge.ts).
 *
 * What is safe when the file is not what it should be: a missing file is a first run (every
 * missing person's grace period starts now); a file that does not parse or has the wrong shape
 * is set aside as `<file>.corrupt` and read as empty, which also only starts grace periods now.
 * Neither can make anyone be revoked early. A file that exists but cannot be read stops the run
 * (exit 4) before any request: usersync does not guess who is pending.
 */
import { open, readFile, rename, rm, stat } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { ConfigError } from "../errors.js";
import { writeFileAtomic } from "../files.js";
import { isoTime, type GraceEntry, type RecentChange } from "../plan/index.js";
import { emptyState, STATE_FORMAT_VERSION, type RemovalRecord, type StateData } from "./merge.js";

export interface StateRead {
  data: StateData;
  /** No file yet. */
  missing?: boolean;
  /** The file is there but not a usable state file: why. Read as empty. */
  corrupt?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Epoch ms of an ISO 8601 time, or NaN. */
const timeOf = (v: unknown): number => (typeof v === "string" ? Date.parse(v) : NaN);

/** The content, or why it is not a state file. All or nothing: a half-understood file is not used. */
export function parseState(text: string): StateData | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return `not valid JSON (${(err as Error).message})`;
  }
  if (!isRecord(value) || value["formatVersion"] !== STATE_FORMAT_VERSION || !isRecord(value["people"]))
    return `not a usersync state file of formatVersion ${STATE_FORMAT_VERSION}`;
  const data: StateData = { people: new Map() };
  if (value["fullRunAt"] !== undefined) {
    data.fullRunAt = timeOf(value["fullRunAt"]);
    if (Number.isNaN(data.fullRunAt)) return "fullRunAt is not an ISO 8601 time";
  }
  const sizes = value["groupSizes"];
  if (sizes !== undefined) {
    if (!isRecord(sizes) || !Object.values(sizes).every((n) => Number.isInteger(n) && (n as number) >= 0))
      return "groupSizes must map group keys to counts";
    data.groupSizes = sizes as Record<string, number>;
  }
  const changes = parseChanges(value["changes"]);
  if (typeof changes === "string") return changes;
  if (changes !== undefined) data.changes = changes;
  for (const [key, entry] of Object.entries(value["people"])) {
    const since = timeOf(isRecord(entry) ? entry["since"] : undefined);
    const reason = isRecord(entry) ? entry["reason"] : undefined;
    if (Number.isNaN(since) || (reason !== "missing" && reason !== "created"))
      return `people["${key}"] needs since (ISO 8601) and reason (missing or created)`;
    data.people.set(key, { since, reason });
  }
  const removals = parseRemovals(value["removals"]);
  if (typeof removals === "string") return removals;
  if (removals !== undefined) data.removals = removals;
  return data;
}

/** `removals` (docs/audits.md "Dated removals"): by person key, at, runId and maybe goneSince. */
function parseRemovals(value: unknown): Map<string, RemovalRecord> | string | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) return "removals must map person keys to { at, runId }";
  const removals = new Map<string, RemovalRecord>();
  for (const [key, entry] of Object.entries(value)) {
    const at = timeOf(isRecord(entry) ? entry["at"] : undefined);
    const runId = isRecord(entry) ? entry["runId"] : undefined;
    const gone = isRecord(entry) ? entry["goneSince"] : undefined;
    const goneSince = timeOf(gone);
    if (Number.isNaN(at) || typeof runId !== "string" || (gone !== undefined && Number.isNaN(goneSince)))
      return `removals["${key}"] needs at (ISO 8601) and runId`;
    removals.set(key, { at, runId, ...(gone !== undefined ? { goneSince } : {}) });
  }
  return removals;
}

/** `changes`: what recent applies changed (the revert guard), each with its time and run. */
function parseChanges(value: unknown): RecentChange[] | string | undefined {
  if (value === undefined) return undefined;
  const why = "changes must list objects with object, field, before, after, at (ISO 8601) and run";
  if (!Array.isArray(value)) return why;
  const out: RecentChange[] = [];
  // A large run's changes share one time: parse it once (one list of 100,000 after a first run).
  let lastAt: { text: unknown; ms: number } = { text: undefined, ms: NaN };
  for (const c of value) {
    if (!isRecord(c)) return why;
    const { object, field, before, after, run } = c;
    if (
      typeof object !== "string" ||
      typeof field !== "string" ||
      typeof before !== "string" ||
      typeof after !== "string" ||
      typeof run !== "string"
    )
      return why;
    if (c["at"] !== lastAt.text) lastAt = { text: c["at"], ms: timeOf(c["at"]) };
    if (Number.isNaN(lastAt.ms)) return why;
    const runId = typeof c["runId"] === "string" ? { runId: c["runId"] } : {};
    out.push({ object, field, before, after, at: lastAt.ms, run, ...runId });
  }
  return out;
}

export function serializeState(data: StateData): string {
  const people: Record<string, { since: string; reason: GraceEntry["reason"] }> = {};
  for (const key of [...data.people.keys()].sort()) {
    const e = data.people.get(key)!;
    people[key] = { since: isoTime(e.since), reason: e.reason };
  }
  const body = {
    formatVersion: STATE_FORMAT_VERSION,
    about:
      "usersync's memory between runs: for policy.revokeAfter, since when each person is missing from the source (or was created by an incremental run); for directory sources, how many members each picked group had at the last successful apply; when an apply removed each leaver's access (removals, read by usersync review); for policy.revertWindow, what recent applies changed. Written by usersync apply; see docs/configuration.md.",
    ...(data.fullRunAt !== undefined ? { fullRunAt: isoTime(data.fullRunAt) } : {}),
    people,
    ...(data.groupSizes !== undefined ? { groupSizes: sortedRecord(data.groupSizes) } : {}),
    ...(data.removals !== undefined && data.removals.size > 0
      ? { removals: removalsRecord(data.removals) }
      : {}),
    ...(data.changes !== undefined && data.changes.length > 0
      ? {
          changes: data.changes.map((c) => ({
            object: c.object,
            field: c.field,
            before: c.before,
            after: c.after,
            at: isoTime(c.at),
            run: c.run,
            ...(c.runId !== undefined ? { runId: c.runId } : {}),
          })),
        }
      : {}),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

const removalsRecord = (removals: ReadonlyMap<string, RemovalRecord>): Record<string, unknown> =>
  Object.fromEntries(
    [...removals.keys()].sort().map((key) => {
      const r = removals.get(key)!;
      const gone = r.goneSince !== undefined ? { goneSince: isoTime(r.goneSince) } : {};
      return [key, { at: isoTime(r.at), runId: r.runId, ...gone }];
    }),
  );

const sortedRecord = (r: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * The last text read or written and what it holds: a run reads the state file up to five times
 * (the group sizes, the revert guard's changes, then under the lock for each record after the
 * apply), and after a large first run it holds one recent change per person. The same text is not
 * parsed again; any other text (another run wrote it) is. Callers never mutate what they read
 * (merge.ts makes new values).
 */
let last: { file: string; text: string; data: StateData } | undefined;

export async function readState(file: string): Promise<StateRead> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    if (code === "ENOENT") return { data: emptyState(), missing: true };
    throw new ConfigError({
      message: `state.file ${file} cannot be read (${code}): fix its permissions or the volume it is on. Nothing was sent; usersync does not guess who is pending.`,
    });
  }
  if (last !== undefined && last.file === file && last.text === text) return { data: last.data };
  const parsed = parseState(text);
  if (typeof parsed === "string") return { data: emptyState(), corrupt: parsed };
  last = { file, text, data: parsed };
  return { data: parsed };
}

/** A lock older than this was left by a run that died inside its few milliseconds of writing. */
const STALE_LOCK_MS = 10_000;
const LOCK_WAIT_MS = 15_000;

/** Runs `fn` holding `<file>.lock` (created exclusively); other runs wait for it. */
export async function withStateLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  const deadline = performance.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await open(lock, "wx");
      await handle.writeFile(`${process.pid} ${isoTime(Date.now())}\n`);
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const held = await stat(lock).catch(() => undefined);
      if (held !== undefined && Date.now() - held.mtimeMs > STALE_LOCK_MS) await rm(lock, { force: true });
      else if (performance.now() > deadline)
        throw new ConfigError({
          message: `state.file ${file}: another run holds ${lock}. Nothing was sent; run again, or remove the lock if no usersync runs.`,
        });
      else await sleep(50);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}

/** Sets a corrupt file aside (one copy, the newest) before it is replaced. */
export async function keepCorrupt(file: string): Promise<string> {
  const aside = `${file}.corrupt`;
  await rename(file, aside);
  return aside;
}

export async function writeState(file: string, data: StateData): Promise<void> {
  // People's ids and emails: readable by the run's user only, like the credentials file.
  const text = serializeState(data);
  last = undefined;
  await writeFileAtomic(file, text, 0o600);
  last = { file, text, data };
}
