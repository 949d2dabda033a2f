/**
 * Broken-answer soak (issue 20): 60 seeded `apply` runs of a full-mode sync with the riskiest
 * policy (`deletions: remove`, `unlinkedCredentials: delete`), each against an emulator that mixes
 * the usual faults (5xx, 429, drops, lost answers) with one or two broken-answer rules (a sign-in
 * page, `data: null`, a truncated, oversized or trickling body, repeated or empty pages) on the
 * answers a plan depends on. In 6 cycles of 10 runs, each on a fresh organization, then a clean run:
 *
 * - a run whose listing was refused sent zero writes;
 * - once a cycle's organization is in sync, no run writes anything (a broken listing believed
 *   would plan creates or deletions);
 * - no write ever touches the caller, a protected user or one outside the scope, and the only
 *   deletions are of the leavers and the unlinked credentials in scope;
 * - the clean run converges, and a new plan is empty.
 *
 * The engine runs in-process (the CLI's code) with instant waits: retries and re-reads are counted,
 * not waited for; only the trickle takes real time (the whole-answer deadline, 300 ms here).
 */
import { pino } from "pino";
import { expect, it } from "vitest";
import { BROKEN_ANSWER_MODES } from "../../src/emulator/index.js";
import { mulberry32 } from "../../src/emulator/faults.js";
import type { BrokenAnswerRule, EmulatorFaults } from "../../src/emulator/types.js";
import { listActualState } from "../../src/service/index.js";
import { plan } from "../../src/plan/index.js";
import { aDesiredGroup, aDesiredUser, aPolicy, desiredOf, planAndApply } from "../apply/scenario.js";
import { withEmulatorClient } from "../helpers/env.js";
import { ADMIN, GROUPS, divergence, makeUsers, seedOf, type TestUser } from "./org.js";

const CYCLES = 6;
const RUNS_PER_CYCLE = 10;

const kept = makeUsers(30);
const leavers = makeUsers(10, { prefix: "gone" });
const newcomers = makeUsers(10, { prefix: "new" });
const vip = makeUsers(1, { prefix: "vip" });
const outOfScope = makeUsers(5, { prefix: "ext", domain: "other.example" });
const strays = ["stray1@reliability.example", "stray2@reliability.example"]; // unlinked, in scope: deleted
const partners = ["p1@partner.example", "p2@partner.example"]; // unlinked, out of scope: kept
const desiredUsers: TestUser[] = [...kept, ...newcomers];

/** What may ever be written: desired users and groups; deleted: only the leavers and the strays. */
const writable = new Set([...desiredUsers.flatMap((u) => [u.id, u.email]), ...GROUPS]);
const deletable = new Set([...leavers.flatMap((u) => [u.id, u.email]), ...strays]);
/** Never written at all: the caller, the protected user, the users outside the scope, the partners. */
const untouchable = [ADMIN, ...vip, ...outOfScope];

function seed() {
  const base = seedOf([...kept, ...leavers, ...vip, ...outOfScope]);
  // Drift: five kept users have an old display name.
  for (const u of base.idpUsers!.slice(1, 6)) u.displayName = `Old ${u.displayName}`;
  base.idpUsers!.push(
    ...[...strays, ...partners].map((email) => ({
      email,
      displayName: email,
      authenticationId: `auth-${email}`,
    })),
  );
  return base;
}

const LISTINGS = [
  /^\/api\/v1\/auth\/users$/,
  /^\/api\/v1\/entities\/users$/,
  /^\/api\/v1\/entities\/userGroups$/,
] as const;
const ANY_READ = [
  /^\/api\/v1\/profile$/,
  ...LISTINGS,
  /^\/api\/v1\/(auth\/users|entities\/(users|userGroups))\/.+/,
] as const;
const MODES = BROKEN_ANSWER_MODES;

/** The run's faults: the usual ones, and one or two broken-answer rules, all drawn from its seed. */
function faultsOf(run: number): EmulatorFaults {
  const r = mulberry32(run * 7919 + 17);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
  const rules: BrokenAnswerRule[] = Array.from({ length: r() < 0.5 ? 1 : 2 }, () => {
    const mode = pick(MODES);
    const paging = mode === "repeatPage" || mode === "emptyPage";
    const pathPattern = pick(paging ? LISTINGS.slice(1) : ANY_READ);
    // Now and then the IdP create's answer too: the one write answer the executor reads.
    const methods = pathPattern === LISTINGS[0] && r() < 0.5 ? ["GET", "POST"] : ["GET"];
    return { mode, pathPattern, methods, share: 0.2 + 0.8 * r(), intervalMs: 20, bytes: 400_000 };
  });
  return {
    seed: run,
    error500: 0.03,
    error503: 0.02,
    throttle429: 0.02,
    retryAfterSeconds: 0,
    dropConnection: 0.01,
    loseAnswer: 0.02,
    brokenAnswers: rules,
  };
}

