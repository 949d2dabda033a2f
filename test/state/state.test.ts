/**
 * The state file of policy.revokeAfter: how a plan changes it (pure), what a damaged file reads
 * as, and two runs writing it at once. The rule under test everywhere: nothing may make a grace
 * period start earlier than it did.
 */
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { plan, type GraceEntry, type Plan } from "../../src/plan/index.js";
import {
  emptyState,
  mergeState,
  withChanges,
  parseState,
  readState,
  serializeState,
  withRemovals,
  withStateLock,
  writeState,
  type StateData,
} from "../../src/state/index.js";
import { aDesiredState, aMapping, aPolicy, aUser, anActualState, anIdpUser } from "../plan/builders.js";

const HOUR = 3_600_000;
const T = Date.parse("2024-05-06T10:00:00.000Z");
const iso = (ms: number): string => new Date(ms).toISOString();

/** A plan at time `now` of an org of a, b, c (mapped built-in users) against a source of `present`. */
function planAt(
  now: number,
  present: string[],
  options: { mode?: "full" | "incremental"; state?: StateData } = {},
): Plan {
  const idpUsers = ["a", "b", "c"].map((id) => anIdpUser({ email: `${id}@x.com` }));
  return plan({
    desired: aDesiredState(present.map((id) => aUser({ email: `${id}@x.com` }))),
    actual: anActualState({
      idpUsers,
      mappings: idpUsers.map((u) =>
        aMapping({ id: u.email[0]!, authenticationId: u.authenticationId, email: u.email }),
      ),
    }),
    policy: aPolicy({
      mode: options.mode ?? "full",
      maxDeletes: { count: 10 },
      revokeAfter: { text: "72h", seconds: 72 * 3600 },
    }),
    profile: "v1",
    grace: { now, people: (options.state ?? emptyState()).people },
  });
}

const state = (people: Record<string, GraceEntry>, fullRunAt?: number): StateData => ({
  ...(fullRunAt !== undefined ? { fullRunAt } : {}),
  people: new Map(Object.entries(people)),
});

const next = (fresh: StateData, p: Plan): StateData => {
  const merged = mergeState(fresh, p);
  if (merged === undefined || "stale" in merged) throw new Error(`not merged: ${JSON.stringify(merged)}`);
  return merged.next;
};

describe("mergeState", () => {
  test("a full run remembers who is missing since when, and forgets who came back", () => {
    const first = next(emptyState(), planAt(T, ["a"]));
    expect(Object.fromEntries(first.people)).toEqual({
      "mapping:b": { since: T, reason: "missing" },
      "mapping:c": { since: T, reason: "missing" },
    });
    expect(first.fullRunAt).toBe(T);
    // An hour later c is back: forgotten; b keeps the first time it was missed.
    const second = next(first, planAt(T + HOUR, ["a", "c"], { state: first }));
    expect(Object.fromEntries(second.people)).toEqual({ "mapping:b": { since: T, reason: "missing" } });
  });

  test("a source that loses people for one run revokes nobody and leaves no trace once they are back", () => {
    const lost = planAt(T, []);
    expect(lost.steps).toEqual([]);
    expect(lost.grace?.pending).toHaveLength(3);
    const after = next(next(emptyState(), lost), planAt(T + HOUR, ["a", "b", "c"]));
    expect(after.people.size).toBe(0);
  });

  test("an incremental run records whom it creates, since its time, and touches nobody else", () => {
    const before = state({ "mapping:b": { since: T - HOUR, reason: "missing" } });
    const onboarding = plan({
      desired: aDesiredState([
        aUser({ email: "new.hire@x.com" }),
        aUser({ email: "ext@x.com", identity: "external", authenticationId: "sub-1" }),
      ]),
      actual: anActualState(),
      policy: aPolicy({ revokeAfter: { text: "72h", seconds: 72 * 3600 } }),
      profile: "v1",
      grace: { now: T, people: before.people },
    });
    const after = next(before, onboarding);
    expect(Object.fromEntries(after.people)).toEqual({
      "mapping:b": { since: T - HOUR, reason: "missing" },
      "mapping:ext": { since: T, reason: "created" },
      "mapping:new.hire": { since: T, reason: "created" },
    });
  });

  test("entries written after the plan was made (another run) are kept; the later since wins", () => {
    const p = planAt(T, ["a", "b"]); // c missing: since T
    const fresh = state({
      "mapping:c": { since: T + 5 * 60_000, reason: "created" },
      "mapping:new": { since: T + 60_000, reason: "created" },
      "mapping:old": { since: T - HOUR, reason: "missing" },
    });
    expect(Object.fromEntries(next(fresh, p).people)).toEqual({
      "mapping:c": { since: T + 5 * 60_000, reason: "created" },
      "mapping:new": { since: T + 60_000, reason: "created" },
    });
  });

  test("a full run older than the last full run written does not write (it would bring back the forgotten)", () => {
    const merged = mergeState(state({}, T + HOUR), planAt(T, ["a"]));
    expect(merged).toEqual({ stale: expect.stringContaining("wrote the state file after this one") });
  });

  test("a plan without a grace period writes nothing", () => {
    const p = planAt(T, ["a"]);
    const { grace: _grace, ...without } = p;
    expect(mergeState(emptyState(), without)).toBeUndefined();
  });
});

