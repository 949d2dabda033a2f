/**
 * Issue 48, "done when", through the built CLI: a whole first run keeps the directory's picture
 * and delta links beside the state file; a leaver disabled in Entra (the Graph stand-in) loses
 * their access on the next run, which reads only Graph's delta query and lists only that person on
 * the service (both stand-ins count the requests); a mapping made by hand is not seen by the
 * changes-only run and is caught by the full reconcile (`source.changes.mode: whole`).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorSignIn } from "../../src/emulator/types.js";
import type { GraphStandIn } from "../../src/emulator/graph/server.js";
import { entraSettings, SECRET, startStandIn, U } from "../helpers/entra.js";
import { runCli, withTempDir } from "./run-cli.js";

const TOKEN = "changes-e2e-service-token-48";
const OIDC: EmulatorSignIn = {
  oauthIssuerLocation: "https://login.microsoftonline.com/t/v2.0",
  oauthSubjectIdClaim: "oid",
};
const env = { USERSYNC_TOKEN: TOKEN, USERSYNC_ENTRA_CLIENT_SECRET: SECRET };

let graph: GraphStandIn;
let emulator: EmulatorHandle;
beforeAll(async () => {
  graph = await startStandIn();
  emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, signIn: OIDC });
});
afterAll(async () => {
  await emulator.close();
  await graph.close();
});

/** A mapping made by hand in the organization, in a group usersync manages. */
async function handMadeMapping(id: string): Promise<void> {
  const res = await fetch(`${emulator.url}/api/v1/entities/users`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${TOKEN}`,
      "Content-Type": "application/vnd.gooddata.api+json",
    },
    body: JSON.stringify({
      data: {
        id,
        type: "user",
        attributes: { authenticationId: `${id}-oid`, email: `${id}@contoso.com` },
        relationships: { userGroups: { data: [{ id: "analytics_team", type: "userGroup" }] } },
      },
    }),
  });
  expect(res.status).toBe(201);
}

describe("changes-only runs through the built CLI", () => {
  it("a leaver loses access on a run that reads only the changes; the full reconcile catches a hand-made mapping", async () => {
    await withTempDir(async (dir) => {
      const config = join(dir, "usersync.yaml");
      await writeFile(
        config,
        stringify({
          target: { baseUrl: emulator.url, allowInsecureHttp: true },
          source: {
            type: "entra",
            entra: entraSettings(graph.url),
            changes: { mode: "changes", fullEvery: 0 },
          },
          policy: { deletions: "remove", maxDeletes: "50%" },
          state: { file: join(dir, "state.json") },
          execution: { requestsPerSecond: 10_000 },
          logging: { format: "json" },
        }),
      );
      const first = await runCli(["apply", "--config", config, "--yes"], { env });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(
        /Read whole \(no-picture: no changes file yet\); listed the whole organization/,
      );
      const kept = JSON.parse(await readFile(join(dir, "state.changes.json"), "utf8")) as {
        formatVersion: number;
        managedUsers?: number;
        position: { streams: Record<string, string> };
        digests: { groups: string; users: string[] };
      };
      expect(kept.formatVersion).toBe(2);
      // Each desired person's id, then their digest (docs/configuration.md, "The changes file").
      const ids = kept.digests.users.filter((_, i) => i % 2 === 0);
      expect(ids).toContain("ken_contoso.com");
      expect(kept.digests.users.filter((_, i) => i % 2 === 1).every((d) => /^[\w-]{16}$/.test(d))).toBe(true);
      expect(kept.digests.groups).toMatch(/^[\w-]{16}$/);
      expect(Object.keys(kept.position.streams).sort()).toEqual(["groups", "users"]);
      expect(kept.managedUsers).toBe(3);
      expect(emulator.state().mappings.map((m) => m.email)).toContain("ken@contoso.com");

      // Ken leaves: disabled in Entra, in a group nested two deep.
      graph.changes.updateUser(U.ken, { accountEnabled: false });
      const graphBefore = graph.requests.length;
      emulator.resetLog();
      const leaver = await runCli(["apply", "--config", config, "--yes"], { env });
      expect(leaver.code, leaver.stderr).toBe(0);
      expect(leaver.stdout).toMatch(/Read changes only: 1 change since .*; listed 1 person on the service/);
      expect(emulator.state().mappings.map((m) => m.email)).not.toContain("ken@contoso.com");
      const graphReads = graph.requests.slice(graphBefore).filter((r) => r.path.startsWith("/v1.0/"));
      const serviceRequests = emulator.requestLog().length;
      // Printed for the record (docs/benchmarks.md has the figure at scale).
      console.log(`leaver run: ${graphReads.length} Graph reads, ${serviceRequests} service requests`);
      expect(graphReads.map((r) => r.path).sort()).toEqual(["/v1.0/groups/delta", "/v1.0/users/delta"]);
      expect(serviceRequests).toBeLessThanOrEqual(12);

      // A mapping made by hand: the changes-only run does not list it, so leaves it...
      await handMadeMapping("intruder");
      const quiet = await runCli(["plan", "--config", config, "--detailed-exitcode"], { env });
      expect(quiet.code, quiet.stdout).toBe(0);
      expect(quiet.stdout).toMatch(/Read changes only: 0 changes/);
      // ...and the full reconcile (the nightly Job's mode) catches it.
      const full = await runCli(["apply", "--config", config, "--yes"], {
        env: { ...env, USERSYNC_SOURCE_CHANGES_MODE: "whole" },
      });
      expect(full.code, full.stderr).toBe(0);
      expect(full.stdout).toMatch(/Read whole \(asked/);
      expect(emulator.state().mappings.map((m) => m.id)).not.toContain("intruder");
    });
  }, 240_000);
});
