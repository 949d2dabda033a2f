/**
 * The people a changes-only run touched (src/desired/sources/changes/touched.ts, through
 * readWithChanges): the run builds only the changed picture and compares each desired user's
 * digest with the one the last run kept. On randomized pictures and batches (a seeded generator),
 * the touched people and the groups' change must be exactly those a full comparison finds: the
 * kept picture and the changed one both built, and every user compared field by field
 * (isDeepStrictEqual, no digest), the expectation made without the code under test.
 *
 * With a partial build allowed (changes/partial.ts: only the people a batch can have touched are
 * built), the same, and more: each record it built is the whole build's (field for field, line
 * included), the digests it keeps are those of the whole build of the changed picture, and its
 * counts are the whole state's. A batch it cannot bound, or kept digests this build did not make,
 * is a whole build.
 */
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { readWithChanges, type Choice } from "../../../../src/desired/sources/changes/run.js";
import type {
  BuildDesired,
  ChangeFeed,
  DirectoryChange,
  Picture,
  PicturedGroup,
  PicturedPerson,
} from "../../../../src/desired/sources/changes/feed.js";
import type { KeptChanges } from "../../../../src/state/changes-file.js";
import { desiredDigests } from "../../../../src/desired/sources/changes/touched.js";
import { candidatesOf } from "../../../../src/desired/sources/changes/partial.js";
import { createLogger } from "../../../../src/logging.js";
import type { DesiredGroup, DesiredUser } from "../../../../src/desired/types.js";

/** A small seeded generator (mulberry32): the same seed, the same pictures. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { int: (n: number) => Math.floor(next() * n), chance: (p: number) => next() < p };
}

const pid = (i: number) => `p${String(i).padStart(3, "0")}`;
const gid = (i: number) => `g${i}`;
const person = (i: number, name: string, status: PicturedPerson["status"] = "enabled"): PicturedPerson => ({
  id: pid(i),
  status,
  attributes: { mail: `${pid(i)}@example.com`, displayName: name },
});

/** Groups g0..g3 picked (rules 0..3), g4..g7 nested below them; people spread over all. */
function picture(r: ReturnType<typeof random>, people: number): Picture {
  const groups: PicturedGroup[] = [];
  for (let g = 0; g < 8; g++) {
    const members = new Set<string>();
    for (let i = 0; i < people; i++) if (r.chance(0.2)) members.add(pid(i));
    groups.push({
      id: gid(g),
      name: `Group ${g}`,
      ...(g < 4 ? { rule: g } : {}),
      attributes: { displayName: `Group ${g}` },
      people: [...members].sort(),
      groups: g < 4 && r.chance(0.6) ? [gid(4 + r.int(4))] : [],
    });
  }
  return {
    formatVersion: 1,
    kind: "entra",
    configDigest: "d",
    readAt: "2026-11-29T00:00:00.000Z",
    groups,
    people: Array.from({ length: people }, (_, i) =>
      person(i, `Person ${i}`, r.chance(0.1) ? "disabled" : "enabled"),
    ),
  };
}

/** The people of a picked group at any depth, by a walk of its own (not the code's closure). */
function reach(p: Picture, id: string, seen = new Set<string>()): Set<string> {
  const out = new Set<string>();
  if (seen.has(id)) return out;
  seen.add(id);
  const g = p.groups.find((x) => x.id === id);
  for (const m of g?.people ?? []) out.add(m);
  for (const n of g?.groups ?? []) for (const m of reach(p, n, seen)) out.add(m);
  return out;
}

/** A source's build: a user per person in a picked group, with their groups and state. */
const build: BuildDesired = ({ picture: p, only }) => {
  const picked = p.groups.filter((g) => g.rule !== undefined);
  const users: DesiredUser[] = [];
  p.people.forEach((q, line) => {
    if (only !== undefined && !only.has(q.id)) return;
    const groups = picked.filter((g) => reach(p, g.id).has(q.id)).map((g) => g.id);
    if (groups.length === 0) return;
    users.push({
      id: `u-${q.id}`,
      idDerived: true,
      email: String(q.attributes["mail"]),
      displayName: String(q.attributes["displayName"]),
      groups,
      identity: "builtin",
      state: q.status === "enabled" ? "present" : "absent",
      source: { file: "directory", line: line + 1 },
    });
  });
  const groups: DesiredGroup[] = picked.map((g, line) => ({
    id: g.id,
    name: g.name,
    source: { file: "directory", line: line + 1 },
  }));
  return {
    state: { users, groups, files: ["directory"] },
    problems: [],
    evidence: { kind: "entra", source: "test", scope: [], reads: [], skipped: [], groupSizes: {} },
  };
};

