/**
 * Fault soak: a 2,000-user onboarding against an emulator that answers 15% of requests with
 * 500/503, 5% with 429 + Retry-After, drops 2% of connections and loses 2% of answers (the write
 * lands, the answer never comes). One apply run converges (a second only if the circuit breaker
 * stopped the first), with zero duplicates and zero deletions; the counts are printed for CI.
 * The engine runs in-process (same code as the CLI) with real waits, so backoff and Retry-After
 * (0.1 s here: a 429 pauses the whole run, and ~250 of them at 1 s would take minutes)
 * are honoured as in production.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { expect, it } from "vitest";
import type { ApplyResult } from "../../src/apply/index.js";
import { createPasswordProvider } from "../../src/outputs/index.js";
import { listActualState } from "../../src/service/index.js";
import { plan } from "../../src/plan/index.js";
import { aDesiredGroup, aDesiredUser, aPolicy, desiredOf, planAndApply } from "../apply/scenario.js";
import { withEmulatorClient } from "../helpers/env.js";
import { ADMIN, GROUPS, divergence, makeUsers, readCredentials, seedOf, unknownPasswords } from "./org.js";

const NEW_USERS = 2000;
/** Already provisioned and not in the file: incremental mode must leave them alone. */
const BYSTANDERS = 200;
const MAX_RUNS = 3;

it(`fault soak: ${NEW_USERS} new users under 15% 5xx, 5% 429, 2% drops, 2% lost answers converge in one run`, async () => {
  const users = makeUsers(NEW_USERS);
  const bystanders = makeUsers(BYSTANDERS, { prefix: "keep" });
  const dir = await mkdtemp(join(tmpdir(), "usersync-soak-"));
  const env = await withEmulatorClient({
    emulator: {
      seed: seedOf(bystanders),
      faults: {
        error500: 0.075,
        error503: 0.075,
        throttle429: 0.05,
        retryAfterSeconds: 0.1,
        dropConnection: 0.02,
        loseAnswer: 0.02,
        seed: 42,
      },
    },
    client: {
      concurrency: 16,
      // 8 retries: a request fails 9 times in a row with p = 0.24^9 (about 3e-6), so 4,000 writes converge in one run.
      retries: 8,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      random: Math.random,
      logger: pino({ level: "silent" }),
    },
  });
  try {
    const desired = desiredOf(
      users.map((u, i) => aDesiredUser({ ...u, source: { file: "users.yaml", line: i + 2 } })),
      GROUPS.map((id) => aDesiredGroup({ id, name: `Group ${id}` })),
    );
    const policy = aPolicy({ passwords: "generate" });
    const credentials = join(dir, "credentials.csv");
    const runs: ApplyResult[] = [];
    for (let run = 0; run < MAX_RUNS; run++) {
      const passwords = await createPasswordProvider({ source: "generate", credentialsFile: credentials });
      const { result } = await planAndApply({
        client: env.client,
        desired,
        policy,
        apply: { concurrency: 16, passwords },
      });
      await passwords.close();
      runs.push(result);
      if (result.stoppedBy !== "circuitBreaker") break;
    }

    const counters = env.emulator.counters();
    const stats = env.client.stats();
    const last = runs.at(-1)!;
    console.log(
      [
        `fault soak: ${runs.length} apply run(s); ${stats.requests} requests sent (${stats.retries} retries, ${stats.throttled} answered 429)`,
        `  emulator: ${counters.requests} requests logged; faults ${JSON.stringify(counters.faults)}; by status ${JSON.stringify(counters.byStatus)}`,
        ...runs.map(
          (r, i) =>
            `  run ${i + 1}: ${JSON.stringify(r.counts)}; recovered ${r.outcomes.filter((o) => o.recovered).length}; ${r.durationMs} ms${r.stoppedBy ? `; stopped by ${r.stoppedBy}` : ""}`,
        ),
      ].join("\n"),
    );
    // The faults really were injected, at about the asked rates.
    expect(counters.faults["500"] ?? 0).toBeGreaterThan(100);
    expect(counters.faults["429"] ?? 0).toBeGreaterThan(50);
    expect(counters.faults["drop"] ?? 0).toBeGreaterThan(20);
    expect(counters.faults["lose"] ?? 0).toBeGreaterThan(20);
    for (const r of runs.slice(0, -1)) expect(r.stoppedBy).toBe("circuitBreaker");
    expect(last.counts.failed).toBe(0);
    expect(last.counts.skipped).toBe(0);

    env.emulator.setFaults({});
    const state = env.emulator.state();
    expect(divergence(state, [...bystanders, ...users])).toEqual([]);
    expect(
      unknownPasswords(
        state,
        await readCredentials(credentials),
        new Set([ADMIN.email, ...bystanders.map((b) => b.email)]),
      ),
    ).toEqual([]);
    // Zero deletions: none was planned, none was sent, every bystander is as seeded.
    expect(env.emulator.requestLog().filter((r) => r.method === "DELETE")).toEqual([]);
    expect(state.mappings.find((m) => m.id === ADMIN.id)?.authenticationId).toBe(ADMIN.authenticationId);

    const replan = plan({
      desired,
      actual: await listActualState(env.client),
      policy,
      profile: env.client.profile,
    });
    expect(replan.steps.map((s) => s.id)).toEqual([]);
  } finally {
    await env.close();
    await rm(dir, { recursive: true, force: true });
  }
});
