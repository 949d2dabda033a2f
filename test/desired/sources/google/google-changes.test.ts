/**
 * Google's change feed against the Google stand-in over a real socket: the admin activity report
 * (Reports API) since the position, people read as they are now, applied to the picture, give
 * what a whole read gives afterwards (a suspended leaver, a membership removal, a person joining,
 * one joining a group nested two deep, one leaving a group below a picked one that nests groups);
 * an event reported after the lag is still read; a quiet run is one request; a group nested into
 * the tree, a position too old or unknown, a report page whose token serves it again (a loop) fall
 * back to a whole read; a report page failing after its retries is exit 5. Each case has its own
 * stand-in (the windows reach back 15 minutes, so events of one case would reach the next).
 */
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../../e2e/run-cli.js";
import { exitCodeFor } from "../../../../src/errors.js";
import { createLogger } from "../../../../src/logging.js";
import { configSchema, type Config } from "../../../../src/config/schema.js";
import type { ChangeFeed } from "../../../../src/desired/sources/changes/feed.js";
import {
  changed,
  sourceShape as shape,
  usingFeed,
  expectPartialBuildsAgree,
} from "../../../helpers/change-feed.js";
import { readGoogleDesired } from "../../../../src/desired/sources/google/index.js";
import { openGoogleFeed } from "../../../../src/desired/sources/google/feed.js";
import { readChangesOnly } from "../../../../src/desired/sources/changes/source.js";
import type { GoogleStandIn } from "../../../../src/emulator/google/server.js";
import {
  ADMIN_ROLE_SA,
  DELEGATED_SA,
  DOMAIN,
  G,
  U,
  googleSettings,
  startGoogle,
  writeKey,
} from "../../../helpers/google.js";

const logger = createLogger({ level: "silent", format: "json" });
const ctx = { env: {}, logger, defaultIdentity: "builtin" as const };
const PLATFORM = { email: `analytics-platform@${DOMAIN}` };
const STAFF = { email: `all-staff@${DOMAIN}` };

async function withFeed(
  o: { groups: object[]; lagMs?: number },
  fn: (feed: ChangeFeed, config: Config, google: GoogleStandIn) => Promise<void>,
): Promise<void> {
  const google = await startGoogle({ reportLagMs: o.lagMs ?? 0 });
  try {
    await withTempDir(async (dir) => {
      const key = await writeKey(dir, google.url, ADMIN_ROLE_SA);
      const section = { ...googleSettings(google.url, key), subject: undefined, groups: o.groups };
      const config = configSchema.parse({ source: { type: "google", google: section } });
      await usingFeed(openGoogleFeed(config, ctx), (feed) => fn(feed, config, google));
    });
  } finally {
    await google.close();
  }
}
const whole = async (c: Config) => shape(await readGoogleDesired(c.source.google!, ctx));

