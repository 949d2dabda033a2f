/**
 * A partial build (docs/sources.md, "Changes-only runs"): after a batch of changes, only the people
 * the batch can have touched are built, from the kept picture and from the changed one, instead of
 * all of them. Everyone else's desired record is the last successful apply's: their picture entry,
 * the groups that hold them and the groups' own records are unchanged, and `build` gives a person's
 * record from those alone (the same line, groups and fields as a whole build: BuildInput.only).
 *
 * Taken only where that is proved and the run can plan from the touched people alone (a targeted
 * listing); anything else is a whole build, as before:
 * - every change's reach is bounded (`candidatesOf`): a person named, or the people below a group
 *   whose members or attributes changed (the kept picture's and the changed one's);
 * - the kept digests were made by this usersync and config: the candidates built from the kept
 *   picture give exactly the kept digests (so a build that changed since touches everyone again);
 * - nobody new: each candidate's record keeps its id and email or is gone, so no duplicate can
 *   appear beside an untouched person (whose ids and emails are the kept state's, which had none);
 * - every touched person is absent or gone now (a present one may be a joiner the targeted
 *   listing hands back to a whole listing, which needs everyone), at most `maxPeople` of them,
 *   none with grants or filters of their own, and the caller's `usable` (no grants or filters to
 *   list for the groups, no grace record, ...).
 */
import type { Logger } from "pino";
import type { DesiredUser } from "../../types.js";
import type { DesiredDigests, KeptChanges } from "../../../state/changes-file.js";
import type { SourceResult } from "../contract.js";
import { reachable } from "./apply.js";
import type { BuildInput, ChangeFeed, DirectoryChange, Picture } from "./feed.js";
import { groupsDigest, presentCount, userDigest } from "./touched.js";

/** What the run allows: a partial state only when it will plan from the touched people alone. */
export interface PartialAllowed {
  /** usersync's version: the kept digests must be this one's (KeptChanges.builtBy). */
  version: string;
  /** `source.changes.maxPeople`: more touched people list whole, which needs everyone. */
  maxPeople: number;
  /** The run's own conditions on the desired groups (no grants or filters listed, ...). */
  usable: (groups: SourceResult["state"]["groups"]) => boolean;
}

/** The whole state's counts beside a partial one's users. */
export interface PartialCounts {
  users: number;
  present: number;
}

export interface PartialBuild {
  result: SourceResult;
  touched: string[];
  groupsChanged: boolean;
  digests: DesiredDigests;
  counts: PartialCounts;
  /** How many people (picture ids) were built. */
  built: number;
}

/** Each person's place in the picture's people (sorted by id, the order every build numbers them in). */
export function placesOf(picture: Picture): Map<string, number> {
  const index = new Map<string, number>();
  picture.people.forEach((p, i) => index.set(p.id, i));
  return index;
}

/** How many held people (`held[i]`: the picture's i-th person is built) come before each place. */
export function heldBefore(held: Uint8Array): Uint32Array {
  const before = new Uint32Array(held.length + 1);
  for (let i = 0; i < held.length; i++) before[i + 1] = before[i]! + held[i]!;
  return before;
}

/**
 * A partial build's lines (BuildInput.only): a whole build numbers the people it holds by id from
 * 1, so each of `ids` that is held gets how many held people sort before it, plus one.
 */
export function wholeLines(
  held: Uint8Array,
  places: ReadonlyMap<string, number>,
  ids: Iterable<string>,
): Map<string, number> {
  const before = heldBefore(held);
  const lineOf = new Map<string, number>();
  for (const id of ids) {
    const at = places.get(id);
    if (at !== undefined && held[at] === 1) lineOf.set(id, before[at]! + 1);
  }
  return lineOf;
}

/** The people below a group (itself included), at any depth. */
function peopleBelow(groups: ReadonlyMap<string, Picture["groups"][number]>, id: string) {
  const out: string[] = [];
  for (const g of reachable(groups, id)) out.push(...(groups.get(g)?.people ?? []));
  return out;
}

