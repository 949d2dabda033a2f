/**
 * Issue 48, "done when", for Entra ID through the built CLI on the frequent schedule
 * (`source.changes.mode: changes`, `fullEvery: 0`; the scenario is test/helpers/changes-e2e.ts's):
 * a whole first run keeps the directory's picture and delta links beside the state file; a leaver
 * disabled in Entra (the Graph stand-in, in a group nested in another) loses every workspace and
 * filter on the next run, which reads only Graph's delta query and lists only that person on the
 * service; a mapping made by hand is caught by the full reconcile only; a delta page failing after
 * its retries is exit 5 with nothing written; delta links Graph no longer knows (410
 * syncStateNotFound) are a whole read.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import type { GraphStandIn } from "../../src/emulator/graph/server.js";
import { entraSettings, SECRET, startStandIn } from "../helpers/entra.js";
import {
  changesScenario,
  readChangesFile,
  startOrganization,
  writeChangesConfig,
} from "../helpers/changes-e2e.js";
import { runCli, withTempDir } from "./run-cli.js";

const TOKEN = "changes-e2e-service-token-48";

let graph: GraphStandIn;
let emulator: EmulatorHandle;
beforeAll(async () => {
  graph = await startStandIn();
  emulator = await startOrganization(TOKEN, {
    oauthIssuerLocation: "https://login.microsoftonline.com/t/v2.0",
    oauthSubjectIdClaim: "oid",
  });
});
afterAll(async () => {
  await emulator?.close();
  await graph?.close();
});

const byMail = (email: string) =>
  graph.directory.tenant.users.find((u) => String(u.mail).toLowerCase() === email)!.id;

describe("Entra changes only through the built CLI", () => {
  it("a disabled leaver loses every workspace and filter; the full reconcile catches a hand-made mapping; a broken delta page is exit 5, expired delta links a whole read", async () => {
    await withTempDir((dir) =>
      changesScenario(
        dir,
        emulator,
        {
          // Platform holds Ken (and Linus, disabled); Analytics Team holds Ada, Grace and Platform.
          config: () =>
            writeChangesConfig(dir, {
              emulator,
              source: {
                type: "entra",
                entra: entraSettings(graph.url, {
                  groups: [{ displayName: "Platform" }, { displayName: "Analytics Team" }],
                }),
              },
            }),
          env: { USERSYNC_TOKEN: TOKEN, USERSYNC_ENTRA_CLIENT_SECRET: SECRET },
          leaver: "ken@contoso.com",
          other: "ada@contoso.com",
          disable: async (email) => graph.changes.updateUser(byMail(email), { accountEnabled: false }),
          afterFirst: async (d) => {
            const { kept } = await readChangesFile(d);
            expect(kept.formatVersion).toBe(2);
            // Each desired person's id, then their digest (docs/configuration.md, "The changes file").
            const ids = kept.digests.users.filter((_, i) => i % 2 === 0);
            expect(ids).toContain("ken_contoso.com");
            const digests = kept.digests.users.filter((_, i) => i % 2 === 1);
            expect(digests.every((x) => /^[\w-]{16}$/.test(x))).toBe(true);
            expect(kept.digests.groups).toMatch(/^[\w-]{16}$/);
            expect(Object.keys(kept.position.streams).sort()).toEqual(["groups", "users"]);
          },
          feed: {
            mark: () => {
              const at = graph.requests.length;
              return () =>
                graph.requests
                  .slice(at)
                  .filter((r) => r.path.startsWith("/v1.0/"))
                  .map((r) => r.path)
                  .sort();
            },
            expected: ["/v1.0/groups/delta", "/v1.0/users/delta"],
          },
          breakFeed: async () =>
            void graph.faults.push({ kind: "status", status: 500, path: "/delta", times: Infinity }),
          mendFeed: async () => void (graph.faults.length = 0),
          broken: /delta/,
          expire: { run: async () => graph.changes.expire(), reason: "position-expired" },
        },
        (args, env) => runCli(args, { env }),
      ),
    );
  }, 300_000);
});
