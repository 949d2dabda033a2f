/**
 * Entra's change feed (../changes/feed.ts): the whole read takes both delta positions first
 * (`$deltatoken=latest`: a deltaLink without the data) and keeps its picture (picture.ts); a
 * changes-only run reads `users/delta` and `groups/delta` since them (delta.ts), and reads again
 * whole each picked group a membership change reaches, so nesting at any depth stays right.
 */
import type { Config } from "../../../config/schema.js";
import type { EntraConfig } from "./schema.js";
import { ConfigError } from "../../../errors.js";
import type { ReadTally, SourceContext } from "../contract.js";
import type { DirectoryHttp } from "../directory-http.js";
import { SourceIncompleteError } from "../errors.js";
import { sourceDigest } from "../changes/digest.js";
import type { ChangeBatch, ChangeFeed, DirectoryChange, Picture, Position } from "../changes/feed.js";
import { DeltaFallback, deltaStart, readDelta, userChanges, type DeltaItem } from "./delta.js";
import { build, connectGraph, readPicked } from "./index.js";
import { pickGroups, readMembers } from "./members.js";
import { attributesOf, groupOf, membersFromPicture, nestedGroupOf, personOf, pictureOf } from "./picture.js";

export function openEntraFeed(config: Config, ctx: SourceContext): ChangeFeed {
  const entra = config.source.entra;
  if (entra === undefined)
    throw new ConfigError({
      message: "source.type is entra but source.entra is not set: see docs/entra.md and config.example.yaml.",
    });
  const digest = sourceDigest(config);
  let http: DirectoryHttp | undefined;
  const connected = async () => (http ??= await connectGraph(entra, ctx));
  return {
    kind: "entra",
    configDigest: digest,
    readWhole: async () => readWhole(await connected(), entra, digest),
    readChanges: async (since, picture) => {
      try {
        return await readChanges(await connected(), entra, since, picture);
      } catch (err) {
        if (err instanceof DeltaFallback) return { kind: "fallback", reason: err.reason, detail: err.detail };
        throw err;
      }
    },
    partial: true,
    build: ({ picture, ctx: c, reads, only }) => {
      const { members, partial } = membersFromPicture(entra, picture, only);
      return build(entra, c, members, [...reads], partial);
    },
    close: async () => {
      await http?.close();
    },
  };
}

async function readWhole(http: DirectoryHttp, config: EntraConfig, digest: string) {
  const takenAt = new Date().toISOString();
  // The positions first: a change made during the read is read again next time (harmless).
  const [users, groups] = await Promise.all([
    readDelta(http, deltaStart(config, "users", true), "users"),
    readDelta(http, deltaStart(config, "groups", true), "groups"),
  ]).catch((err: unknown) => {
    // Right after `latest`, a fallback is Graph refusing delta itself: the read is not whole (exit 5).
    if (err instanceof DeltaFallback)
      throw new SourceIncompleteError({
        read: "the delta positions (users/delta, groups/delta)",
        reason: err.detail,
      });
    throw err;
  });
  const reads: ReadTally[] = [];
  const members = await readPicked(http, config, reads, true);
  const picture = pictureOf({ config, members, digest, readAt: takenAt });
  const position: Position = {
    kind: "entra",
    streams: { users: users.deltaLink, groups: groups.deltaLink },
    takenAt,
  };
  return { picture, position, reads };
}

/** Rules that pick by name or filter: a group created or renamed may change what they pick. */
const pickedByQuery = (config: EntraConfig) => config.groups.some((r) => r.objectId === undefined);

