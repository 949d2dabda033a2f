/**
 * An Entra read as a picture (../changes/feed.ts) and back. Each picked group keeps its people
 * at any depth (transitiveMembers, as the whole read lists them) and the groups nested in it at
 * any depth, each nested group kept too, so the delta query's news about any of them is noticed.
 * Back from a picture, the members are handed to the same `build` the whole read uses: both give
 * the same desired state.
 */
import type { EntraConfig } from "./schema.js";
import type { Attributes, Picture, PicturedGroup, PicturedPerson } from "../changes/feed.js";
import { PICTURE_FORMAT_VERSION } from "../changes/feed.js";
import { membersOf, nestedBelow } from "../changes/apply.js";
import { placesOf, wholeLines } from "../changes/partial.js";
import type { GraphGroupItem, Rule } from "./groups.js";
import type { GroupMembers } from "./members.js";
import type { GraphUserItem } from "./users.js";

/** A Graph object's properties as picture attributes: everything but its id and OData annotations. */
export function attributesOf(item: Record<string, unknown>): Attributes {
  const out: Record<string, Attributes[string]> = {};
  for (const [k, v] of Object.entries(item)) {
    if (k === "id" || k.includes("@")) continue;
    if (v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[k] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === "string")) out[k] = v as string[];
  }
  return out;
}

export function personOf(item: GraphUserItem): PicturedPerson {
  return {
    id: item.id,
    status: item["accountEnabled"] === false ? "disabled" : "enabled",
    attributes: attributesOf(item),
  };
}

export function groupOf(m: GroupMembers, rule: number): PicturedGroup {
  const g = m.picked.group;
  return {
    id: g.id,
    name: String(g["displayName"] ?? g.id),
    rule,
    attributes: attributesOf(g),
    people: [...new Set(m.users.map((u) => u.id))].sort(),
    groups: [...m.nested].sort(),
    others: m.others,
  };
}

/** A group nested below a picked one: kept for its id, its members are the picked group's. */
export function nestedGroupOf(id: string): PicturedGroup {
  return { id, name: id, attributes: {}, people: [], groups: [] };
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The picture of a whole read. */
export function pictureOf(o: {
  config: EntraConfig;
  members: readonly GroupMembers[];
  digest: string;
  readAt: string;
}): Picture {
  const ruleIndex = (rule: Rule) => o.config.groups.indexOf(rule);
  const groups = new Map<string, PicturedGroup>();
  const people = new Map<string, PicturedPerson>();
  for (const m of o.members) {
    groups.set(m.picked.group.id, groupOf(m, ruleIndex(m.picked.rule)));
    for (const u of m.users) people.set(u.id, personOf(u));
  }
  for (const m of o.members) for (const n of m.nested) if (!groups.has(n)) groups.set(n, nestedGroupOf(n));
  return {
    formatVersion: PICTURE_FORMAT_VERSION,
    kind: "entra",
    configDigest: o.digest,
    readAt: o.readAt,
    groups: [...groups.values()].sort(byId),
    people: [...people.values()].sort(byId),
  };
}

/** A person of the picture as the Graph user the whole read would have listed. */
function userItem(p: PicturedPerson): GraphUserItem {
  return { ...p.attributes, id: p.id, accountEnabled: p.status === "enabled" };
}

/**
 * A partial build's extra (BuildInput.only): each built person's line as a whole build numbers it
 * (people in picked groups, by id) and each picked group's size, as the whole read counts them.
 */
export interface PartialMembers {
  lineOf: ReadonlyMap<string, number>;
  sizes: ReadonlyMap<string, number>;
}

/**
 * The picked groups of a picture as the whole read's members, in rule order, for `build`. With
 * `only`, the members listed are only those people (the sizes and lines of a whole read beside).
 */
export function membersFromPicture(
  config: EntraConfig,
  picture: Picture,
  only?: ReadonlySet<string>,
): { members: GroupMembers[]; partial?: PartialMembers } {
  // Each person's place in the picture's people (sorted by id): a whole build's lines follow it.
  const index = placesOf(picture);
  const reach = membersOf(picture);
  const below = nestedBelow(picture);
  const picked = picture.groups
    .filter((g) => g.rule !== undefined && config.groups[g.rule] !== undefined)
    .sort((a, b) => a.rule! - b.rule! || (a.id < b.id ? -1 : 1));
  // One Graph user per person, shared by the groups that hold them (build reads them, never writes).
  const items = new Map<string, GraphUserItem>();
  const usersOf = (ids: readonly string[]): GraphUserItem[] => {
    const users: GraphUserItem[] = [];
    for (const id of ids) {
      if (only !== undefined && !only.has(id)) continue;
      let item = items.get(id);
      const at = item === undefined ? index.get(id) : undefined;
      const p = at === undefined ? undefined : picture.people[at];
      if (p !== undefined) items.set(id, (item = userItem(p)));
      if (item !== undefined) users.push(item);
    }
    return users;
  };
  const members = picked.map((g) => ({
    picked: {
      group: { ...g.attributes, id: g.id } as GraphGroupItem,
      rule: config.groups[g.rule!]!,
      ruleKey: `source.entra.groups[${g.rule!}]`,
    },
    users: usersOf(reach.get(g.id) ?? []),
    nested: below.get(g.id) ?? new Set<string>(),
    others: g.others ?? 0,
    nestedRead: true,
  }));
  if (only === undefined) return { members };
  return { members, partial: partialOf(picked, reach, { index, count: picture.people.length }, only) };
}

/** The lines and sizes a whole build would give, for a partial one (picture.people is sorted by id). */
function partialOf(
  picked: readonly PicturedGroup[],
  reach: ReadonlyMap<string, readonly string[]>,
  people: { index: ReadonlyMap<string, number>; count: number },
  only: ReadonlySet<string>,
): PartialMembers {
  const sizes = new Map<string, number>();
  const held = new Uint8Array(people.count);
  for (const g of picked) {
    let size = 0;
    for (const id of reach.get(g.id) ?? []) {
      const at = people.index.get(id);
      if (at === undefined) continue;
      size++;
      held[at] = 1;
    }
    sizes.set(g.id, size);
  }
  return { lineOf: wholeLines(held, people.index, only), sizes };
}
