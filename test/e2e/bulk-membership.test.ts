/**
 * Issue 24 over the built CLI and the emulator: a reorganisation of 2,000 people across 20 groups
 * in at most two requests per changed group plus the listing; kill -9 mid-run, then a re-run
 * converges with no membership lost or duplicated; a service without the bulk endpoints (plan
 * time: a probe, one notice, one PUT per person; a saved plan applied to it: one notice, then
 * a read and a PUT per person and step), shown with 200 people. Every request sent to the userManagement paths is checked against the
 * official OpenAPI.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorOptions, EmulatorSeed } from "../../src/emulator/types.js";
import { requestBodyProblems } from "../helpers/openapi.js";
import { runCli, startCli } from "./run-cli.js";

const TOKEN = "e2e-token-bulk-3b7d";
const PEOPLE = 2000;
/** The fallback writes a read and a PUT per person and step: a smaller organization shows it as well. */
const FEW = 200;
const GROUPS = Array.from({ length: 20 }, (_, i) => `g${String(i).padStart(2, "0")}`);
const id = (i: number) => `p${String(i).padStart(4, "0")}`;
/** Everyone starts in one group and moves seven groups on: every group gains 100 and loses 100. */
const before = (i: number) => GROUPS[i % GROUPS.length]!;
const after = (i: number) => GROUPS[(i + 7) % GROUPS.length]!;
const env = { USERSYNC_TOKEN: TOKEN };

function seed(count: number): EmulatorSeed {
  const people = Array.from({ length: count }, (_, i) => i);
  return {
    groups: GROUPS.map((g) => ({ id: g, name: `Group ${g}` })),
    idpUsers: people.map((i) => ({
      email: `${id(i)}@bulk.example`,
      displayName: id(i),
      authenticationId: `a-${i}`,
    })),
    mappings: people.map((i) => ({
      id: id(i),
      authenticationId: `a-${i}`,
      email: `${id(i)}@bulk.example`,
      groups: [before(i)],
    })),
  };
}

// One folder for the whole file: the desired state and the config are the same for every test.
let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-bulk-"));
  const users = (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      email: `${id(i)}@bulk.example`,
      id: id(i),
      displayName: id(i),
      groups: [after(i)],
    }));
  await writeFile(join(dir, "users.yaml"), stringify({ version: 1, users: users(PEOPLE) }));
  await writeFile(join(dir, "few.yaml"), stringify({ version: 1, users: users(FEW) }));
  await writeFile(
    join(dir, "usersync.yaml"),
    stringify({
      execution: { concurrency: 4, requestsPerSecond: 10_000 },
      logging: { level: "warn", format: "json" },
    }),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function emulator(options: EmulatorOptions = {}, count = PEOPLE): Promise<EmulatorHandle> {
  return startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, seed: seed(count), ...options });
}

const cli = (command: string, e: EmulatorHandle, extra: string[] = [], desired = "users.yaml") =>
  runCli([command, "--config", "usersync.yaml", "--desired", desired, "--base-url", e.url, ...extra], {
    cwd: dir,
    env,
  });

/** Everything wrong with the emulator's memberships: a group twice, or a person not in their new group alone. */
function wrongMemberships(e: EmulatorHandle): string[] {
  const out: string[] = [];
  // The people; not the token's owner, whom the emulator maps at start.
  for (const m of e.state().mappings.filter((x) => x.id !== "admin")) {
    const i = Number(m.id.slice(1));
    if (new Set(m.groups).size !== m.groups.length)
      out.push(`${m.id}: a group twice (${m.groups.join(",")})`);
    if (m.groups.join(",") !== after(i)) out.push(`${m.id}: in ${m.groups.join(",") || "no group"}`);
  }
  return out;
}

function expectValidUserManagementRequests(e: EmulatorHandle): void {
  for (const r of e.requestLog().filter((x) => x.url.includes("/actions/userManagement/")))
    expect(requestBodyProblems(r.method, r.url, r.body), `${r.method} ${r.url}`).toEqual([]);
}