/** Everything a run's writes did that they must not have. */
function violations(log: Array<{ method: string; url: string; body?: unknown; fault?: string }>): string[] {
  const out: string[] = [];
  for (const e of log) {
    // A dropped request was never read (nor its body logged): nothing was written.
    if (e.method === "GET" || e.fault === "drop") continue;
    const path = new URL(e.url, "http://x").pathname;
    const last = decodeURIComponent(path.split("/").at(-1)!);
    const body = e.body as { email?: string; data?: { id?: string } } | undefined;
    const target = e.method === "POST" ? (body?.email ?? body?.data?.id ?? "?") : last;
    const allowed = e.method === "DELETE" ? deletable.has(target) : writable.has(target);
    if (!allowed) out.push(`${e.method} ${e.url}`);
  }
  return out;
}

it(`broken-answer soak: ${CYCLES * RUNS_PER_CYCLE} seeded runs mixing broken answers with the usual faults`, async () => {
  const desired = desiredOf(
    desiredUsers.map((u, i) => aDesiredUser({ ...u, source: { file: "users.yaml", line: i + 2 } })),
    GROUPS.map((id) => aDesiredGroup({ id, name: `Group ${id}` })),
  );
  const policy = aPolicy({
    mode: "full",
    deletions: "remove",
    unlinkedCredentials: "delete",
    scope: { emailDomains: ["reliability.example"] },
    protect: [vip[0]!.email],
  });
  const extras = {
    extraIdp: 1 + vip.length + outOfScope.length + partners.length,
    extraMappings: 1 + vip.length + outOfScope.length,
  };
  const tally = {
    refused: 0,
    applied: 0,
    writesRefused: 0,
    writesInSync: 0,
    byMode: {} as Record<string, number>,
  };
  const bad: string[] = [];

  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const env = await withEmulatorClient({
      emulator: { seed: seed() },
      client: {
        profile: "v1",
        retries: 3,
        pageSize: 10,
        concurrency: 8,
        timeouts: { responseMs: 300 },
        maxResponseBytes: 200_000,
        logger: pino({ level: "silent" }),
      },
    });
    try {
      const before = env.emulator.state();
      const untouched = () =>
        untouchable.map((u) => [
          env.emulator.state().idpUsers.find((i) => i.email === u.email),
          env.emulator.state().mappings.find((m) => m.id === u.id),
        ]);
      const untouchedBefore = untouched();
      let inSync = false;
      for (let i = 0; i < RUNS_PER_CYCLE; i++) {
        const run = cycle * RUNS_PER_CYCLE + i;
        env.emulator.setFaults(faultsOf(run));
        env.emulator.resetLog();
        let refused = false;
        try {
          await planAndApply({ client: env.client, desired, policy, apply: { concurrency: 8 } });
          tally.applied += 1;
        } catch {
          // The listing was refused (or the caller could not be read): nothing may have been written.
          refused = true;
          tally.refused += 1;
        }
        const log = env.emulator.requestLog();
        const writes = log.filter((e) => e.method !== "GET");
        for (const [mode, n] of Object.entries(env.emulator.counters().faults))
          tally.byMode[mode] = (tally.byMode[mode] ?? 0) + n;
        if (refused && writes.length > 0)
          bad.push(`run ${run}: refused listing, yet ${writes.length} writes`);
        if (inSync && writes.length > 0)
          bad.push(
            `run ${run}: in sync, yet ${writes.length} writes, e.g. ${writes[0]!.method} ${writes[0]!.url}`,
          );
        tally.writesRefused += refused ? writes.length : 0;
        bad.push(...violations(log).map((v) => `run ${run}: ${v}`));
        inSync ||= divergence(env.emulator.state(), desiredUsers, extras).length === 0;
      }

      env.emulator.setFaults({});
      const clean = await planAndApply({ client: env.client, desired, policy, apply: { concurrency: 8 } });
      expect(clean.result.counts.failed, `cycle ${cycle}: clean run`).toBe(0);
      const state = env.emulator.state();
      expect(divergence(state, desiredUsers, extras), `cycle ${cycle}`).toEqual([]);
      expect(untouched(), `cycle ${cycle}: caller, protected and out-of-scope users`).toEqual(
        untouchedBefore,
      );
      for (const email of partners) expect(state.idpUsers.some((u) => u.email === email)).toBe(true);
      for (const email of strays) expect(state.idpUsers.some((u) => u.email === email)).toBe(false);
      expect(state.groups).toEqual(before.groups);
      const replan = plan({ desired, actual: await listActualState(env.client), policy, profile: "v1" });
      expect(
        replan.steps.map((s) => s.id),
        `cycle ${cycle}: plan after the clean run`,
      ).toEqual([]);
    } finally {
      await env.close();
    }
  }

  console.log(
    `broken-answer soak: ${tally.applied} runs applied, ${tally.refused} refused (zero writes each); faults ${JSON.stringify(tally.byMode)}`,
  );
  expect(bad).toEqual([]);
  // The mix really happened: listings refused and accepted, every broken mode injected.
  expect(tally.refused).toBeGreaterThan(10);
  expect(tally.applied).toBeGreaterThan(10);
  for (const mode of MODES) expect(tally.byMode[mode] ?? 0, mode).toBeGreaterThan(0);
  expect(tally.byMode["500"] ?? 0).toBeGreaterThan(0);
  expect(tally.byMode["lose"] ?? 0).toBeGreaterThan(0);
});
