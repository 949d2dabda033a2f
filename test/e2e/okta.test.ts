/**
 * The Okta source through the built CLI, against the Okta stand-in and the emulator: an hourly
 * sync converges and re-runs empty, never meets a 429 of its own making under the quota, leaves
 * half of each window to the organization's other integrations (reading the reset against the
 * stand-in's Date, two hours off the local clock), waits out a 429 caused by others, and a cut or
 * inconsistent read, or a setup mistake, changes nothing (exit 5 or 4, no request to the service).
 */
import { join } from "node:path";
import { writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { makeDirectory, oktaGroupId, oktaUserId } from "../../src/emulator/okta/directory.js";
import type { OktaStatus } from "../../src/emulator/okta/types.js";
import { serviceAppSource, startOkta, type OktaFixture } from "../helpers/okta.js";
import { logMessages, runCli, withTempDir } from "./run-cli.js";

const TOKEN = "okta-e2e-token-5b2";
const WEAK_TOKEN = "00okta-stand-in-read-nothing-2f9";
const PEOPLE = 600;
const GROUPS = 24;
const QUOTA = { limit: 36, windowSeconds: 1 };
const STATUS: OktaStatus[] = [
  "ACTIVE",
  "SUSPENDED",
  "DEPROVISIONED",
  "STAGED",
  "LOCKED_OUT",
  "PASSWORD_EXPIRED",
  "RECOVERY",
  "PROVISIONED",
];
const status = (n: number): OktaStatus => (n % 25 < STATUS.length ? STATUS[n % 25]! : "ACTIVE");
const present = Array.from({ length: PEOPLE }, (_, n) => status(n)).filter(
  (s) => !["SUSPENDED", "DEPROVISIONED", "STAGED"].includes(s),
).length;

let f: OktaFixture;
let emulator: EmulatorHandle;
beforeAll(async () => {
  f = await startOkta({
    ...makeDirectory({ people: PEOPLE, groups: GROUPS, status }),
    quota: QUOTA,
    clockSkewMs: -7_200_000,
    forbiddenTokens: [WEAK_TOKEN],
  });
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    signIn: { oauthIssuerLocation: f.okta.url },
  });
}, 30_000);
afterAll(async () => {
  await emulator?.close();
  await f?.okta.close();
});

const env = { USERSYNC_TOKEN: TOKEN };

async function writeConfig(dir: string, okta: Record<string, unknown>, base = emulator.url): Promise<string> {
  const config = join(dir, "usersync.yaml");
  await writeFile(
    config,
    stringify({
      target: { baseUrl: base, allowInsecureHttp: true },
      source: { type: "okta", okta },
      policy: { deletions: "remove", maxDeletes: "100%" },
      state: { file: join(dir, "state.json") },
      execution: { requestsPerSecond: 10_000, concurrency: 16 },
      logging: { format: "json", level: "info" },
    }),
  );
  return config;
}

const teams = { groups: [{ search: 'profile.name sw "team-"' }] };

