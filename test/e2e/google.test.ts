/**
 * Issue 41, "done when", through the built CLI: an hourly sync reads Google Workspace (the
 * stand-in, HTTPS, tokens from the real google-auth-library doing a JWT-bearer grant) and
 * converges; a second run plans nothing; a read cut, throttled past its budget or inconsistent
 * at the first, a middle or the last page changes nothing, sends the service no request and
 * exits 5; the organization's claim decides who signs in as whom; no key or token is printed.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import type { GoogleFault, GoogleStandIn } from "../../src/emulator/google/server.js";
import {
  DOMAIN,
  G,
  googleSettings,
  PRIVATE_KEY,
  smallCustomer,
  startGoogle,
  U,
  writeKey,
} from "../helpers/google.js";
import { logMessages, runCli, withTempDir } from "./run-cli.js";

const TOKEN = "google-e2e-service-token-5d2";
const env = { USERSYNC_TOKEN: TOKEN };
const BIG = "03abc000big";

let google: GoogleStandIn;
let emulator: EmulatorHandle;
beforeAll(async () => {
  // The small customer plus a group of 450 people: three pages of members (200 a page), one of users (500).
  const base = smallCustomer();
  const extra = Array.from({ length: 450 }, (_, i) => ({
    id: String(120000000000000000000n + BigInt(i)),
    primaryEmail: `member${i}@${DOMAIN}`,
    name: { givenName: "Member", familyName: `No ${i}` },
  }));
  google = await startGoogle({
    ...base,
    users: [...base.users, ...extra],
    groups: [
      ...base.groups,
      {
        id: BIG,
        email: `big@${DOMAIN}`,
        name: "Big",
        members: extra.map((u) => ({ id: u.id, type: "USER" as const })),
      },
    ],
  });
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    signIn: { oauthIssuerLocation: "https://accounts.google.com", oauthSubjectIdClaim: "sub" },
  });
});
afterAll(async () => {
  await emulator.close();
  await google.close();
});

async function writeConfig(
  dir: string,
  o: { baseUrl?: string; google?: Record<string, unknown>; minUsers?: number } = {},
) {
  const config = join(dir, "usersync.yaml");
  const key = await writeKey(dir, google.url);
  await writeFile(
    config,
    stringify({
      target: { baseUrl: o.baseUrl ?? emulator.url, allowInsecureHttp: true },
      source: {
        type: "google",
        ...(o.minUsers !== undefined ? { minUsers: o.minUsers } : {}),
        google: googleSettings(google.url, key, {
          maxWaitSeconds: 2,
          groups: [{ email: `all-staff@${DOMAIN}` }, { query: "email:analytics-*" }, { groupId: BIG }],
          ...o.google,
        }),
      },
      policy: { deletions: "remove", maxDeletes: "100%" },
      state: { file: join(dir, "state.json") },
      execution: { requestsPerSecond: 10_000 },
      logging: { format: "json" },
    }),
  );
  return config;
}

const others = () => emulator.state().mappings.filter((m) => m.id !== "admin");

describe("a Google-fed sync through the built CLI", () => {
  it("converges, re-runs empty, and refuses every read that is not whole with exit 5 and nothing sent", async () => {
    await withTempDir(async (dir) => {
      const config = await writeConfig(dir);
      const logBefore = emulator.requestLog().length;
      const validate = await runCli(["validate", "--config", config], { env });
      expect(validate.code, validate.stderr).toBe(0);
      expect(emulator.requestLog().length).toBe(logBefore);

      const first = await runCli(["apply", "--config", config, "--yes"], { env });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/Source google customer my_customer at .*: 455 people/);
      const ada = others().find((m) => m.email === "ada@example.com");
      expect([ada?.authenticationId, [...(ada?.groups ?? [])].sort()]).toEqual([
        U.ada,
        ["all_staff", "analytics_team"],
      ]);
      expect(others()).toHaveLength(453); // 455 people, the suspended and the archived absent
      const state = JSON.parse(await readFile(join(dir, "state.json"), "utf8")) as {
        groupSizes?: Record<string, number>;
      };
      expect(state.groupSizes?.[`google:${BIG}`]).toBe(450);
      expect(state.groupSizes?.[`google:${G.analytics}`]).toBe(5);

      const again = await runCli(["plan", "--config", config, "--detailed-exitcode"], { env });
      expect(again.code, again.stdout).toBe(0);

      const big = new RegExp(`/groups/${BIG}/members`);
      const later = new RegExp(`/groups/${BIG}/members.*pageToken`);
      const cases: [string, GoogleFault, RegExp][] = [
        [
          "quota past the budget on the first page",
          { match: big, kind: "quota" },
          /kept throttling \(403\).*budget/,
        ],
        [
          "429 past the budget on a later page",
          { match: later, kind: "rate" },
          /kept throttling \(429\).*budget/,
        ],
        ["a page cut short every time", { match: later, kind: "truncated" }, /does not parse/],
        ["an HTML page every time", { match: /\/users\?/, kind: "html" }, /usably after 5 tries .*not JSON/],
        ["a 500 every time on the users page", { match: /\/users\?/, kind: 500 }, /answered 500/],
        [
          "a repeated page token",
          { match: later, kind: "repeat-token", times: 1 },
          /already followed \(a paging loop\)/,
        ],
        [
          "a token refused twice",
          { match: big, kind: "expired", times: 2 },
          /refused a fresh token too \(401/,
        ],
        ["a connection reset every time", { match: later, kind: "reset" }, /usably after 5 tries/],
      ];
      for (const [name, fault, why] of cases) {
        google.faults.length = 0;
        google.faults.push(fault);
        const before = emulator.requestLog().length;
        const r = await runCli(["apply", "--config", config, "--yes"], { env });
        expect(r.code, `${name}: ${r.stderr}`).toBe(5);
        expect(logMessages(r.stderr), name).toMatch(why);
        expect(emulator.requestLog().length, `${name}: no request to the service`).toBe(before);
      }
      google.faults.length = 0;

      // A picked group that suddenly reads empty is not believed.
      const group = google.directory.groups.get(BIG)!;
      const members = group.members;
      group.members = [];
      try {
        const before = emulator.requestLog().length;
        const emptied = await runCli(["apply", "--config", config, "--yes"], { env });
        expect(emptied.code).toBe(5);
        expect(logMessages(emptied.stderr)).toMatch(/reads? empty.*--allow-empty-groups/);
        expect(emulator.requestLog().length).toBe(before);
      } finally {
        group.members = members;
      }
      // minUsers unmet: a read short of it is not whole.
      const short = await runCli(["apply", "--config", await writeConfig(dir, { minUsers: 1000 }), "--yes"], {
        env,
      });
      expect(short.code).toBe(5);
      expect(logMessages(short.stderr)).toMatch(/fewer than source.minUsers/);
      expect(others()).toHaveLength(453);
    });
  }, 600_000);

  it("keys people by email when the organization says so, stops at a claim Google cannot give, prints no key or token", async () => {
    const byEmail = await startEmulator({
      port: 0,
      tokens: { [TOKEN]: "admin" },
      signIn: { oauthIssuerLocation: "https://accounts.google.com", oauthSubjectIdClaim: "email" },
    });
    const byOid = await startEmulator({
      port: 0,
      tokens: { [TOKEN]: "admin" },
      signIn: { oauthIssuerLocation: "https://accounts.google.com", oauthSubjectIdClaim: "oid" },
    });
    try {
      await withTempDir(async (dir) => {
        const ok = await runCli(
          [
            "apply",
            "--config",
            await writeConfig(dir, { baseUrl: byEmail.url }),
            "--yes",
            "--log-level",
            "trace",
          ],
          { env },
        );
        expect(ok.code, ok.stderr).toBe(0);
        const ada = byEmail.state().mappings.find((m) => m.email === "ada@example.com");
        expect(ada?.authenticationId).toBe("ada@example.com");
        const out = ok.stdout + ok.stderr;
        expect(out).not.toContain(PRIVATE_KEY.split("\n")[1]!);
        expect(out).not.toMatch(/ya29\.[A-Za-z0-9_-]{10,}/);
        const oid = await runCli(["plan", "--config", await writeConfig(dir, { baseUrl: byOid.url })], {
          env,
        });
        expect(oid.code).toBe(4);
        expect(logMessages(oid.stderr)).toMatch(/claim "oid".*Set oauthSubjectIdClaim to sub/);
      });
    } finally {
      await byEmail.close();
      await byOid.close();
    }
  }, 120_000);
});
