/**
 * Ctrl-C (SIGINT) and SIGTERM in each phase of a run, through the built CLI off a terminal:
 * every interrupt says so in one JSON line and exits 130, as the README's exit-code table says.
 * Before an apply starts nothing is sent that changes anything; during one the report is written,
 * after the first interrupt and after a second one too. (At the confirmation prompt, which needs
 * a terminal: apply-tty.test.ts.)
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import type { EmulatorFaults, EmulatorHandle } from "../../src/emulator/types.js";
import { logMessages, ROOT, startCli, withTempDir } from "./run-cli.js";

const TOKEN = "interrupt-token-61e";
const DESIRED = join(ROOT, "fixtures", "demo", "users.yaml");

let emulator: EmulatorHandle | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function serve(faults: EmulatorFaults): Promise<EmulatorHandle> {
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    seed: await loadSeedFile(join(ROOT, "fixtures", "demo", "organization.yaml")),
    faults,
  });
  return emulator;
}

const writes = (e: EmulatorHandle) => e.requestLog().filter((r) => r.method !== "GET").length;

/** Starts the CLI and resolves once `ready(stderr)` holds (polled), with the run to await. */
async function startUntil(
  args: string[],
  ready: (stderr: string) => boolean,
  env: Record<string, string> = {},
) {
  const run = startCli(args, { env: { USERSYNC_TOKEN: TOKEN, ...env } });
  let stderr = "";
  run.child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  for (let i = 0; !ready(stderr); i++) {
    if (i > 1200) throw new Error(`never ready; stderr so far: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return run;
}

/** `usersync apply --yes` of the demo against `e`, generated passwords in `dir`. */
const applyDemo = (e: EmulatorHandle, dir: string, extra: string[], env: Record<string, string> = {}) =>
  startCli(
    [
      "apply",
      "--base-url",
      e.url,
      "--desired",
      DESIRED,
      "--yes",
      "--credentials-file",
      join(dir, "c.csv"),
      ...extra,
    ],
    { env: { USERSYNC_TOKEN: TOKEN, ...env } },
  );

/** The run's messages (stderr must be JSON lines only) and its last line, the fatal one. */
function fatalOf(stderr: string): { messages: string; last: Record<string, unknown> } {
  const messages = logMessages(stderr);
  return { messages, last: JSON.parse(stderr.trim().split("\n").at(-1)!) as Record<string, unknown> };
}

describe("Ctrl-C and SIGTERM in each phase, off a terminal", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`${signal} while listing a slow service (plan): one line, exit 130, nothing sent`, async () => {
      // The profile answers at once; the listing takes 20 s a page.
      const e = await serve({ latencyMs: 20_000, pathPattern: /entities|auth\/users/ });
      const run = await startUntil(["plan", "--base-url", e.url, "--desired", DESIRED], (err) =>
        err.includes("API dialect v1"),
      );
      run.child.kill(signal);
      const r = await run.done;
      expect(r.code).toBe(130);
      const { messages, last } = fatalOf(r.stderr);
      expect(last).toMatchObject({ level: 60, code: "INTERRUPTED", exitCode: 130 });
      expect(messages).toContain(`interrupted (${signal}) before any change was sent: nothing was changed`);
      expect(r.stdout).toBe("");
      expect(writes(e)).toBe(0);
    });
  }

  it("Ctrl-C while the plan is applied: running steps finish, the report is written, exit 130", async () => {
    const e = await serve({ latencyMs: 60 });
    await withTempDir(async (dir) => {
      const report = join(dir, "report.json");
      const run = applyDemo(e, dir, [], {
        USERSYNC_EXECUTION_CONCURRENCY: "2",
        USERSYNC_OUTPUT_REPORT: report,
      });
      while (writes(e) < 4) await new Promise((r) => setTimeout(r, 20));
      run.child.kill("SIGINT");
      const r = await run.done;
      expect(r.code).toBe(130);
      const { messages } = fatalOf(r.stderr);
      expect(messages).toContain("interrupted: finishing the running steps; no new step starts");
      // The counts are said once on stdout, with the steps not started among them.
      expect(r.stdout).toMatch(/^Apply stopped: [\d,]+ succeeded, [\d,]+ not started \(of [\d,]+ steps\)$/m);
      expect(r.stdout.match(/not started/g)).toHaveLength(1);
      const written = JSON.parse(await readFile(report, "utf8")) as Record<string, unknown>;
      expect(written).toMatchObject({ exitCode: 130, stoppedBy: "interrupted" });
      const reasons = (written["steps"] as Array<{ reason?: string }>).map((s) => s.reason ?? "");
      // A reason never nests parentheses (it is read in a report, a log line, a terminal).
      for (const reason of reasons) expect(reason).not.toMatch(/\([^)]*\(/);
    });
  });

  it("a second Ctrl-C during the apply stops at once, still says so and leaves a report", async () => {
    const e = await serve({ latencyMs: 2000 });
    await withTempDir(async (dir) => {
      const report = join(dir, "report.json");
      const run = applyDemo(e, dir, ["--report", report]);
      let stderr = "";
      run.child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
      // Once the first write was answered: more are on their way, each taking 2 s.
      while (writes(e) < 1) await new Promise((r) => setTimeout(r, 20));
      run.child.kill("SIGINT");
      while (!stderr.includes("no new step starts")) await new Promise((r) => setTimeout(r, 20));
      run.child.kill("SIGINT");
      const r = await run.done;
      expect(r.code).toBe(130);
      expect(logMessages(r.stderr)).toMatch(
        /interrupted twice: stopped at once, without waiting for \d+ running step\(s\), which may or may not have been carried out/,
      );
      expect(r.stdout).toMatch(/^Apply stopped: .*not started \(of [\d,]+ steps\)$/m);
      const written = JSON.parse(await readFile(report, "utf8")) as Record<string, unknown>;
      expect(written).toMatchObject({ exitCode: 130, stoppedBy: "interrupted" });
      expect(written["stopReason"]).toMatch(/^interrupted twice/);
    });
  }, 60_000);
});
