/**
 * The people a changes-only run touched (docs/sources.md, "Changes-only runs"), without building
 * the kept picture again: the changes file keeps a digest of every desired user, by id, and one of
 * the desired groups, as the last successful apply had them (`digests`, formatVersion 2). A user
 * whose digest differs, who is new, or who is gone is touched; the groups changed when their digest
 * differs. A digest is SHA-1 (96 bits kept) of the record's JSON without `source` (where in the
 * source it was read): the same record gives the same digest, a changed one another.
 */
import { hash } from "node:crypto";
import type { DesiredGroup, DesiredUser } from "../../types.js";
import type { DesiredDigests } from "../../../state/changes-file.js";

const digestOf = (text: string): string => hash("sha1", text, "base64url").slice(0, 16);

/** A desired user's digest: its record without `source`. */
export const userDigest = (u: DesiredUser): string => digestOf(JSON.stringify({ ...u, source: undefined }));

/** The digest of the desired groups (their order included), each without `source`. */
export const groupsDigest = (groups: readonly DesiredGroup[]): string =>
  digestOf(JSON.stringify(groups.map((g) => ({ ...g, source: undefined }))));

/** How many of the users are present (not absent). */
export const presentCount = (users: readonly DesiredUser[]): number =>
  users.filter((u) => u.state === "present").length;

/** The digests of a desired state, to keep for the next run. */
export function desiredDigests(state: {
  users: readonly DesiredUser[];
  groups: readonly DesiredGroup[];
}): DesiredDigests {
  return {
    users: new Map(state.users.map((u) => [u.id, userDigest(u)])),
    groups: groupsDigest(state.groups),
    present: presentCount(state.users),
  };
}

/** The users (ids, sorted) whose digest differs from the kept one, who are new, or who are gone. */
export function touchedSince(kept: DesiredDigests, now: DesiredDigests): string[] {
  const touched: string[] = [];
  for (const [id, d] of now.users) if (kept.users.get(id) !== d) touched.push(id);
  for (const id of kept.users.keys()) if (!now.users.has(id)) touched.push(id);
  return [...new Set(touched)].sort();
}
