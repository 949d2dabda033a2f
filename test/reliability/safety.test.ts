/**
 * Safety (DESIGN section 5): against a 1,000-user organization in `full` mode with
 * `deletions: remove`, desired files that would wipe it (empty, 10% of the users, the wrong email
 * domain) never lead to more deletions than `maxDeletes` allows. Creates and updates may run;
 * the DELETE requests the emulator receives are counted.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import type { Plan } from "../../src/plan/types.js";
import { runCli, withTempDir } from "../e2e/run-cli.js";
import { TOKEN, cliEnv, makeUsers, seedOf, writeConfig, writeDesired } from "./org.js";

const ORG = makeUsers(1000);
const MAX_DELETES = 100; // "10%" of 1,000 managed users

interface Case {
  name: string;
  /** Writes the desired file into `dir` and returns its path. */
  write(dir: string): Promise<string>;
  /** Exit 4 when the file itself is refused, 3 when deletions are held back. */
  exit: number;
}

const cases: Case[] = [
  { name: "an empty file", exit: 4, write: async (dir) => writeRaw(join(dir, "users.csv"), "") },
  {
    name: "a header-only CSV",
    exit: 4,
    write: async (dir) => writeRaw(join(dir, "users.csv"), "email,id,displayName,groups\n"),
  },
  {
    name: "an empty YAML that says allowEmpty: true",
    exit: 3,
    write: async (dir) => writeRaw(join(dir, "users.yaml"), "version: 1\nallowEmpty: true\nusers: []\n"),
  },
  { name: "10% of the users", exit: 3, write: async (dir) => writeYaml(dir, ORG.slice(0, 100)) },
  {
    name: "the wrong email domain, other ids",
    exit: 3,
    write: async (dir) => writeYaml(dir, makeUsers(1000, { prefix: "w", domain: "wrong.example" })),
  },
  {
    // Every id is known, every email differs: read as an email change of each user, whose old
    // credentials are deleted. Those deletions count against maxDeletes like any other.
    name: "the wrong email domain, the same ids",
    exit: 3,
    write: async (dir) =>
      writeYaml(
        dir,
        ORG.map((u) => ({ ...u, email: u.email.replace("@reliability.example", "@wrong.example") })),
      ),
  },
];

async function writeRaw(file: string, text: string): Promise<string> {
  await writeFile(file, text);
  return file;
}

async function writeYaml(dir: string, users: Parameters<typeof writeDesired>[1]): Promise<string> {
  const file = join(dir, "users.yaml");
  await writeDesired(file, users);
  return file;
}

describe("safety: no deletion beyond maxDeletes in full mode against a 1,000-user organization", () => {
  it.each(cases)("$name", async ({ write, exit }) => {
    const emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, seed: seedOf(ORG) });
    try {
      await withTempDir(async (dir) => {
        const config = await writeConfig(dir, {
          policy: { mode: "full", deletions: "remove", maxDeletes: "10%" },
          identity: { passwords: "none" },
        });
        const desired = await write(dir);
        const planFile = join(dir, "plan.json");
        const r = await runCli(
          [
            "apply",
            "--yes",
            "--config",
            config,
            "--desired",
            desired,
            "--base-url",
            emulator.url,
            "--out",
            planFile,
          ],
          { env: cliEnv(), cwd: dir },
        );
        const deletes = emulator.requestLog().filter((x) => x.method === "DELETE");
        expect(deletes.length, `DELETE requests sent (maxDeletes ${MAX_DELETES})`).toBeLessThanOrEqual(
          MAX_DELETES,
        );
        expect(r.code, r.stderr).toBe(exit);
        const state = emulator.state();
        const kept = ORG.filter(
          (u) => state.idpUsers.some((i) => i.email === u.email) && state.mappings.some((m) => m.id === u.id),
        );
        expect(kept.length).toBeGreaterThanOrEqual(ORG.length - MAX_DELETES);
        if (exit === 3) {
          const plan = JSON.parse(await readFile(planFile, "utf8")) as Plan;
          expect(plan.deleteGuard.limit).toBeLessThanOrEqual(MAX_DELETES);
          expect(plan.deleteGuard.wanted).toBeGreaterThan(plan.deleteGuard.limit);
          expect(r.stderr + r.stdout).toMatch(/held back/i);
        } else {
          expect(emulator.counters().requests).toBe(0);
        }
      });
    } finally {
      await emulator.close();
    }
  });
});
