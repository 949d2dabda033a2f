/**
 * The people a changes-only run touched (src/desired/sources/changes/touched.ts, through
 * readWithChanges): the run builds only the changed picture and compares each desired user's
 * digest with the one the last run kept. On randomized pictures and batches (a seeded generator),
 * the touched people and the groups' change must be exactly those a full comparison finds: the
 * kept picture and the changed one both built, and every user compared field by field
 * (isDeepStrictEqual, no digest), the expectation made without the code under test.
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
const build: BuildDesired = ({ picture: p }) => {
  const picked = p.groups.filter((g) => g.rule !== undefined);
  const users: DesiredUser[] = [];
  p.people.forEach((q, line) => {
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

/** A batch the picture can take (no fallback): statuses, renames, memberships, nesting, a group renamed. */
function batch(r: ReturnType<typeof random>, p: Picture, people: number): DirectoryChange[] {
  const changes: DirectoryChange[] = [];
  const known = p.people.map((q) => q.id);
  for (let n = r.int(4); n >= 0; n--) {
    const i = r.int(people);
    const pick = known[r.int(known.length)]!;
    const g = gid(r.int(8));
    switch (r.int(7)) {
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
