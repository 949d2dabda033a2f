/**
 * Issue 48, "done when", for Okta through the built CLI on the frequent schedule
 * (`source.changes.mode: changes`, `fullEvery: 0`; the scenario is test/helpers/changes-e2e.ts's):
 * a leaver suspended in Okta loses every workspace and filter on a run that reads only the System
 * Log (and the leaver as they are now) and lists only them on the service; a mapping made by hand
 * is caught by the full reconcile only; a log page failing after its retries is exit 5 with
 * nothing written; a position older than the System Log keeps (90 days) is a whole read.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import {
  anOktaUser as user,
  CHANGES_SCOPES,
  serviceAppSource,
  startOkta,
  type OktaFixture,
} from "../helpers/okta.js";
import {
  changesScenario,
  pathsAskedAfter,
  setPosition,
  startOrganization,
  writeChangesConfig,
} from "../helpers/changes-e2e.js";
import { runCli, withTempDir } from "./run-cli.js";

const TOKEN = "changes-okta-e2e-token-48";
const U = { ada: "00u1ada", ken: "00u2ken", grace: "00u3grace" };

let f: OktaFixture;
let emulator: EmulatorHandle;
beforeAll(async () => {
  f = await startOkta({
    scopes: CHANGES_SCOPES,
    users: [user(U.ada, "ada"), user(U.ken, "ken"), user(U.grace, "grace")],
    groups: [
      { id: "00g1platform", type: "OKTA_GROUP", profile: { name: "Platform" }, members: [U.ken] },
      {
        id: "00g2analytics",
        type: "OKTA_GROUP",
        profile: { name: "Analytics Team" },
        members: [U.ada, U.grace, U.ken],
      },
    ],
  });
  emulator = await startOrganization(TOKEN, { oauthIssuerLocation: f.okta.url });
});
afterAll(async () => {
  await emulator?.close();
  await f?.okta.close();
});

const idOf = (email: string) => [...f.okta.store.users.values()].find((u) => u.profile.email === email)!.id;

describe("Okta changes only through the built CLI", () => {
  it("a suspended leaver loses every workspace and filter; the full reconcile catches a hand-made mapping; a broken log is exit 5, an expired position a whole read", async () => {
    await withTempDir((dir) =>
      changesScenario(
        dir,
        emulator,
        {
          config: async () =>
            writeChangesConfig(dir, {
              emulator,
              source: {
                type: "okta",
                okta: await serviceAppSource(f, dir, {
                  maxWaitSeconds: 2,
                  groups: [{ groupId: "00g1platform" }, { groupId: "00g2analytics" }],
                }),
              },
            }),
          env: { USERSYNC_TOKEN: TOKEN },
          leaver: "ken@example.org",
          other: "ada@example.org",
          disable: async (email) => f.okta.changes.suspend(idOf(email)),
          feed: {
            mark: pathsAskedAfter(f.okta.requests, "/api/v1/"),
            expected: ["/api/v1/logs", "/api/v1/logs", `/api/v1/users/${U.ken}`],
          },
          breakFeed: async () => f.okta.addFault({ match: /\/api\/v1\/logs/, kind: 500 }),
          mendFeed: async () => f.okta.clearFaults(),
          broken: /Okta System Log/,
          expire: {
            run: (dir) =>
              setPosition(dir, { takenAt: new Date(Date.now() - 100 * 86_400_000).toISOString() }),
            reason: "position-expired",
          },
        },
        (args, env) => runCli(args, { env }),
      ),
    );
  }, 300_000);
});
