/**
 * Issue 28, "done when", through the built CLI: an hourly sync of a tenant reads Entra (the Graph
 * stand-in, HTTPS, tokens from the real @azure/identity) and converges; a second run plans
 * nothing; a read throttled, cut or inconsistent at any page changes nothing in the organization,
 * sends it no request, exits 5 and says why; the organization's sign-in claim decides who signs in
 * as whom (sub: exit 4, the fix named); no secret or token is printed, even at trace level.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorSignIn } from "../../src/emulator/types.js";
import type { GraphFault, GraphStandIn } from "../../src/emulator/graph/server.js";
import { entraSettings, G, SECRET, startStandIn, U } from "../helpers/entra.js";
import { logMessages, runCli, withTempDir } from "./run-cli.js";

const TOKEN = "entra-e2e-service-token-7c1";
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

async function writeConfig(
  dir: string,
  o: { baseUrl?: string; entra?: Record<string, unknown> } = {},
): Promise<string> {
  const config = join(dir, "usersync.yaml");
  await writeFile(
    config,
    stringify({
      target: { baseUrl: o.baseUrl ?? emulator.url, allowInsecureHttp: true },
      source: { type: "entra", entra: { ...entraSettings(graph.url), throttleBudgetMs: 1500, ...o.entra } },
      policy: { deletions: "remove", maxDeletes: "100%" },
      state: { file: join(dir, "state.json") },
      execution: { requestsPerSecond: 10_000 },
      logging: { format: "json" },
    }),
  );
  return config;
}

describe("an Entra-fed sync through the built CLI", () => {
  it("converges, re-runs empty, and refuses every read that is not whole with exit 5 and nothing sent", async () => {
    await withTempDir(async (dir) => {
      const config = await writeConfig(dir);
      // The dry first run: validate reads Entra and sends the service nothing.
      const logBefore = emulator.requestLog().length;
      const validate = await runCli(["validate", "--config", config], { env });
      expect(validate.code, validate.stderr).toBe(0);
      expect(validate.stdout).toMatch(
        /^OK: Entra ID tenant .*: 4 user\(s\) \(1 marked absent\), 2 group\(s\)/,
      );
      expect(emulator.requestLog().length).toBe(logBefore);
      const first = await runCli(["apply", "--config", config, "--yes"], { env });
      expect(first.code, first.stderr).toBe(0);
      const mappings = emulator.state().mappings.filter((m) => m.id !== "admin");
      expect(mappings.map((m) => [m.email, m.authenticationId, m.groups]).sort()).toEqual([
        ["ada@contoso.com", U.ada, ["all_staff", "analytics_team"]],
        ["grace@contoso.onmicrosoft.com", U.grace, ["all_staff", "analytics_team"]],
        ["ken@contoso.com", U.ken, ["all_staff", "analytics_team"]],
      ]);
      // Signed in through Entra (oid): mappings only, no built-in logins.
      expect(emulator.state().idpUsers.map((u) => u.email)).not.toContain("ada@contoso.com");
      expect(emulator.state().groups.find((g) => g.id === "analytics_team")?.parents).toEqual(["all_staff"]);
      expect(first.stdout).toMatch(/Source entra Entra ID tenant .*: 4 people/);
      const state = JSON.parse(await readFile(join(dir, "state.json"), "utf8")) as {
        groupSizes?: Record<string, number>;
      };
      expect(state.groupSizes).toEqual({ [`entra:${G.analytics}`]: 5, [`entra:${G.allStaff}`]: 5 });

      const again = await runCli(["plan", "--config", config, "--detailed-exitcode"], { env });
      expect(again.code, again.stdout).toBe(0);

      const users = `/groups/${G.analytics}/transitiveMembers/microsoft.graph.user`;
      const cases: [string, GraphFault, RegExp][] = [
        [
          "throttled past the budget",
          { kind: "status", status: 429, retryAfterSeconds: 5, path: users, times: Infinity },
          /kept throttling \(429\).*budget/,
        ],
        [
          "503 past the budget",
          {
            kind: "status",
            status: 503,
            retryAfterSeconds: 5,
            path: `/groups/${G.allStaff}/transitiveMembers/microsoft.graph.group`,
            times: Infinity,
          },
          /kept throttling \(503\)/,
        ],
        [
          "an HTML page every time",
          { kind: "html", path: users, times: Infinity },
          /did not answer .* usably after 5 tries .*not JSON/,
        ],
        ["JSON cut short every time", { kind: "truncated", path: users, times: Infinity }, /does not parse/],
        ["a nextLink loop", { kind: "loop", path: users }, /already followed \(a paging loop\)/],
        ["a count that does not add up", { kind: "miscount", path: users }, /announced 6 and 5 were read/],
      ];
      for (const [name, fault, why] of cases) {
        graph.faults.length = 0;
        graph.faults.push(fault);
        const before = emulator.requestLog().length;
        const r = await runCli(["apply", "--config", config, "--yes"], { env });
        expect(r.code, `${name}: ${r.stderr}`).toBe(5);
        expect(logMessages(r.stderr), name).toMatch(why);
        expect(emulator.requestLog().length, `${name}: no request to the service`).toBe(before);
      }
      graph.faults.length = 0;

      // A picked group that suddenly reads empty is not believed.
      const analytics = graph.directory.group(G.analytics)!;
      const members = analytics.members;
      analytics.members = [];
      try {
        const before = emulator.requestLog().length;
        const emptied = await runCli(["apply", "--config", config, "--yes"], { env });
        expect(emptied.code).toBe(5);
        expect(logMessages(emptied.stderr)).toMatch(/reads? empty.*--allow-empty-groups/);
        expect(emulator.requestLog().length).toBe(before);
      } finally {
        analytics.members = members;
      }
      expect(emulator.state().mappings.filter((m) => m.id !== "admin")).toHaveLength(3);
    });
  }, 120_000);

  it("stops at the claim sub with the fix, and prints no secret or token at trace level", async () => {
    const sub = await startEmulator({
      port: 0,
      tokens: { [TOKEN]: "admin" },
      signIn: { oauthIssuerLocation: OIDC.oauthIssuerLocation! },
    });
    try {
      await withTempDir(async (dir) => {
        const config = await writeConfig(dir, { baseUrl: sub.url });
        const r = await runCli(["plan", "--config", config, "--log-level", "trace"], { env });
        expect(r.code).toBe(4);
        expect(logMessages(r.stderr)).toMatch(/claim sub.*pairwise.*oauthSubjectIdClaim to oid/);
        const out = r.stdout + r.stderr;
        for (const secret of [SECRET, TOKEN]) expect(out).not.toContain(secret);
        expect(out).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/); // a bearer token (a JWT)
        const wrong = await runCli(["plan", "--config", config, "--log-level", "trace"], {
          env: { ...env, USERSYNC_ENTRA_CLIENT_SECRET: "not-the-secret-9d" },
        });
        expect(wrong.code).toBe(4);
        expect(logMessages(wrong.stderr)).toMatch(/AADSTS7000215/);
        expect(wrong.stdout + wrong.stderr).not.toContain("not-the-secret-9d");
      });
    } finally {
      await sub.close();
    }
  }, 60_000);
});