/** A batch: statuses, renames, memberships, nesting, a group renamed, read again or removed, a person removed. */
function batch(r: ReturnType<typeof random>, p: Picture, people: number): DirectoryChange[] {
  const changes: DirectoryChange[] = [];
  const known = p.people.map((q) => q.id);
  for (let n = r.int(4); n >= 0; n--) {
    const i = r.int(people);
    const pick = known[r.int(known.length)]!;
    const g = gid(r.int(8));
    switch (r.int(10)) {
      case 0:
        changes.push({ type: "person-status", id: pick, status: r.chance(0.5) ? "disabled" : "enabled" });
        break;
      case 1:
        changes.push({
          type: "person-upserted",
          person: person(Number(pick.slice(1)), `Renamed ${r.int(9)}`),
        });
        break;
      case 2:
        changes.push({
          type: "member-added",
          group: g,
          member: pid(i),
          memberKind: "person",
          person: person(i, `Person ${i}`),
        });
        break;
      case 3:
        changes.push({ type: "member-removed", group: g, member: pick, memberKind: "person" });
        break;
      case 4:
        changes.push({
          type: "member-added",
          group: gid(r.int(4)),
          member: gid(4 + r.int(4)),
          memberKind: "group",
        });
        break;
      case 5:
        changes.push({
          type: "group-updated",
          id: gid(r.int(4)),
          name: `Group ${r.int(99)}`,
          attributes: {},
        });
        break;
      case 6:
        changes.push({ type: "person-removed", id: pick });
        break;
      case 7: {
        // A group read again: new members (some new to the picture), its nesting kept.
        const kept = p.groups.find((x) => x.id === g);
        if (kept === undefined) break; // removed earlier
        const members = [...new Set([pick, pid(i), ...kept.people.filter(() => r.chance(0.7))])].sort();
        const group = { ...kept, people: members };
        changes.push({ type: "group-read", group, people: [person(i, `Read ${r.int(9)}`)] });
        break;
      }
      case 8:
        changes.push({ type: "group-removed", id: gid(4 + r.int(4)) });
        break;
      default:
        // Nothing this time: an empty or short batch is a case too.
        break;
    }
  }
  return changes;
}

const ctx = { env: {}, logger: createLogger({ level: "silent" }), defaultIdentity: "builtin" as const };
const position = (n: number) => ({
  kind: "entra" as const,
  streams: { users: `u${n}` },
  takenAt: "2026-11-29T00:00:00.000Z",
});

function feedOf(whole: Picture, changes: () => readonly DirectoryChange[]): ChangeFeed {
  return {
    kind: "entra",
    configDigest: "d",
    readWhole: () => Promise.resolve({ picture: whole, position: position(0), reads: [] }),
    readChanges: () =>
      Promise.resolve({ kind: "changes", changes: changes(), position: position(1), reads: [] }),
    build,
    partial: true,
    close: () => Promise.resolve(),
  };
}

const bare = <T extends { source?: unknown }>(x: T) => ({ ...x, source: undefined });