async function readChanges(
  http: DirectoryHttp,
  config: EntraConfig,
  since: Position,
  picture: Picture,
): Promise<ChangeBatch> {
  const takenAt = new Date().toISOString();
  const usersLink = since.streams["users"];
  const groupsLink = since.streams["groups"];
  if (since.kind !== "entra" || usersLink === undefined || groupsLink === undefined)
    return {
      kind: "fallback",
      reason: "position-unknown",
      detail: "the kept position has no users and groups delta links",
    };
  const [users, groups] = await Promise.all([
    readDelta(http, usersLink, "users"),
    readDelta(http, groupsLink, "groups"),
  ]);
  const reads: ReadTally[] = [users.tally, groups.tally];
  const changes: DirectoryChange[] = [];
  const reread = await groupNews({ http, config, picture, items: groups.items, reads, changes });
  for (const [id, latest] of reread)
    changes.push(...(await readAgain(http, config, picture, { id, latest }, reads)));
  changes.push(...userChanges(users.items, new Map(picture.people.map((p) => [p.id, p]))));
  const position: Position = {
    kind: "entra",
    streams: { users: users.deltaLink, groups: groups.deltaLink },
    takenAt,
  };
  return { kind: "changes", changes, position, reads };
}

/** The picked groups to read again, and the changes the groups' news give directly. */
async function groupNews(o: {
  http: DirectoryHttp;
  config: EntraConfig;
  picture: Picture;
  items: readonly DeltaItem[];
  reads: ReadTally[];
  changes: DirectoryChange[];
}): Promise<Map<string, Record<string, unknown>>> {
  const groups = new Map(o.picture.groups.map((g) => [g.id, g]));
  const picked = o.picture.groups.filter((g) => g.rule !== undefined);
  const reaching = (id: string) =>
    picked.filter((g) => g.id === id || g.groups.includes(id)).map((g) => g.id);
  /** Picked groups to read again, with their properties as the delta gave them. */
  const reread = new Map<string, Record<string, unknown>>();
  const again = (id: string, latest: Record<string, unknown> = {}) =>
    reread.set(id, { ...(reread.get(id) ?? {}), ...latest });
  let repick = false;
  for (const item of o.items) {
    const kept = groups.get(item.id);
    const removed = item["@removed"] !== undefined;
    if (kept === undefined) {
      // A group outside the picture: only a new or renamed one can change what a rule picks.
      if (!removed && typeof item["displayName"] === "string" && pickedByQuery(o.config)) repick = true;
      continue;
    }
    if (removed && kept.rule !== undefined) {
      o.changes.push({ type: "group-removed", id: item.id });
      continue;
    }
    if (removed || Array.isArray(item["members@delta"])) reaching(item.id).forEach((id) => again(id));
    const name = item["displayName"];
    if (kept.rule !== undefined && typeof name === "string" && name !== kept.attributes["displayName"]) {
      repick ||= pickedByQuery(o.config);
      again(item.id, attributesOf(item));
    }
  }
  if (repick) await checkPicking(o.http, o.config, o.picture, o.reads);
  return reread;
}

/** The rules pick again; another set of groups than the picture's is a whole read. */
async function checkPicking(http: DirectoryHttp, config: EntraConfig, picture: Picture, reads: ReadTally[]) {
  const now = await pickGroups(http, config, reads);
  const was = picture.groups.filter((g) => g.rule !== undefined).map((g) => `${g.id}@${g.rule}`);
  const is = now.map((p) => `${p.group.id}@${config.groups.indexOf(p.rule)}`);
  if ([...was].sort().join() !== [...is].sort().join())
    throw new DeltaFallback(
      "groups-changed",
      "a group was created, renamed or deleted: the rules pick other groups than the kept picture",
    );
}

/** One picked group read again whole: its people at any depth, the groups nested in it, and those people. */
async function readAgain(
  http: DirectoryHttp,
  config: EntraConfig,
  picture: Picture,
  again: { id: string; latest: Record<string, unknown> },
  reads: ReadTally[],
): Promise<DirectoryChange[]> {
  const kept = picture.groups.find((g) => g.id === again.id)!;
  const rule = config.groups[kept.rule!]!;
  const ruleKey = `source.entra.groups[${kept.rule!}]`;
  const group = { ...kept.attributes, ...again.latest, id: kept.id };
  const m = await readMembers(http, config, { group, rule, ruleKey }, reads, true);
  const known = new Set(picture.groups.map((g) => g.id));
  return [
    { type: "group-read", group: groupOf(m, kept.rule!), people: m.users.map(personOf) },
    ...[...m.nested]
      .filter((n) => !known.has(n))
      .map((n): DirectoryChange => ({ type: "group-read", group: nestedGroupOf(n), people: [] })),
  ];
}
