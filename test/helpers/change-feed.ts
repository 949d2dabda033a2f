/**
 * What the directory change-feed tests (Okta's System Log, Google's Reports API) share: the shape
 * a read is compared by (a changes-only run against a whole read), a batch read and applied to
 * the picture, and a feed closed after its case.
 */
import { applyChanges } from "../../src/desired/sources/changes/apply.js";
import type { ChangeFeed, Picture, Position } from "../../src/desired/sources/changes/feed.js";
import type { SourceResult } from "../../src/desired/sources/contract.js";

/** Problems, people (email, state, groups) and groups, sorted: what two reads must agree on. */
export const sourceShape = (r: SourceResult) => ({
  problems: r.problems.map((p) => p.message),
  users: r.state.users.map((u) => [u.email, u.state, [...(u.groups ?? [])].sort()]).sort(),
  groups: r.state.groups.map((g) => [g.id, g.name]).sort(),
});

/** The changes since `since`, applied to `picture`; a fallback to a whole read fails the case. */
export async function changed(feed: ChangeFeed, since: Position, picture: Picture) {
  const batch = await feed.readChanges(since, picture);
  if (batch.kind !== "changes") throw new Error(`fell back: ${batch.reason} ${batch.detail}`);
  const applied = applyChanges(picture, batch.changes, new Date().toISOString());
  if (!("picture" in applied)) throw new Error(`fell back: ${applied.detail}`);
  return { batch, position: batch.position, picture: applied.picture };
}

/** Runs `fn` with the feed and closes it after, whatever happens. */
export async function usingFeed(feed: ChangeFeed, fn: (feed: ChangeFeed) => Promise<void>): Promise<void> {
  try {
    await fn(feed);
  } finally {
    await feed.close();
  }
}