describe("the state file", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "usersync-state-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("round trip: written 0600 with sorted keys and read back the same", async () => {
    const file = join(dir, "state.json");
    const data = state(
      { "mapping:z": { since: T, reason: "missing" }, "idp:a@x.com": { since: T - HOUR, reason: "created" } },
      T,
    );
    await writeState(file, data);
    expect((await readState(file)).data).toEqual(data);
    const text = await readFile(file, "utf8");
    expect(text.indexOf('"idp:a@x.com"')).toBeLessThan(text.indexOf('"mapping:z"'));
    expect(text).toContain(`"since": "${iso(T)}"`);
    const { stat } = await import("node:fs/promises");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  test("missing is a first run; unreadable content is corrupt and reads as empty, never as partly known", async () => {
    expect(await readState(join(dir, "none.json"))).toEqual({ data: emptyState(), missing: true });
    const good = JSON.parse(serializeState(state({ "mapping:a": { since: T, reason: "missing" } }))) as {
      people: Record<string, Record<string, unknown>>;
    };
    const broken: Array<[string, string]> = [
      [
        "truncated JSON",
        serializeState(state({ "mapping:a": { since: T, reason: "missing" } })).slice(0, 40),
      ],
      ["another version", JSON.stringify({ ...good, formatVersion: 2 })],
      [
        "a bad time",
        JSON.stringify({
          ...good,
          people: { ...good.people, "mapping:b": { since: "yesterday", reason: "missing" } },
        }),
      ],
      [
        "a bad reason",
        JSON.stringify({
          ...good,
          people: { ...good.people, "mapping:b": { since: iso(T), reason: "gone" } },
        }),
      ],
      ["not an object", "[]"],
    ];
    for (const [name, text] of broken) {
      expect(typeof parseState(text), name).toBe("string");
      await writeFile(join(dir, "s.json"), text);
      const read = await readState(join(dir, "s.json"));
      expect(read.data.people.size, name).toBe(0);
      expect(read.corrupt, name).toBeTruthy();
    }
  });

  test("a file that exists but cannot be read stops the run (exit 4), it is not taken as empty", async () => {
    const file = join(dir, "folder-not-file");
    const { mkdir } = await import("node:fs/promises");
    await mkdir(file);
    await expect(readState(file)).rejects.toThrow(/state.file .* cannot be read \(EISDIR\)/);
  });

  test("two runs writing at once: the lock serialises them and neither loses the other's people", async () => {
    const file = join(dir, "state.json");
    const add = (key: string, since: number) =>
      withStateLock(file, async () => {
        const read = await readState(file);
        await new Promise((r) => setTimeout(r, 20)); // a slow disk: the other run must wait
        read.data.people.set(key, { since, reason: "created" });
        await writeState(file, read.data);
      });
    await Promise.all([add("mapping:one", T), add("mapping:two", T + 1), add("mapping:three", T + 2)]);
    expect([...(await readState(file)).data.people.keys()].sort()).toEqual([
      "mapping:one",
      "mapping:three",
      "mapping:two",
    ]);
    expect(await readdir(dir)).toEqual(["state.json"]);
  });

  test("a lock left by a run that died is broken after a while", async () => {
    const file = join(dir, "state.json");
    await writeFile(`${file}.lock`, "12345\n");
    const old = new Date(Date.now() - 60_000);
    await utimes(`${file}.lock`, old, old);
    await withStateLock(file, () => writeState(file, emptyState()));
    expect((await readState(file)).missing).toBeUndefined();
  });
});

