/**
 * What the directory change-feed tests (Okta's System Log, Google's Reports API) share: the shape
 * a read is compared by (a changes-only run against a whole read), a batch read and applied to
 * the picture, a feed closed after its case, and a partial build checked against the whole one.
 */
import { applyChanges } from "../../src/desired/sources/changes/apply.js";
import type { ChangeFeed, Picture, Position } from "../../src/desired/sources/changes/feed.js";
import { expect } from "vitest";
import type { SourceContext, SourceResult } from "../../src/desired/sources/contract.js";

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

/**
 * A partial build (BuildInput.only, changes/partial.ts) against the whole one: the people cut
 * into a few random parts (seeded), each part built alone; together the parts must give exactly
 * the whole build's users, each record the same field for field (its source line too), and every
 * part the whole build's groups and group sizes.
 */
export function expectPartialBuildsAgree(
  feed: ChangeFeed,
  picture: Picture,
  ctx: SourceContext,
  seed = 1,
): void {
  const whole = feed.build({ picture, ctx, reads: [] });
  let a = seed >>> 0;
  const next = () => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return a / 4294967296;
  };
  for (const parts of [1, 2, 3, 7]) {
    const only = Array.from({ length: parts }, () => new Set<string>());
    for (const p of picture.people) only[Math.floor(next() * parts)]!.add(p.id);
    const users = only.flatMap((o) => {
      const part = feed.build({ picture, ctx, reads: [], only: o });
      expect(part.state.groups).toEqual(whole.state.groups);
      expect(part.evidence.groupSizes).toEqual(whole.evidence.groupSizes);
      return part.state.users;
    });
    const byId = (x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
    expect([...users].sort(byId), `${parts} parts`).toEqual([...whole.state.users].sort(byId));
  }
  expect(feed.build({ picture, ctx, reads: [], only: new Set() }).state.users).toEqual([]);
}
