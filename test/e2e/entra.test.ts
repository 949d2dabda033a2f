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
        [
          "a picked group deleted before its members are read",
          { kind: "status", status: 404, path: users },
          /was deleted after it was picked/,
        ],
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
  }, 180_000);

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

  it("a token refused mid-read gets one fresh token; refused again is exit 5; refused at once, exit 4", async () => {
    await withTempDir(async (dir) => {
      const config = await writeConfig(dir);
      const users = `/groups/${G.analytics}/transitiveMembers/microsoft.graph.user`;
      const tokens = () => graph.requests.filter((r) => r.path.endsWith("/oauth2/v2.0/token")).length;
      const reads = () => graph.requests.filter((r) => r.path === `/v1.0${users}`).length;

      // Expired once, after the groups were read: a fresh token from the real @azure/identity, the page again.
      graph.faults.length = 0;
      graph.faults.push({ kind: "expire", path: users });
      const [tokensBefore, readsBefore] = [tokens(), reads()];
      const renewed = await runCli(["plan", "--config", config], { env });
      expect(renewed.code, renewed.stderr).toBe(0);
      expect(logMessages(renewed.stderr)).toMatch(/refused the token mid-read.*fresh one/);
      expect(tokens() - tokensBefore).toBe(2);
      expect(reads() - readsBefore).toBe(2);

      // The fresh token is refused too: the read is not whole, exit 5, nothing sent to the service.
      graph.faults.length = 0;
      graph.faults.push({ kind: "expire", path: users, times: 2 });
      const before = emulator.requestLog().length;
      const twice = await runCli(["apply", "--config", config, "--yes"], { env });
      expect(twice.code, twice.stderr).toBe(5);
      expect(logMessages(twice.stderr)).toMatch(/refused a fresh token too \(401/);
      expect(emulator.requestLog().length).toBe(before);

      // Refused on the very first read: the credentials' to fix (exit 4), no token renewed.
      graph.faults.length = 0;
      graph.faults.push({ kind: "expire", path: "/groups", times: Infinity });
      const first = await runCli(["apply", "--config", config, "--yes"], { env });
      expect(first.code, first.stderr).toBe(4);
      expect(logMessages(first.stderr)).toMatch(/401 InvalidAuthenticationToken.*graphUrl and authorityHost/);
      expect(logMessages(first.stderr)).toMatch(/docs\/entra\.md/);
      expect(logMessages(first.stderr)).not.toMatch(/ldap|okta/i);
      expect(emulator.requestLog().length).toBe(before);
      graph.faults.length = 0;
    });
  }, 120_000);

  it("an identity platform that cannot be reached is exit 5; a tenant it does not know, exit 4", async () => {
    await withTempDir(async (dir) => {
      // A port nothing listens on: MSAL's endpoints_resolution_error, told apart by asking discovery.
      const down = await writeConfig(dir, { entra: { authorityHost: "https://127.0.0.1:1" } });
      const r = await runCli(["plan", "--config", down], { env });
      expect(r.code, r.stderr).toBe(5);
      expect(logMessages(r.stderr)).toMatch(/the identity platform could not be reached/);
      const typo = await writeConfig(dir, { entra: { tenant: "contoso-typo.onmicrosoft.com" } });
      const t = await runCli(["plan", "--config", typo], { env });
      expect(t.code, t.stderr).toBe(4);
      expect(logMessages(t.stderr)).toMatch(/does not know tenant 'contoso-typo.onmicrosoft.com'/);
    });
  }, 60_000);
});