describe(`bulk membership: ${PEOPLE.toLocaleString("en-US")} people across ${GROUPS.length} groups`, () => {
  it("the reorganisation converges in at most 2 requests per changed group plus the listing; a re-plan is empty", async () => {
    const e = await emulator();
    try {
      const shown = await cli("plan", e);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(
        "  Bulk moves  g00: +100 −100 members, 2 requests; g01: +100 −100 members, 2 requests;",
      );
      expect(shown.stdout).toContain(
        "  Estimate    40 requests (40 requests move 2,000 people in bulk), about",
      );
      e.resetLog();
      const r = await cli("apply", e, ["--yes"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("Done: 2,000 people (2,000 changed)");
      const log = e.requestLog();
      const reads = log.filter((x) => x.method === "GET");
      const writes = log.filter((x) => x.method !== "GET");
      console.info(`reorganisation: ${writes.length} writes, ${reads.length} reads (listing and probe)`);
      expect(writes.every((x) => x.method === "POST" && /\/(addMembers|removeMembers)$/.test(x.url))).toBe(
        true,
      );
      expect(writes.length).toBeLessThanOrEqual(2 * GROUPS.length);
      // The listing: profile, IdP users, 5 pages of mappings (the people and the token's owner),
      // 1 of groups, and the probe.
      expect(reads.length).toBeLessThanOrEqual(9);
      expectValidUserManagementRequests(e);
      expect(wrongMemberships(e)).toEqual([]);
      e.resetLog();
      const replan = await cli("plan", e, ["--detailed-exitcode"]);
      expect(replan.code, replan.stdout).toBe(0);
      // Nothing to move: the service is not even asked whether it could.
      expect(e.requestLog().filter((x) => x.url.includes("/userManagement/"))).toEqual([]);
    } finally {
      await e.close();
    }
  }, 60_000);

  it("kill -9 mid-run, then a re-run: converged, no membership lost or duplicated", async () => {
    // Slow answers on the bulk paths, so the kill lands with some groups moved and others not.
    const e = await emulator({ faults: { latencyMs: 150, pathPattern: /\/userManagement\// } });
    try {
      const run = startCli(
        ["apply", "--config", "usersync.yaml", "--desired", "users.yaml", "--base-url", e.url, "--yes"],
        { cwd: dir, env },
      );
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          if ((e.counters().byMethod["POST"] ?? 0) >= 15) {
            clearInterval(timer);
            resolve();
          }
        }, 5);
      });
      run.child.kill("SIGKILL");
      expect((await run.done).signal).toBe("SIGKILL");
      const atKill = wrongMemberships(e);
      console.info(
        `killed after ${e.counters().byMethod["POST"]} bulk requests: ${atKill.length} people not yet moved`,
      );
      expect(atKill.length).toBeGreaterThan(0);
      expect(atKill.filter((w) => w.includes("twice"))).toEqual([]);
      e.setFaults({});
      const again = await cli("apply", e, ["--yes"]);
      expect(again.code, again.stderr).toBe(0);
      expect(wrongMemberships(e)).toEqual([]);
      expectValidUserManagementRequests(e);
      const replan = await cli("plan", e, ["--detailed-exitcode"]);
      expect(replan.code, replan.stdout).toBe(0);
    } finally {
      await e.close();
    }
  }, 60_000);
});

describe("a service without the bulk endpoints", () => {
  it("plan and apply: one notice, one PUT per person, converged", async () => {
    const e = await emulator({ userManagement: 404 }, FEW);
    try {
      const shown = await cli("plan", e, [], "few.yaml");
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).not.toContain("Bulk moves");
      expect(shown.stdout).toMatch(/ {2}Estimate +200 requests, about/);
      const notices = shown.stderr.split("\n").filter((l) => l.includes('"notice":"no-bulk-membership"'));
      expect(notices).toHaveLength(1);
      expect(notices[0]).toContain("answered 404");
      e.resetLog();
      const r = await cli("apply", e, ["--yes"], "few.yaml");
      expect(r.code, r.stderr).toBe(0);
      expect(e.requestLog().filter((x) => x.method === "PUT")).toHaveLength(FEW);
      expect(wrongMemberships(e)).toEqual([]);
    } finally {
      await e.close();
    }
  }, 60_000);

  it("a saved plan with bulk steps, applied to it: one notice, then one PUT per person; converged", async () => {
    const planned = await emulator({}, FEW);
    const without = await emulator({ userManagement: 405 }, FEW);
    try {
      const saved = await cli("plan", planned, ["--out", "bulk-plan.json"], "few.yaml");
      expect(saved.code, saved.stderr).toBe(0);
      // One organization whose service stopped answering bulk requests between plan and apply (a
      // proxy in front of it changed): two emulators stand in for it, so the plan names the second.
      const file = join(dir, "bulk-plan.json");
      const plan = JSON.parse(await readFile(file, "utf8")) as { organization: { url: string } };
      plan.organization.url = without.url;
      await writeFile(file, JSON.stringify(plan));
      const r = await runCli(
        [
          "apply",
          "--config",
          "usersync.yaml",
          "--plan",
          "bulk-plan.json",
          "--base-url",
          without.url,
          "--yes",
        ],
        { cwd: dir, env },
      );
      expect(r.code, r.stderr).toBe(0);
      const notices = r.stderr.split("\n").filter((l) => l.includes('"notice":"no-bulk-membership"'));
      expect(notices).toHaveLength(1);
      expect(r.stdout).toContain("Done: 200 people (200 changed)");
      expect(wrongMemberships(without)).toEqual([]);
      const replan = await cli("plan", without, ["--detailed-exitcode"], "few.yaml");
      expect(replan.code, replan.stdout).toBe(0);
    } finally {
      await planned.close();
      await without.close();
    }
  }, 120_000);
});