describe("Okta through the built CLI (stand-in + emulator)", () => {
  it("converges, re-runs empty, leaves half of every window to others and meets no 429", async () => {
    await withTempDir(async (dir) => {
      const config = await writeConfig(dir, await serviceAppSource(f, dir, teams));
      const first = await runCli(["apply", "--config", config, "--yes"], { env });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(
        /Source okta http:\/\/127\.0\.0\.1:\d+: [\d,]+ people from 25 reads \(25 pages\)/,
      );
      expect(f.okta.refused).toBe(0);
      for (const w of f.okta.quota.windows) expect(w.used).toBeLessThanOrEqual(w.limit / 2);
      expect(f.okta.quota.windows.length).toBeGreaterThanOrEqual(2);
      expect(f.okta.tokens.issued).toBe(1);
      const mappings = emulator.state().mappings.filter((m) => m.authenticationId?.startsWith("00u"));
      expect(mappings.length).toBe(present);
      // Okta signs people in: the mapping's authenticationId is the Okta user id (the `sub`).
      const someone = mappings.find((m) => m.authenticationId === oktaUserId(0));
      expect(someone).toMatchObject({ email: "person0@example.com", firstname: "Person", lastname: "0" });
      expect(someone?.groups).toEqual(["team-00"]);

      const again = await runCli(["plan", "--config", config, "--detailed-exitcode"], { env });
      expect(again.code, again.stdout).toBe(0);

      // A leaver in Okta is a leaver in the plan.
      f.okta.store.users.get(oktaUserId(0))!.status = "SUSPENDED";
      const leaver = await runCli(["plan", "--config", config, "--detailed-exitcode"], { env });
      f.okta.store.users.get(oktaUserId(0))!.status = "ACTIVE";
      expect(leaver.code).toBe(2);
      expect(leaver.stdout).toMatch(/1 to (remove|revoke)/);
    });
  }, 60_000);

  it("waits out a 429 caused by other integrations, for every read, then reads whole", async () => {
    await withTempDir(async (dir) => {
      const config = await writeConfig(dir, await serviceAppSource(f, dir, teams));
      const before = f.okta.refused;
      f.okta.addFault({ match: /\/api\/v1\/groups\?/, kind: 429, times: 1 });
      const run = await runCli(["plan", "--config", config, "--detailed-exitcode"], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(f.okta.refused - before).toBe(1);
    });
  }, 30_000);

  it.each([
    ["a page cut short", "truncated", /did not answer .* usably after 5 tries/],
    ["a link loop", "link-loop", /already followed \(a paging loop\)/],
    ["a group that suddenly reads empty", "empty", /1 picked group reads empty: okta:00g/],
  ] as const)(
    "%s changes nothing: exit 5, no request to the service",
    async (_name, kind, message) => {
      await withTempDir(async (dir) => {
        const config = await writeConfig(dir, await serviceAppSource(f, dir, teams));
        expect((await runCli(["apply", "--config", config, "--yes"], { env })).code).toBe(0);
        emulator.resetLog();
        const group = oktaGroupId(3);
        f.okta.addFault({
          match: new RegExp(`/groups/${group}/users`),
          kind: kind === "link-loop" ? "link-loop" : kind,
          times: kind === "link-loop" ? 1 : 1000,
        });
        const run = await runCli(["apply", "--config", config, "--yes"], { env });
        f.okta.clearFaults();
        expect(run.code, run.stderr).toBe(5);
        expect(logMessages(run.stderr)).toMatch(message);
        expect(emulator.requestLog()).toEqual([]);
      });
    },
    30_000,
  );
});

describe("a token refused mid-read, a group deleted mid-read", () => {
  it("one fresh token (a new assertion) and the page again; refused twice is exit 5, nothing sent", async () => {
    await withTempDir(async (dir) => {
      const config = await writeConfig(dir, await serviceAppSource(f, dir, teams));
      const members = new RegExp(`/groups/${oktaGroupId(3)}/users`);
      const page = () => f.okta.requests.filter((r) => members.test(r.url)).length;
      f.okta.clearFaults();
      f.okta.addFault({ match: members, kind: "expire-token", times: 1 });
      const [issued, reads] = [f.okta.tokens.issued, page()];
      const renewed = await runCli(["plan", "--config", config], { env });
      expect(renewed.code, renewed.stderr).toBe(0);
      expect(f.okta.tokens.issued - issued).toBe(2);
      expect(page() - reads).toBe(2);
      expect(logMessages(renewed.stderr)).toMatch(/Okta refused the token mid-read/);

      f.okta.addFault({ match: members, kind: "expire-token", times: 2 });
      emulator.resetLog();
      const twice = await runCli(["apply", "--config", config, "--yes"], { env });
      f.okta.clearFaults();
      expect(twice.code, twice.stderr).toBe(5);
      expect(logMessages(twice.stderr)).toMatch(/Okta refused a fresh token too \(401/);
      expect(emulator.requestLog()).toEqual([]);
    });
  }, 60_000);

  it("a picked group deleted before its members are read: exit 5, nothing sent", async () => {
    await withTempDir(async (dir) => {
      const config = await writeConfig(dir, await serviceAppSource(f, dir, teams));
      f.okta.addFault({ match: new RegExp(`/groups/${oktaGroupId(3)}/users`), kind: 404, times: 1 });
      emulator.resetLog();
      const run = await runCli(["apply", "--config", config, "--yes"], { env });
      f.okta.clearFaults();
      expect(run.code, run.stderr).toBe(5);
      expect(logMessages(run.stderr)).toMatch(/was deleted after it was picked/);
      expect(emulator.requestLog()).toEqual([]);
    });
  }, 30_000);
});

describe("Okta setup mistakes name the fix (exit 4, nothing sent)", () => {
  it.each([
    [
      "an unknown group",
      (s: Record<string, unknown>) => ({ ...s, groups: [{ groupId: "00gnosuchgroup0000000" }] }),
      /Okta has no group 00gnosuchgroup0000000/,
    ],
    [
      "a group name that is not there",
      (s: Record<string, unknown>) => ({ ...s, groups: [{ groupName: "Team-01" }] }),
      /Okta has no group named "Team-01" \(but "team-01"/,
    ],
    [
      "a search that picks nothing",
      (s: Record<string, unknown>) => ({ ...s, groups: [{ search: 'profile.name sw "nobody"' }] }),
      /picks no Okta group/,
    ],
    [
      "a revoked API token (E0000011)",
      () => ({ orgUrl: f.okta.url, credentials: { apiTokenEnv: "OKTA_TEST_BAD_TOKEN" }, ...teams }),
      /E0000011 .*invalid, expired or revoked/,
    ],
    [
      "an admin without the rights (E0000006)",
      () => ({ orgUrl: f.okta.url, credentials: { apiTokenEnv: "OKTA_TEST_WEAK_TOKEN" }, ...teams }),
      /E0000006 .*grant the service app the scopes okta.users.read and okta.groups.read/,
    ],
    [
      "a wrong org URL",
      (s: Record<string, unknown>) => ({ ...s, orgUrl: "https://no-such-org.invalid" }),
      /check source.okta.orgUrl/,
    ],
  ])(
    "%s",
    async (_name, edit, message) => {
      await withTempDir(async (dir) => {
        emulator.resetLog();
        const config = await writeConfig(dir, edit(await serviceAppSource(f, dir, teams)));
        const run = await runCli(["plan", "--config", config], {
          env: { ...env, OKTA_TEST_BAD_TOKEN: "revoked", OKTA_TEST_WEAK_TOKEN: WEAK_TOKEN },
        });
        expect(run.code, run.stderr).toBe(4);
        expect(logMessages(run.stderr)).toMatch(message);
        expect(run.stderr).not.toContain("BEGIN PRIVATE KEY");
        expect(emulator.requestLog()).toEqual([]);
      });
    },
    30_000,
  );
});

describe("who signs in as whom: the organization's oauthSubjectIdClaim", () => {
  it.each([
    ["a claim Okta fills from a profile attribute keys people by it", "employeeNumber", 0],
    ["a claim some people lack stops the run naming them", "nickname", 4],
  ])(
    "%s",
    async (_name, claim, code) => {
      const small = await startOkta(makeDirectory({ people: 5, groups: 1 }));
      const org = await startEmulator({
        port: 0,
        tokens: { [TOKEN]: "admin" },
        signIn: { oauthIssuerLocation: small.okta.url, oauthSubjectIdClaim: claim },
      });
      try {
        await withTempDir(async (dir) => {
          const config = await writeConfig(dir, await serviceAppSource(small, dir, teams), org.url);
          const run = await runCli(["apply", "--config", config, "--yes"], { env });
          expect(run.code, run.stderr).toBe(code);
          const ids = org.state().mappings.map((m) => m.authenticationId);
          if (code === 0) expect(ids).toContain("E3");
          else {
            expect(logMessages(run.stderr)).toMatch(
              /keys people by the ID-token claim "nickname" \(oauthSubjectIdClaim\), which Okta fills from the profile attribute nickName, but 5 of 5 Okta people have no nickName/,
            );
            expect(ids.filter((id) => id?.startsWith("00u") || id?.startsWith("E"))).toEqual([]);
          }
        });
      } finally {
        await org.close();
        await small.okta.close();
      }
    },
    30_000,
  );
});