describe("touched people by digest agree with a full comparison", () => {
  it.each([1, 2, 3, 4, 5])("randomized pictures and batches, seed %i", async (seed) => {
    const r = random(seed);
    const people = 40;
    let p = picture(r, people);
    const first = await readWithChanges({
      feed: feedOf(p, () => []),
      choice: { read: "whole", reason: "no-picture", detail: "first", full: true },
      ctx,
      now: Date.parse("2026-11-29T00:00:00.000Z"),
    });
    let kept: KeptChanges = first.next;
    let checked = 0;
    for (let round = 0; round < 60; round++) {
      const changes = batch(r, p, people);
      const choice: Choice = { read: "changes", kept };
      const read = await readWithChanges({
        feed: feedOf(p, () => changes),
        choice,
        ctx,
        now: Date.parse("2026-11-29T01:00:00.000Z"),
      });
      if (read.how.source !== "changes") continue; // a batch the picture cannot take: read whole
      const before = build({ picture: p, ctx, reads: [] }).state;
      const after = build({ picture: read.next.picture, ctx, reads: [] }).state;
      const was = new Map(before.users.map((u) => [u.id, bare(u)]));
      const is = new Map(after.users.map((u) => [u.id, bare(u)]));
      const expected = [...new Set([...was.keys(), ...is.keys()])]
        .filter((id) => !isDeepStrictEqual(was.get(id), is.get(id)))
        .sort();
      expect(read.touched, `seed ${seed} round ${round}`).toEqual(expected);
      expect(read.groupsChanged).toBe(!isDeepStrictEqual(before.groups.map(bare), after.groups.map(bare)));
      p = read.next.picture;
      kept = read.next;
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
  });
});

const present = (users: readonly DesiredUser[]) => users.filter((u) => u.state === "present").length;
const partial = { maxPeople: 1_000, usable: () => true };

describe("a partial build agrees with a whole build of the changed picture", () => {
  it.each([1, 2, 3, 4, 5, 6])("randomized pictures and batches, seed %i", async (seed) => {
    const r = random(seed);
    const people = 40;
    let p = picture(r, people);
    const first = await readWithChanges({
      feed: feedOf(p, () => []),
      choice: { read: "whole", reason: "no-picture", detail: "first", full: true },
      ctx,
      now: Date.parse("2026-11-29T00:00:00.000Z"),
      version: "v1",
      partial,
    });
    let kept: KeptChanges = { ...first.next, managedUsers: people };
    let partials = 0;
    for (let round = 0; round < 60; round++) {
      const changes = batch(r, p, people);
      const read = await readWithChanges({
        feed: feedOf(p, () => changes),
        choice: { read: "changes", kept },
        ctx,
        now: Date.parse("2026-11-29T01:00:00.000Z"),
        version: "v1",
        partial,
      });
      if (read.how.source !== "changes") continue;
      const at = `seed ${seed} round ${round}`;
      const before = build({ picture: p, ctx, reads: [] }).state;
      const after = build({ picture: read.next.picture, ctx, reads: [] }).state;
      const was = new Map(before.users.map((u) => [u.id, bare(u)]));
      const is = new Map(after.users.map((u) => [u.id, bare(u)]));
      const expected = [...new Set([...was.keys(), ...is.keys()])]
        .filter((id) => !isDeepStrictEqual(was.get(id), is.get(id)))
        .sort();
      expect(read.touched, at).toEqual(expected);
      expect(read.groupsChanged, at).toBe(
        !isDeepStrictEqual(before.groups.map(bare), after.groups.map(bare)),
      );
      // The bound itself: everyone whose record changed is among the candidates (u-p001 is p001).
      const candidates = candidatesOf(p, read.next.picture, changes);
      for (const id of expected) expect(candidates?.has(id.slice(2)), `${at}: ${id}`).toBe(true);
      // What is kept is the whole build's, partial or not.
      const whole = desiredDigests(after);
      expect(new Map(read.next.digests.users), at).toEqual(new Map(whole.users));
      expect(read.next.digests.groups, at).toBe(whole.groups);
      expect(read.next.digests.present, at).toBe(present(after.users));
      if (read.partial !== undefined) {
        partials++;
        const full = new Map(after.users.map((u) => [u.id, u]));
        for (const u of read.result.state.users) expect(u, at).toEqual(full.get(u.id));
        const built = new Set(read.result.state.users.map((u) => u.id));
        for (const id of expected) if (full.has(id)) expect(built.has(id), `${at}: ${id}`).toBe(true);
        expect(read.result.state.groups, at).toEqual(after.groups);
        expect(read.partial, at).toEqual({ users: after.users.length, present: present(after.users) });
        // Only leavers and people gone: a present touched person may need a whole listing.
        for (const id of expected) expect(full.get(id)?.state ?? "gone", at).not.toBe("present");
      } else expect(read.result.state.users, at).toEqual(after.users);
      p = read.next.picture;
      kept = read.next;
    }
    expect(partials).toBeGreaterThan(5);
  });

  it("builds whole when the kept digests are not this build's, or of another usersync", async () => {
    const r = random(9);
    const p = picture(r, 40);
    const first = await readWithChanges({
      feed: feedOf(p, () => []),
      choice: { read: "whole", reason: "no-picture", detail: "first", full: true },
      ctx,
      now: Date.parse("2026-11-29T00:00:00.000Z"),
      version: "v1",
    });
    const leaver = build({ picture: p, ctx, reads: [] }).state.users.find((u) => u.state === "present")!;
    const changes: DirectoryChange[] = [
      { type: "person-status", id: leaver.id.slice(2), status: "disabled" },
    ];
    const run = (kept: KeptChanges) =>
      readWithChanges({
        feed: feedOf(p, () => changes),
        choice: { read: "changes", kept: { ...kept, managedUsers: 40 } },
        ctx,
        now: Date.parse("2026-11-29T01:00:00.000Z"),
        version: "v1",
        partial,
      });
    const good = await run(first.next);
    expect(good.partial).toBeDefined();
    expect(good.touched).toEqual([leaver.id]);
    const users = new Map(first.next.digests.users).set(leaver.id, "not-this-build");
    const tampered = await run({ ...first.next, digests: { ...first.next.digests, users } });
    expect(tampered.partial).toBeUndefined();
    expect(tampered.touched).toEqual([leaver.id]);
    const older = await run({ ...first.next, builtBy: "v0" });
    expect(older.partial).toBeUndefined();
    expect(older.touched).toEqual([leaver.id]);
  });
});