/** The people (picture ids) a batch can have touched, or undefined when its reach is not bounded. */
export function candidatesOf(
  before: Picture,
  after: Picture,
  changes: readonly DirectoryChange[],
): Set<string> | undefined {
  const out = new Set<string>();
  const pictures = [before, after].map((p) => new Map(p.groups.map((g) => [g.id, g])));
  const below = (id: string) => {
    for (const groups of pictures) for (const person of peopleBelow(groups, id)) out.add(person);
  };
  for (const c of changes)
    switch (c.type) {
      case "person-upserted":
        out.add(c.person.id);
        break;
      case "person-status":
      case "person-removed":
        out.add(c.id);
        break;
      case "member-added":
      case "member-removed":
        if (c.memberKind === "person") out.add(c.member);
        else below(c.member);
        break;
      case "group-updated":
      case "group-removed":
        below(c.id);
        break;
      case "group-read":
        below(c.group.id);
        for (const p of c.people) out.add(p.id);
        break;
      default:
        return undefined;
    }
  return out;
}

/** A person's own grants or filters (a file's columns; no directory gives them). */
const ownAccess = (u: DesiredUser): boolean =>
  u.workspaces !== undefined || u.organization !== undefined || u.dataFilters !== undefined;

/** The partial build, or undefined when a whole build is needed (see the header). */
export function partialBuild(o: {
  feed: ChangeFeed;
  kept: KeptChanges;
  picture: Picture;
  changes: readonly DirectoryChange[];
  input: Omit<BuildInput, "picture" | "only">;
  allowed: PartialAllowed;
}): PartialBuild | undefined {
  const { kept, allowed } = o;
  if (o.feed.partial !== true) return undefined;
  if (kept.builtBy !== allowed.version || kept.digests.present === undefined) return undefined;
  if (kept.managedUsers === undefined) return undefined;
  const only = candidatesOf(kept.picture, o.picture, o.changes);
  // Half the people or more: a whole build costs no more.
  if (only === undefined || only.size * 2 > o.picture.people.length) return undefined;
  const quiet = { ...o.input.ctx, logger: silent(o.input.ctx.logger) };
  const before = o.feed.build({ ...o.input, ctx: quiet, reads: [], picture: kept.picture, only }).state.users;
  const keptUsers = kept.digests.users;
  const was = new Map<string, DesiredUser>();
  for (const u of before) {
    if (keptUsers.get(u.id) !== userDigest(u)) return undefined; // not the build the kept digests came from
    was.set(u.id, u);
  }
  const result = o.feed.build({ ...o.input, picture: o.picture, only });
  const now = new Map<string, string>();
  for (const u of result.state.users) {
    const old = was.get(u.id);
    if (old === undefined || old.email.toLowerCase() !== u.email.toLowerCase()) return undefined;
    now.set(u.id, userDigest(u));
  }
  const touched = [...new Set([...was.keys(), ...now.keys()])].filter(
    (id) => keptUsers.get(id) !== now.get(id),
  );
  if (touched.length > allowed.maxPeople) return undefined;
  const stillThere = new Set(touched);
  if (result.state.users.some((u) => u.state === "present" && stillThere.has(u.id))) return undefined;
  // `usable` judges the listings by the groups: the directories give access through groups (their
  // rules), never to a person. A person's own grant or filter would need a permission listing the
  // untouched people may call for: a whole build then.
  if ([...before, ...result.state.users].some(ownAccess)) return undefined;
  if (!allowed.usable(result.state.groups)) return undefined;
  const users = new Map(keptUsers);
  for (const id of was.keys()) users.delete(id);
  for (const [id, d] of now) users.set(id, d);
  const counts = {
    users: users.size,
    present: kept.digests.present - presentCount(before) + presentCount(result.state.users),
  };
  const groups = groupsDigest(result.state.groups);
  return {
    result,
    touched: touched.sort(),
    groupsChanged: groups !== kept.digests.groups,
    digests: { users, groups, present: counts.present },
    counts,
    built: only.size,
  };
}

function silent(logger: Logger): Logger {
  return logger.child({}, { level: "silent" });
}
