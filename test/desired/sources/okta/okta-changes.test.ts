/**
 * Okta's change feed against the Okta stand-in over a real socket: the System Log since the
 * position (a polling request), people read as they are now, applied to the picture, give what a
 * whole read gives afterwards (a suspended leaver, a membership removal, a person joining); a
 * quiet run costs one log request; a position too old or refused, and a looping page, fall back
 * to a whole read; a log page failing after its retries is exit 5.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
import { readOktaDesired } from "../../../../src/desired/sources/okta/index.js";
import { openOktaFeed } from "../../../../src/desired/sources/okta/feed.js";
import { readChangesOnly } from "../../../../src/desired/sources/changes/source.js";
import {
  anOktaUser as user,
  CHANGES_SCOPES,
  serviceAppSource,
  startOkta,
  type OktaFixture,
} from "../../../helpers/okta.js";

const logger = createLogger({ level: "silent", format: "json" });
const ctx = { env: {}, logger, defaultIdentity: "builtin" as const };
const U = { ada: "00u1ada", grace: "00u2grace", linus: "00u3linus", solo: "00u4solo" };

let f: OktaFixture;
beforeAll(async () => {
  f = await startOkta({
    scopes: CHANGES_SCOPES,
    users: [user(U.ada, "ada"), user(U.grace, "grace"), user(U.linus, "linus"), user(U.solo, "solo")],
    groups: [
      { id: "00g1team", type: "OKTA_GROUP", profile: { name: "Team" }, members: [U.ada, U.grace, U.linus] },
      { id: "00g2other", type: "OKTA_GROUP", profile: { name: "Other" }, members: [U.solo] },
    ],
  });
});
afterAll(() => f?.okta.close());

async function withFeed(fn: (feed: ChangeFeed, config: Config) => Promise<void>): Promise<void> {
  await withTempDir(async (dir) => {
    const section = await serviceAppSource(f, dir, { groups: [{ groupId: "00g1team" }] });
    const config = configSchema.parse({ source: { type: "okta", okta: section } });
    await usingFeed(openOktaFeed(config, ctx), (feed) => fn(feed, config));
  });
}
const whole = async (c: Config) => shape(await readOktaDesired(c.source.okta!, ctx));

describe("Okta changes only (System Log)", () => {
  it("a suspended leaver, a removal and a person joining: applied, as a whole read; a quiet run is one request", async () => {
    await withFeed(async (feed, config) => {
      const first = await feed.readWhole();
      expect(shape(feed.build({ picture: first.picture, ctx, reads: first.reads }))).toEqual(
        await whole(config),
      );
      f.okta.changes.suspend(U.linus);
      f.okta.changes.member("00g1team", U.grace, false);
      f.okta.changes.member("00g1team", U.solo, true);
      f.okta.changes.member("00g2other", U.ada, true); // a group no rule picks: nothing to do
      const { batch, picture } = await changed(feed, first.position, first.picture);
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
      expect(after.users).toContainEqual(["linus@example.org", "absent", ["team"]]);
      expect(after.users.map((u) => u[0])).toContain("solo@example.org");
      expect(after.users.map((u) => u[0])).not.toContain("grace@example.org");

      if (batch.kind !== "changes") return;
      const before = f.okta.requests.length;
      const quiet = await changed(feed, batch.position, picture);
      expect(quiet.batch.kind === "changes" && quiet.batch.changes).toEqual([]);
      const asked = f.okta.requests.slice(before).filter((r) => r.url.startsWith("/api/v1/"));
      expect(asked.map((r) => r.url.split("?")[0])).toEqual(["/api/v1/logs"]);
    });
  }, 60_000);

  it("a position too old or refused, a looping page: a whole read; a page failing after retries: exit 5", async () => {
    await withFeed(async (feed) => {
      const first = await feed.readWhole();
      const old = new Date(Date.now() - 100 * 86_400_000).toISOString();
      expect(await feed.readChanges({ ...first.position, takenAt: old }, first.picture)).toMatchObject({
        kind: "fallback",
        reason: "position-expired",
      });
      const refused = { ...first.position, streams: { next: "/api/v1/logs?after=not-a-cursor&limit=1000" } };
      expect(await feed.readChanges(refused, first.picture)).toMatchObject({
        kind: "fallback",
        reason: "position-expired",
      });
      f.okta.changes.member("00g1team", U.ada, true);
      f.okta.addFault({ match: /\/api\/v1\/logs/, kind: "link-loop", times: 1 });
      expect(await feed.readChanges(first.position, first.picture)).toMatchObject({
        kind: "fallback",
        reason: "broken-page",
      });
      f.okta.clearFaults();
      f.okta.addFault({ match: /\/api\/v1\/logs/, kind: 500 });
      let code = 0;
      try {
        await feed.readChanges(first.position, first.picture);
      } catch (err) {
        code = exitCodeFor(err);
      }
      f.okta.clearFaults();
      expect(code).toBe(5);
    });
  }, 120_000);

  it("through the run (readChangesOnly): a whole read first, then the changes; a leaver is absent", async () => {
    await withTempDir(async (dir) => {
      const section = await serviceAppSource(f, dir, { groups: [{ groupId: "00g1team" }] });
      const config = configSchema.parse({
        source: { type: "okta", okta: section, changes: { mode: "changes", fullEvery: "7d" } },
      });
      const first = await readChangesOnly(config, ctx, {
        kept: { unusable: "no file yet" },
        now: Date.now(),
      });
      expect(first?.evidence.read).toMatchObject({ source: "whole", reason: "no-picture" });
      f.okta.changes.deactivate(U.ada);
      const second = await readChangesOnly(config, ctx, { kept: first!.keep, now: Date.now() });
      expect(second?.evidence.read).toMatchObject({ source: "changes" });
      expect(second!.state.users.find((u) => u.email === "ada@example.org")?.state).toBe("absent");
      expect(shape(second!)).toEqual(await whole(config));
    });
  }, 60_000);
});