describe("the picked groups' sizes in the state file", () => {
  test("are written sorted, read back, kept by a grace merge, and refused when not counts", () => {
    const data: StateData = { people: new Map(), groupSizes: { "okta:b": 2, "entra:a": 40 } };
    const text = serializeState(data);
    expect(text.indexOf('"entra:a"')).toBeLessThan(text.indexOf('"okta:b"'));
    expect(parseState(text)).toEqual(data);
    // A full run's grace merge rewrites people and keeps what it does not own.
    const merged = next(data, planAt(T, ["a"]));
    expect(merged.groupSizes).toEqual({ "entra:a": 40, "okta:b": 2 });
    const bad = text.replace('"okta:b": 2', '"okta:b": -1');
    expect(parseState(bad)).toBe("groupSizes must map group keys to counts");
  });
});

describe('removals in the state file (docs/audits.md "Dated removals")', () => {
  test("are written by person, read back, kept by a grace merge, a newer one wins, and refused when malformed", () => {
    const at = Date.parse("2026-03-01T10:00:00.000Z");
    const gone = Date.parse("2026-02-27T09:00:00.000Z");
    const data = withRemovals(
      { people: new Map() },
      new Map([
        ["mapping:b", { at, runId: "run-1" }],
        ["mapping:a", { at, runId: "run-1", goneSince: gone }],
      ]),
    );
    const text = serializeState(data);
    expect(JSON.parse(text).removals).toEqual({
      "mapping:a": { at: "2026-03-01T10:00:00.000Z", runId: "run-1", goneSince: "2026-02-27T09:00:00.000Z" },
      "mapping:b": { at: "2026-03-01T10:00:00.000Z", runId: "run-1" },
    });
    expect(parseState(text)).toEqual(data);
    expect(next(data, planAt(T, ["a"])).removals).toEqual(data.removals);
    // A later removal of the same person replaces the earlier; an older one does not.
    const later = withRemovals(data, new Map([["mapping:b", { at: at + 1000, runId: "run-2" }]]));
    expect(later.removals!.get("mapping:b")).toEqual({ at: at + 1000, runId: "run-2" });
    expect(
      withRemovals(later, new Map([["mapping:b", { at, runId: "run-0" }]])).removals!.get("mapping:b")!.runId,
    ).toBe("run-2");
    expect(parseState(text.replace('"runId": "run-1"', '"runId": 1'))).toBe(
      'removals["mapping:a"] needs at (ISO 8601) and runId',
    );
  });
});

describe("recent changes in the state file (the revert guard)", () => {
  const H = 3_600_000;
  const NOW = Date.parse("2024-05-06T10:00:00.000Z");
  const c = (at: number) => ({
    object: "mapping:a",
    field: "group:g1",
    before: "not a member",
    after: "member",
    at,
    run: "d1",
  });

  test("written and read back; entries older than the window are dropped when written", () => {
    const data = withChanges({ ...emptyState(), changes: [c(NOW - 80 * H)] }, [c(NOW)], NOW, 72 * H);
    expect(data.changes).toEqual([c(NOW)]);
    const back = parseState(serializeState(data));
    expect(typeof back === "string" ? back : back.changes).toEqual([c(NOW)]);
    expect(withChanges(data, [], NOW + 73 * H, 72 * H).changes).toBeUndefined();
  });

  test("a changes entry without its run makes the file unusable (read as empty, set aside)", () => {
    const text = serializeState({ ...emptyState(), changes: [c(NOW)] }).replace('"run": "d1"', '"run": 1');
    expect(parseState(text)).toMatch(/changes must list objects/);
  });
});
