/**
 * Issue 48, "done when", for Google Workspace through the built CLI on the frequent schedule
 * (`source.changes.mode: changes`, `fullEvery: 0`; the scenario is test/helpers/changes-e2e.ts's):
 * a leaver suspended in Google loses every workspace and filter on a run that reads only the admin
 * activity report (and the leaver as they are now) and lists only them on the service; a mapping
 * made by hand is caught by the full reconcile only; a report page failing after its retries is
 * exit 5 with nothing written; a position older than the reports keep (180 days) and a report
 * page whose token serves it again (a loop, the stand-in's `repeat-token`) are a whole read.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import type { GoogleStandIn } from "../../src/emulator/google/server.js";
import { ADMIN_ROLE_SA, DOMAIN, G, googleSettings, startGoogle, writeKey } from "../helpers/google.js";
import {
  changesScenario,
  pathsAskedAfter,
  setPosition,
  startOrganization,
  writeChangesConfig,
} from "../helpers/changes-e2e.js";
import { runCli, withTempDir } from "./run-cli.js";

const TOKEN = "changes-google-e2e-token-48";

let google: GoogleStandIn;
let emulator: EmulatorHandle;
beforeAll(async () => {
  google = await startGoogle();
  emulator = await startOrganization(TOKEN, {
    oauthIssuerLocation: "https://accounts.google.com",
    oauthSubjectIdClaim: "sub",
  });
});
afterAll(async () => {
  await emulator?.close();
  await google?.close();
});

const userId = (email: string) =>
  [...google.directory.users.values()].find((u) => u.primaryEmail === email)!.id;

describe("Google changes only through the built CLI", () => {
  it("a suspended leaver loses every workspace and filter; the full reconcile catches a hand-made mapping; a broken report is exit 5, an expired position and a looping report a whole read", async () => {
    await withTempDir(async (dir) => {
      const { config, reach } = await changesScenario(
        dir,
        emulator,
        {
          // Platform holds Ken; Analytics Team holds Ada and, nested, Platform.
          config: async () =>
            writeChangesConfig(dir, {
              emulator,
              source: {
                type: "google",
                google: {
                  ...googleSettings(google.url, await writeKey(dir, google.url, ADMIN_ROLE_SA)),
                  subject: undefined,
                  maxWaitSeconds: 2,
                  groups: [{ email: `analytics-platform@${DOMAIN}` }, { email: `analytics-team@${DOMAIN}` }],
                },
              },
            }),
          env: { USERSYNC_TOKEN: TOKEN },
          leaver: "ken@example.com",
          other: "ada@example.com",
          disable: async (email) => google.changes.suspend(userId(email)),
          feed: {
            mark: pathsAskedAfter(google.requests, "/admin/"),
            expected: [
              "/admin/reports/v1/activity/users/all/applications/admin",
              `/admin/directory/v1/users/${userId("ken@example.com")}`,
            ],
          },
          breakFeed: async () => void google.faults.push({ match: /\/admin\/reports\//, kind: 500 }),
          mendFeed: async () => void (google.faults.length = 0),
          broken: /admin activity \(Reports API\)/,
          expire: {
            run: (dir) =>
              setPosition(dir, { streams: { since: new Date(Date.now() - 200 * 86_400_000).toISOString() } }),
            reason: "position-expired",
          },
        },
        (args, env) => runCli(args, { env }),
      );
      // A report whose next page token serves the page just read again (a loop): a whole read,
      // which sees a joiner.
      google.changes.member(G.analytics, userId("admin@example.com"), true);
      google.faults.push({ match: /\/admin\/reports\//, kind: "repeat-token" });
      const looped = await runCli(["apply", "--config", config, "--yes"], { env: { USERSYNC_TOKEN: TOKEN } });
      google.faults.length = 0;
      expect(looped.code, looped.stderr).toBe(0);
      expect(looped.stdout).toMatch(
        /Read whole \(broken-page: .*gave a page token it gave before \(a loop\)/,
      );
      expect(reach("admin@example.com").groups).toEqual(["analytics_team"]);
    });
  }, 300_000);
});
