/**
 * The revert guard (issue 49) through the built CLI against the emulator: a batch, a correction
 * batch, then the original file again. The original's steps that undo the correction are held
 * back (exit 3) and named with the correction run; --allow-reverts lets them through; once the
 * window has passed (the state file's times aged) nothing is held.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { makeUsers, seedOf, TOKEN, writeDesired } from "../reliability/org.js";
import { runCli } from "./run-cli.js";

let dir: string;
let emulator: EmulatorHandle;
const env = { USERSYNC_TOKEN: TOKEN };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-revert-"));
  emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, seed: seedOf([]) });
});
afterAll(async () => {
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
});

const groupsOf = (id: string): string[] | undefined =>
  emulator.state().mappings.find((m) => m.id === id)?.groups;

describe("an older file does not silently undo newer changes", () => {
  it("holds the reverting steps back naming the correction run; --allow-reverts; the window ends", async () => {
    const state = join(dir, "state.json");
    const config = join(dir, "usersync.yaml");
    await writeFile(
      config,
      stringify({
        target: { baseUrl: emulator.url },
        source: { desired: join(dir, "users.yaml") },
        policy: { mode: "incremental", scope: { emailDomains: ["revert.example"] } },
        state: { file: state },
        output: { credentialsFile: join(dir, "credentials.csv") },
        execution: { requestsPerSecond: 10_000 },
        logging: { level: "warn", format: "json" },
      }),
    );
    const apply = (...extra: string[]) => runCli(["apply", "--config", config, "--yes", ...extra], { env });
    const original = makeUsers(3, { prefix: "r", domain: "revert.example" });
    const [a, b] = original as [(typeof original)[0], (typeof original)[0]];
    const corrected = [{ ...a, groups: ["g3"] }, { ...b, displayName: "Renamed Person" }, original[2]!];

    await writeDesired(join(dir, "users.yaml"), original);
    expect((await apply()).code).toBe(0);
    await writeDesired(join(dir, "users.yaml"), corrected);
    const fix = await apply();
    expect(fix.code, fix.stderr).toBe(0);
    const recorded = JSON.parse(await readFile(state, "utf8")) as {
      changes: Array<{ at: string; run: string }>;
    };
    const correctionRun = recorded.changes.at(-1)!;
    expect(groupsOf(a.id)).toEqual(["g3"]);

    // The original file again: held, exit 3, named with the correction run.
    await writeDesired(join(dir, "users.yaml"), original);
    const again = await apply();
    expect(again.code, again.stderr).toBe(3);
    expect(again.stdout).toContain("Held back by the revert guard (policy.revertWindow 72h), 0 allowed");
    expect(again.stdout).toContain(
      `undoing the run of ${correctionRun.at} (stateDigest ${correctionRun.run})`,
    );
    expect(again.stdout).toContain("--allow-reverts 2");
    expect(groupsOf(a.id)).toEqual(["g3"]);
    const json = await runCli(["plan", "--config", config, "--format", "json", "--detailed-exitcode"], {
      env,
    });
    expect(json.code).toBe(3);
    expect((JSON.parse(json.stdout) as { reverts: { wanted: number } }).reverts.wanted).toBe(2);

    // Read, then let them through for one run.
    const allowed = await apply("--allow-reverts", "2");
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(groupsOf(a.id)).toEqual(["g1"]);

    // The correction again, after the window: the state file's times aged by 73 hours.
    const aged = JSON.parse(await readFile(state, "utf8")) as { changes: Array<{ at: string }> };
    for (const c of aged.changes) c.at = new Date(Date.parse(c.at) - 73 * 3_600_000).toISOString();
    await writeFile(state, JSON.stringify(aged));
    await writeDesired(join(dir, "users.yaml"), corrected);
    const late = await apply();
    expect(late.code, late.stderr).toBe(0);
    expect(groupsOf(a.id)).toEqual(["g3"]);
  }, 240_000);
});
