/**
 * Crash loop (DESIGN section 6): the built CLI applies a 2,000-user onboarding and is killed with
 * SIGKILL at a random moment (measured in writes the emulator has answered, so every phase is
 * hit: before the first write, mid-run, near the end). After each kill nobody's password is
 * unknown; a clean re-run converges with no duplicate; a re-plan is empty.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JournalLine } from "../../src/outputs/index.js";
import { startEmulator } from "../../src/emulator/index.js";
import { mulberry32 } from "../../src/emulator/faults.js";
import type { RequestLogEntry } from "../../src/emulator/types.js";
import { memoryTempDir, runCli, startCli } from "../e2e/run-cli.js";
import { readFile, rm } from "node:fs/promises";
import {
  ADMIN,
  TOKEN,
  cliEnv,
  divergence,
  makeUsers,
  readCredentials,
  seedOf,
  unknownPasswords,
  writeConfig,
  writeDesired,
} from "./org.js";

const TRIALS = 20;
// A trial (killed run, re-run, re-plan: three CLI processes) takes ~6.7 s at 2,000 users on an idle
// 2-core machine, so 20 trials fit CI's budget (~2.5 min). On a machine shared with other jobs it
// was 3-4x slower: RELIABILITY_CRASH_USERS=400 keeps every phase a kill can hit at a fifth of the cost.
const USERS = Number(process.env["RELIABILITY_CRASH_USERS"] ?? 2000);
const SEED = Number(process.env["RELIABILITY_SEED"] ?? 20261122);
const users = makeUsers(USERS);
const seeded = new Set([ADMIN.email]);
let dir: string;
let config: string;
let desired: string;

beforeAll(async () => {
  dir = await memoryTempDir("usersync-crash-");
  desired = join(dir, "users.yaml");
  config = await writeConfig(dir);
  await writeDesired(desired, users);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The killed run's journal: every complete line is a finished step (a last line may be cut off by the kill). */
async function journalTrail(file: string): Promise<Array<Partial<JournalLine>>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return []; // killed before the apply began
    throw err;
  }
  return text
    .split("\n")
    .slice(0, -1)
    .map((line) => JSON.parse(line) as Partial<JournalLine>);
}

const WRITES = new Set(["POST", "PUT", "DELETE"]);

/**
 * Counts the writes the emulator carries out (its onRequest hook, told before each answer goes
 * out). `after(n)` resolves once n have been answered (a macrotask after the hook: the answer is
 * on its way), or the child has exited. Event-driven: no timer polls the counters.
 */
function writeCounter(): {
  onRequest: (e: RequestLogEntry) => void;
  after(n: number, exited: Promise<unknown>): Promise<void>;
} {
  let writes = 0;
  let waiting: { n: number; resolve: () => void } | undefined;
  return {
    onRequest(entry) {
      if (!WRITES.has(entry.method)) return;
      writes++;
      if (waiting && writes >= waiting.n) {
        const { resolve } = waiting;
        waiting = undefined;
        setImmediate(resolve);
      }
    },
    after(n, exited) {
      return new Promise((resolve) => {
        if (writes >= n) return resolve();
        waiting = { n, resolve };
        void exited.then(() => resolve());
      });
    },
  };
}

describe(`crash loop: ${TRIALS} trials of kill -9 during a ${USERS}-user apply (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const summary: string[] = [];
  afterAll(() => console.log(`crash loop (seed ${SEED}, ${USERS} users):\n${summary.join("\n")}`));

  for (let trial = 1; trial <= TRIALS; trial++) {
    // Two writes per user: every kill lands between the first write and the last.
    const killAt = Math.floor(random() * (USERS * 2 - 10));
    it(`trial ${trial}: killed after ${killAt} writes, a clean re-run converges`, async () => {
      const writes = writeCounter();
      const emulator = await startEmulator({
        port: 0,
        onRequest: writes.onRequest,
        tokens: { [TOKEN]: "admin" },
        seed: seedOf(),
        faults: { latencyMs: 3 },
      });
      try {
        const credentials = join(dir, `credentials-${trial}.csv`);
        const args = ["--config", config, "--desired", desired, "--base-url", emulator.url];
        const apply = [
          "apply",
          ...args,
          "--yes",
          "--credentials-file",
          credentials,
          "--journal",
          join(dir, `journal-${trial}.jsonl`),
        ];
        const run = startCli(apply, { env: cliEnv() });
        await writes.after(killAt, run.done);
        run.child.kill("SIGKILL");
        const killed = await run.done;
        expect(killed.signal, "the run finished before the kill").toBe("SIGKILL");
        const writesAtKill = emulator.counters().requests;
        const atKill = emulator.state();
        // The trail the killed run left: each create it journaled as succeeded did land.
        const trail = await journalTrail(join(dir, `journal-${trial}.jsonl`));
        const emails = new Set(atKill.idpUsers.map((u) => u.email.toLowerCase()));
        const ids = new Set(atKill.mappings.map((m) => m.id));
        for (const line of trail) {
          expect(
            typeof line.stepId === "string" && typeof line.outcome === "string",
            JSON.stringify(line),
          ).toBe(true);
          if (line.outcome !== "succeeded") continue;
          if (line.kind === "createCredentials")
            expect(emails.has(String(line.target).toLowerCase()), String(line.stepId)).toBe(true);
          if (line.kind === "createMapping")
            expect(ids.has(String(line.target)), String(line.stepId)).toBe(true);
        }

        // Between the kill and the re-run: every user the IdP holds has its password on file.
        expect(unknownPasswords(atKill, await readCredentials(credentials), seeded)).toEqual([]);

        emulator.setFaults({});
        const again = await runCli(apply, { env: cliEnv() });
        expect(again.code, again.stderr).toBe(0);
        const state = emulator.state();
        expect(divergence(state, users)).toEqual([]);
        expect(unknownPasswords(state, await readCredentials(credentials), seeded)).toEqual([]);

        const replan = await runCli(["plan", ...args, "--detailed-exitcode"], { env: cliEnv() });
        expect(replan.code, replan.stdout + replan.stderr).toBe(0);
        summary.push(
          `  trial ${trial}: kill after ${killAt} writes (${killed.signal ?? `exit ${killed.code}`}, ${writesAtKill} requests answered, ${trail.length} journal lines); re-run exit ${again.code}; re-plan empty`,
        );
      } finally {
        await emulator.close();
      }
    });
  }
});
