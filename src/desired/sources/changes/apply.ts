/**
 * Changes applied to a picture (feed.ts), the same for every directory: pure, no I/O, no clock,
 * the input never mutated. What the picture cannot take safely (a picked group deleted, a nested
 * group added whose members are unknown, a member added who is nobody the picture knows) is a
 * fallback to a whole read, never a guess. After the changes, groups no picked group reaches and
 * people no kept group holds leave the picture, so it stays what a whole read would have read.
 */
import type {
  Applied,
  DirectoryChange,
  Picture,
  PicturedGroup,
  PicturedPerson,
  WholeReason,
} from "./feed.js";

interface Working {
  groups: Map<string, PicturedGroup>;
  people: Map<string, PicturedPerson>;
}

class Fallback {
  constructor(
    readonly reason: WholeReason,
    readonly detail: string,
  ) {}
}

const sorted = (ids: Iterable<string>): string[] => [...new Set(ids)].sort();
const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function withList(g: PicturedGroup, key: "people" | "groups", id: string, add: boolean): PicturedGroup {
  const list = add ? sorted([...g[key], id]) : g[key].filter((x) => x !== id);
  return { ...g, [key]: list };
}

function member(w: Working, c: Extract<DirectoryChange, { type: "member-added" | "member-removed" }>): void {
  const group = w.groups.get(c.group);
  // A group outside the picture's tree: its members reach nobody picked.
  if (group === undefined) return;
  const add = c.type === "member-added";
  if (add && c.memberKind === "group" && !w.groups.has(c.member))
    throw new Fallback(
      "groups-changed",
      `group ${c.member} was nested in ${group.name} and its members are not known`,
    );
  if (add && c.memberKind === "person") {
    if (c.type === "member-added" && c.person !== undefined) w.people.set(c.member, c.person);
    else if (!w.people.has(c.member))
      throw new Fallback(
        "groups-changed",
        `${c.member} joined ${group.name} and is nobody the picture knows`,
      );
  }
  w.groups.set(group.id, withList(group, c.memberKind === "person" ? "people" : "groups", c.member, add));
}

function one(w: Working, c: DirectoryChange): void {
  switch (c.type) {
    case "person-upserted": {
      const kept = w.people.get(c.person.id);
      w.people.set(c.person.id, {
        ...c.person,
        attributes: { ...(kept?.attributes ?? {}), ...c.person.attributes },
      });
      return;
    }
    case "person-status": {
      const kept = w.people.get(c.id);
      if (kept !== undefined) w.people.set(c.id, { ...kept, status: c.status });
      return;
    }
    case "person-removed":
      w.people.delete(c.id);
      for (const g of w.groups.values())
        if (g.people.includes(c.id)) w.groups.set(g.id, withList(g, "people", c.id, false));
      return;
    case "member-added":
    case "member-removed":
      return member(w, c);
    case "group-updated": {
      const kept = w.groups.get(c.id);
      if (kept !== undefined) w.groups.set(c.id, { ...kept, name: c.name, attributes: c.attributes });
      return;
    }
    case "group-removed": {
      const kept = w.groups.get(c.id);
      if (kept === undefined) return;
      if (kept.rule !== undefined)
        throw new Fallback("groups-changed", `the picked group ${kept.name} (${kept.id}) was deleted`);
      w.groups.delete(c.id);
      for (const g of w.groups.values())
        if (g.groups.includes(c.id)) w.groups.set(g.id, withList(g, "groups", c.id, false));
      return;
    }
    case "group-read": {
      const kept = w.groups.get(c.group.id);
      const rule = c.group.rule ?? kept?.rule;
      w.groups.set(c.group.id, { ...c.group, ...(rule !== undefined ? { rule } : {}) });
      for (const p of c.people) w.people.set(p.id, p);
      return;
    }
  }
}

/** The groups every picked group reaches (itself included), following nested groups; cycles are safe. */
export function reachable(groups: ReadonlyMap<string, PicturedGroup>, from: string): Set<string> {
  const seen = new Set<string>();
  const todo = [from];
  while (todo.length > 0) {
    const id = todo.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const n of groups.get(id)?.groups ?? []) if (groups.has(n)) todo.push(n);
  }
  return seen;
}

/** Only what a whole read would read: groups a picked group reaches, people such a group holds. */
function prune(w: Working): void {
  const kept = new Set<string>();
  for (const g of w.groups.values())
    if (g.rule !== undefined) for (const id of reachable(w.groups, g.id)) kept.add(id);
  for (const id of [...w.groups.keys()]) if (!kept.has(id)) w.groups.delete(id);
  const held = new Set<string>();
  for (const g of w.groups.values()) for (const p of g.people) held.add(p);
  for (const id of [...w.people.keys()]) if (!held.has(id)) w.people.delete(id);
}

/** Applies a batch in order (ApplyChanges); `at` is when (ISO 8601), kept as `changedAt`. */
export function applyChanges(picture: Picture, changes: readonly DirectoryChange[], at: string): Applied {
  const w: Working = {
    groups: new Map(picture.groups.map((g) => [g.id, g])),
    people: new Map(picture.people.map((p) => [p.id, p])),
  };
  try {
    for (const c of changes) one(w, c);
  } catch (err) {
    if (err instanceof Fallback) return { fallback: err.reason, detail: err.detail };
    throw err;
  }
  prune(w);
  return {
    picture: { ...picture, changedAt: at, groups: sortedById(w.groups), people: sortedById(w.people) },
  };
}

/**
 * The values by id. The maps were made from sorted lists and keep their order where an entry is
 * replaced or deleted, so only new entries (at the end) can be out of order: sorted only then.
 */
function sortedById<T extends { id: string }>(m: ReadonlyMap<string, T>): T[] {
  const list = [...m.values()];
  for (let i = 1; i < list.length; i++) if (list[i - 1]!.id >= list[i]!.id) return list.sort(byId);
  return list;
}

/** Each picked group's people at any depth (sorted), by group id: what a whole read's members are. */
export function membersOf(picture: Picture): Map<string, string[]> {
  const groups = new Map(picture.groups.map((g) => [g.id, g]));
  const out = new Map<string, string[]>();
  for (const g of picture.groups) {
    if (g.rule === undefined) continue;
    const people = new Set<string>();
    for (const id of reachable(groups, g.id)) for (const p of groups.get(id)?.people ?? []) people.add(p);
    out.set(g.id, [...people].sort());
  }
  return out;
}

/** For `parents: directory`: every group below each picked group at any depth (itself left out). */
export function nestedBelow(picture: Picture): Map<string, Set<string>> {
  const groups = new Map(picture.groups.map((g) => [g.id, g]));
  const out = new Map<string, Set<string>>();
  for (const g of picture.groups) {
    if (g.rule === undefined) continue;
    const below = reachable(groups, g.id);
    below.delete(g.id);
    out.set(g.id, below);
  }
  return out;
}
