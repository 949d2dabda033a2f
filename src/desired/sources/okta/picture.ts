/**
 * An Okta read as a changes-only picture (../changes/feed.ts) and back: the picked groups (Okta has
 * no nested groups) with their members, and every member with their profile and status. The Okta
 * status is kept as `@status` (no template can name it); the picture's status says enabled,
 * suspended or disabled (deactivated) so a change can say it without the profile.
 */
import type { Attributes, Picture, PicturedGroup, PicturedPerson, PersonStatus } from "../changes/feed.js";
import { PICTURE_FORMAT_VERSION } from "../changes/feed.js";
import { placesOf, wholeLines } from "../changes/partial.js";
import type { ReadTally } from "../../types.js";
import type { OktaGroupJson, OktaUserJson } from "./api.js";
import type { OktaRead } from "./index.js";
import type { Member } from "./people.js";
import type { OktaConfig } from "./schema.js";

export const STATUS = "@status";

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A profile's scalar values (what templates read); objects and arrays are left out. */
export function scalars(profile: Record<string, unknown>): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {};
  for (const [k, v] of Object.entries(profile))
    if (v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[k] = v;
  return out;
}

export function statusOf(okta: string): PersonStatus {
  if (okta === "SUSPENDED") return "suspended";
  if (okta === "DEPROVISIONED") return "disabled";
  return "enabled";
}

export function personOf(user: OktaUserJson): PicturedPerson {
  return {
    id: user.id,
    status: statusOf(user.status),
    attributes: { ...scalars(user.profile), [STATUS]: user.status },
  };
}

/** The Okta status a picture's person has: a change may have set the status but not `@status`. */
function oktaStatus(p: PicturedPerson): string {
  const kept = String(p.attributes[STATUS] ?? "ACTIVE");
  if (p.status === "suspended") return "SUSPENDED";
  if (p.status === "disabled" || p.status === "deleted") return "DEPROVISIONED";
  return kept === "SUSPENDED" || kept === "DEPROVISIONED" ? "ACTIVE" : kept;
}

function profileOf(attributes: Attributes): Record<string, unknown> {
  return Object.fromEntries(Object.entries(attributes).filter(([k]) => !k.startsWith("@")));
}

export function groupOf(
  group: OktaGroupJson,
  rule: number | undefined,
  people: readonly string[],
): PicturedGroup {
  return {
    id: group.id,
    name: String(group.profile.name ?? group.id),
    ...(rule !== undefined ? { rule } : {}),
    attributes: { ...scalars(group.profile), ...(group.type ? { "@type": group.type } : {}) },
    people: [...people].sort(),
    groups: [],
  };
}

/** The picture of a whole read. */
export function oktaPicture(o: {
  config: OktaConfig;
  read: OktaRead;
  digest: string;
  readAt: string;
}): Picture {
  const { read } = o;
  const groups = read.picked.map((p) => {
    const people = [...read.members.values()].filter((m) => m.groups.has(p.group.id)).map((m) => m.user.id);
    return groupOf(p.group, o.config.groups.indexOf(p.rule), people);
  });
  return {
    formatVersion: PICTURE_FORMAT_VERSION,
    kind: "okta",
    configDigest: o.digest,
    readAt: o.readAt,
    groups: groups.sort(byId),
    people: [...read.members.values()].map((m) => personOf(m.user)).sort(byId),
  };
}

/** A picture as a read: what oktaResult builds the desired state from. */
export function readOfPicture(
  config: OktaConfig,
  picture: Picture,
  reads: readonly ReadTally[],
  /** A partial build (BuildInput.only): only these people are members, with a whole build's lines. */
  only?: ReadonlySet<string>,
): OktaRead {
  // Each person's place in the picture's people (sorted by id, as the build sorts its members).
  const index = placesOf(picture);
  const held = only === undefined ? undefined : new Uint8Array(picture.people.length);
  const members = new Map<string, Member>();
  const sizes = new Map<string, number>();
  const picked = [];
  for (const g of picture.groups) {
    const rule = g.rule === undefined ? undefined : config.groups[g.rule];
    if (rule === undefined) continue;
    const type = g.attributes["@type"];
    const group: OktaGroupJson = {
      id: g.id,
      ...(typeof type === "string" ? { type } : {}),
      profile: profileOf(g.attributes),
    };
    picked.push({ group, rule, ruleKey: `source.okta.groups[${g.rule}]` });
    sizes.set(g.id, g.people.length);
    for (const id of g.people) {
      const at = index.get(id);
      if (at === undefined) continue;
      if (held !== undefined) held[at] = 1;
      if (only?.has(id) === false) continue;
      const p = picture.people[at]!;
      const m = members.get(id) ?? {
        user: { id, status: oktaStatus(p), profile: profileOf(p.attributes) },
        groups: new Set(),
      };
      m.groups.add(g.id);
      members.set(id, m);
    }
  }
  const lineOf = held === undefined ? undefined : wholeLines(held, index, members.keys());
  return { picked, members, sizes, reads: [...reads], ...(lineOf !== undefined ? { lineOf } : {}) };
}
