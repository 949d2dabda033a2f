/**
 * A Google read as a changes-only picture (../changes/feed.ts) and back. Each picked group keeps
 * its people at any depth (as `members.list` with `includeDerivedMembership` lists them) and the
 * groups listed among its members; every group below a picked one is kept too, with the groups it
 * holds (its people are its picked parents'), so the picture knows the whole tree of nested groups
 * and a membership event in a group outside it reaches nobody picked. People keep what the reader
 * maps: primaryEmail, names, suspended, archived.
 */
import type { Picture, PicturedGroup, PicturedPerson } from "../changes/feed.js";
import { PICTURE_FORMAT_VERSION } from "../changes/feed.js";
import { membersOf } from "../changes/apply.js";
import { heldBefore, placesOf } from "../changes/partial.js";
import { SkipCounter } from "../contract.js";
import type { ReadTally } from "../../types.js";
import type { GoogleGroupJson, GoogleUserJson } from "./api.js";
import type { GoogleRead } from "./index.js";
import type { GoogleConfig } from "./schema.js";

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

export function personOf(u: GoogleUserJson): PicturedPerson {
  const names = { givenName: u.name?.givenName, familyName: u.name?.familyName, fullName: u.name?.fullName };
  return {
    id: u.id,
    status: u.suspended === true || u.archived === true ? "suspended" : "enabled",
    attributes: {
      ...(u.primaryEmail !== undefined ? { primaryEmail: u.primaryEmail } : {}),
      ...Object.fromEntries(Object.entries(names).filter(([, v]) => v !== undefined)),
      suspended: u.suspended === true,
      archived: u.archived === true,
    },
  };
}

function userOf(p: PicturedPerson): GoogleUserJson {
  const a = p.attributes;
  const name = { givenName: text(a.givenName), familyName: text(a.familyName), fullName: text(a.fullName) };
  const email = text(a.primaryEmail);
  return {
    id: p.id,
    ...(email !== undefined ? { primaryEmail: email } : {}),
    name: Object.fromEntries(Object.entries(name).filter(([, v]) => v !== undefined)),
    // A status set by a change wins over the attributes kept.
    suspended: p.status === "suspended" ? a.archived !== true : false,
    archived: p.status === "suspended" && a.archived === true,
  };
}

/** The groups below the picked ones that no rule picks: their email and the groups they hold. */
export type Tree = Map<string, { email: string; groups: string[] }>;

/** The picture of a whole read, with the tree of nested groups (feed.ts reads it). */
export function googlePicture(o: {
  config: GoogleConfig;
  read: GoogleRead;
  tree: Tree;
  digest: string;
  readAt: string;
}): Picture {
  const { read } = o;
  const groups: PicturedGroup[] = read.picked.map((p) => {
    const m = read.members.get(p.group.id);
    const g = p.group;
    return {
      id: g.id,
      name: g.email ?? g.id,
      rule: o.config.groups.indexOf(p.rule),
      attributes: { email: g.email, name: g.name ?? null, description: g.description ?? null },
      people: [...new Set(m?.people ?? [])].sort(),
      groups: [...new Set((m?.groups ?? []).map((x) => x.id))].sort(),
    };
  });
  const held = new Set(groups.flatMap((g) => g.people));
  for (const [id, n] of o.tree)
    groups.push({
      id,
      name: n.email,
      attributes: { email: n.email },
      people: [],
      groups: [...n.groups].sort(),
    });
  return {
    formatVersion: PICTURE_FORMAT_VERSION,
    kind: "google",
    configDigest: o.digest,
    readAt: o.readAt,
    groups: groups.sort(byId),
    people: [...(read.directory?.values() ?? [])]
      .filter((u) => held.has(u.id))
      .map(personOf)
      .sort(byId),
  };
}

/** A picture as a read: what googleResult builds the desired state from. */
export function readOfPicture(
  config: GoogleConfig,
  picture: Picture,
  reads: readonly ReadTally[],
  /** A partial build (BuildInput.only): only these people are read from the picture's directory. */
  only?: ReadonlySet<string>,
): GoogleRead {
  const people = membersOf(picture);
  const picked = picture.groups
    .filter((g) => g.rule !== undefined && config.groups[g.rule] !== undefined)
    .sort((a, b) => a.rule! - b.rule! || (a.id < b.id ? -1 : 1))
    .map((g) => {
      const a = g.attributes;
      const group: GoogleGroupJson = {
        id: g.id,
        email: text(a.email) ?? g.name,
        ...(text(a.name) !== undefined ? { name: text(a.name)! } : {}),
        ...(text(a.description) !== undefined ? { description: text(a.description)! } : {}),
      };
      return { group, rule: config.groups[g.rule!]!, ruleKey: `source.google.groups[${g.rule!}]` };
    });
  const members = new Map(picked.map((p) => [p.group.id, { people: people.get(p.group.id) ?? [] }]));
  const anyone = [...members.values()].some((m) => m.people.length > 0);
  const listed = only === undefined ? picture.people : picture.people.filter((p) => only.has(p.id));
  const directory = anyone ? new Map(listed.map((p) => [p.id, userOf(p)])) : undefined;
  const lineOf = only === undefined ? undefined : linesOf(picture, members.values(), only);
  return {
    picked,
    members,
    directory,
    reads: [...reads],
    skipped: new SkipCounter(),
    ...(lineOf !== undefined ? { lineOf } : {}),
  };
}

/**
 * A partial build's lines: a whole build numbers every member of a picked group by id, those
 * outside the directory (not in the picture's people) too. Each of `only` among them gets how
 * many sort before it, plus one.
 */
function linesOf(
  picture: Picture,
  members: Iterable<{ people: readonly string[] }>,
  only: ReadonlySet<string>,
) {
  const index = placesOf(picture);
  const held = new Uint8Array(picture.people.length);
  const outside = new Set<string>();
  for (const m of members)
    for (const id of m.people) {
      const at = index.get(id);
      if (at === undefined) outside.add(id);
      else held[at] = 1;
    }
  const before = heldBefore(held);
  const lineOf = new Map<string, number>();
  for (const id of only) {
    const at = index.get(id);
    if (at === undefined ? !outside.has(id) : held[at] === 0) continue;
    let line = before[at ?? placeOf(picture, id)]! + 1;
    for (const o of outside) if (o < id) line++;
    lineOf.set(id, line);
  }
  return lineOf;
}

/** How many of the picture's people sort before an id that is not among them (a binary search). */
function placeOf(picture: Picture, id: string): number {
  let [lo, hi] = [0, picture.people.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (picture.people[mid]!.id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