describe("Google changes only (Reports API admin activity)", () => {
  it("a suspended leaver, a removal, a person joining: as a whole read; a late report is read; a quiet run is one request", async () => {
    await withFeed({ groups: [PLATFORM], lagMs: 1000 }, async (feed, config, google) => {
      const first = await feed.readWhole();
      expect(shape(feed.build({ picture: first.picture, ctx, reads: first.reads }))).toEqual(
        await whole(config),
      );
      google.changes.suspend(U.ken);
      google.changes.member(G.platform, U.arch, false);
      google.changes.member(G.platform, U.ada, true);
      google.changes.member(G.empty, U.grace, true); // a group outside the tree: nothing to do
      // Not reported yet (the lag): nothing; the next window reaches back and reads them.
      const early = await changed(feed, first.position, first.picture);
      expect(early.batch.kind === "changes" && early.batch.changes).toEqual([]);
      await new Promise((r) => setTimeout(r, 1200));
      const { batch, picture, position } = await changed(feed, early.position, early.picture);
      expect(batch.kind === "changes" && batch.changes.map((c) => c.type)).toEqual([
        "person-upserted",
        "member-removed",
        "member-added",
      ]);
      const after = shape(feed.build({ picture, ctx, reads: [] }));
      // A partial build agrees with the whole one, on the first picture and the changed one.
      expectPartialBuildsAgree(feed, first.picture, ctx);
      expectPartialBuildsAgree(feed, picture, ctx, 2);
      expect(after).toEqual(await whole(config));
      expect(after.users).toContainEqual(["ken@example.com", "absent", []]);
      expect(after.users.map((u) => u[0])).toContain("ada@example.com");
      expect(after.users.map((u) => u[0])).not.toContain("arch@example.com");

      // Quiet: one report page, and the people of the events still in the overlap (read again,
      // changing nothing): a run with nothing in the last 15 minutes is the one request.
      const quiet = await changed(feed, position, picture);
      const before = google.requests.length;
      const again = await changed(feed, quiet.position, quiet.picture);
      expect(again.picture.people).toEqual(picture.people);
      const asked = google.requests.slice(before).filter((r) => r.url.startsWith("/admin/"));
      expect(asked.map((r) => r.url.split("?")[0])).toEqual([
        "/admin/reports/v1/activity/users/all/applications/admin",
        `/admin/directory/v1/users/${U.ken}`,
        `/admin/directory/v1/users/${U.ada}`,
      ]);
    });
  }, 60_000);

  it("nested groups: a person joining two groups down reaches the picked group; a removal below it lists that group again; a group nested: whole", async () => {
    await withFeed({ groups: [STAFF] }, async (feed, config, google) => {
      const first = await feed.readWhole();
      expect(first.picture.groups.map((g) => [g.id, g.groups])).toEqual([
        [G.analytics, [G.platform]],
        [G.platform, []],
        [G.staff, [G.analytics]],
      ]);
      google.changes.member(G.platform, U.admin, true);
      const { picture, position } = await changed(feed, first.position, first.picture);
      expect(shape(feed.build({ picture, ctx, reads: [] }))).toEqual(await whole(config));
      // A removal below a picked group that nests groups: that group is listed again, as it is now.
      google.changes.member(G.analytics, U.ada, false);
      const removed = await changed(feed, position, picture);
      expect(removed.batch.kind === "changes" && removed.batch.changes.map((c) => c.type)).toEqual([
        "member-added",
        "group-read",
      ]);
      expect(shape(feed.build({ picture: removed.picture, ctx, reads: [] }))).toEqual(await whole(config));
      expect(removed.picture.people.map((p) => p.id)).not.toContain(U.ada);
      // A group nested into one of the tree: its members are not known, a whole read.
      google.activity.record({
        type: "GROUP_SETTINGS",
        name: "ADD_GROUP_MEMBER",
        parameters: { USER_EMAIL: `empty@${DOMAIN}`, GROUP_EMAIL: `analytics-platform@${DOMAIN}` },
      });
      google.activity.record({
        type: "GROUP_SETTINGS",
        name: "ADD_GROUP_MEMBER",
        parameters: { USER_EMAIL: `analytics-platform@${DOMAIN}`, GROUP_EMAIL: `all-staff@${DOMAIN}` },
      });
      expect(await feed.readChanges(removed.position, removed.picture)).toMatchObject({
        kind: "fallback",
        reason: "groups-changed",
      });
    });
  }, 60_000);

  it("a position too old or not Google's, a looping report page: a whole read; a report page failing after retries: exit 5", async () => {
    await withFeed({ groups: [PLATFORM] }, async (feed, _config, google) => {
      const first = await feed.readWhole();
      const old = new Date(Date.now() - 200 * 86_400_000).toISOString();
      expect(
        await feed.readChanges({ ...first.position, streams: { since: old } }, first.picture),
      ).toMatchObject({ kind: "fallback", reason: "position-expired" });
      expect(await feed.readChanges({ ...first.position, kind: "okta" }, first.picture)).toMatchObject({
        kind: "fallback",
        reason: "position-unknown",
      });
      // A report whose next page token serves the page just read again: a loop, read whole.
      google.changes.suspend(U.ken);
      google.faults.push({ match: /\/admin\/reports\//, kind: "repeat-token" });
      const before = google.requests.length;
      const looped = await feed.readChanges(first.position, first.picture);
      expect(looped).toMatchObject({ kind: "fallback", reason: "broken-page" });
      expect(looped.kind === "fallback" && looped.detail).toMatch(/a page token it gave before \(a loop\)/);
      const pages = google.requests.slice(before).filter((r) => r.url.startsWith("/admin/reports/"));
      expect(pages.map((r) => new URL(r.url, google.url).searchParams.has("pageToken"))).toEqual([
        false,
        true,
      ]);
      google.faults.length = 0;
      google.faults.push({ match: /\/admin\/reports\//, kind: 500 });
      let code = 0;
      try {
        await feed.readChanges(first.position, first.picture);
      } catch (err) {
        code = exitCodeFor(err);
      }
      google.faults.length = 0;
      expect(code).toBe(5);
    });
  }, 120_000);

  it("through the run (readChangesOnly): whole first, then changes, a leaver absent; delegation without the Reports scope: exit 4", async () => {
    const google = await startGoogle();
    try {
      await withTempDir(async (dir) => {
        const key = await writeKey(dir, google.url, ADMIN_ROLE_SA);
        const section = { ...googleSettings(google.url, key), subject: undefined, groups: [PLATFORM] };
        const changes = { mode: "changes", fullEvery: "7d" };
        const config = configSchema.parse({ source: { type: "google", google: section, changes } });
        const first = await readChangesOnly(config, ctx, {
          kept: { unusable: "no file yet" },
          now: Date.now(),
        });
        expect(first?.evidence.read).toMatchObject({ source: "whole", reason: "no-picture" });
        google.changes.suspend(U.ken);
        const second = await readChangesOnly(config, ctx, { kept: first!.keep, now: Date.now() });
        expect(second?.evidence.read).toMatchObject({ source: "changes" });
        expect(second!.state.users.find((u) => u.email === "ken@example.com")?.state).toBe("absent");
        expect(shape(second!)).toEqual(await whole(config));

        // Domain-wide delegation authorised for the Directory scopes only.
        const delegated = await writeKey(dir, google.url, DELEGATED_SA);
        const other = { ...googleSettings(google.url, delegated), groups: [PLATFORM] };
        const refused = configSchema.parse({ source: { type: "google", google: other, changes } });
        const err = await readChangesOnly(refused, ctx, { kept: first!.keep, now: Date.now() }).catch(
          (e: unknown) => e,
        );
        expect(exitCodeFor(err)).toBe(4);
        expect(String((err as Error).message)).toContain("admin.reports.audit.readonly");
      });
    } finally {
      await google.close();
    }
  }, 60_000);
});
