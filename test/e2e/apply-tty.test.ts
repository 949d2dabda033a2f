/**
 * The built CLI under a pseudo-terminal (util-linux `script`), as a person sees it: a 4,000-step
 * apply (2,000 new built-in users) against a slow emulator, interrupted with Ctrl-C.
 */
import { execFileSync, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import { CLI, withTempDir } from "./run-cli.js";

const TOKEN = "tty-token-5e0a";
const hasScript = (() => {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

function bigDesired(n: number): string {
  const rows = Array.from(
    { length: n },
    (_, i) => `  - email: u${i}@big.example\n    id: u${i}\n    firstname: U\n    lastname: N${i}\n`,
  );
  return `version: 1\nusers:\n${rows.join("")}`;
}

describe.skipIf(!hasScript)("apply on a terminal", () => {
  it("Ctrl-C: few lines in all, counts right, the bar never torn by a log line", async () => {
    const emulator = await startEmulator({
      port: 0,
      tokens: { [TOKEN]: "admin" },
      faults: { latencyMs: 20 },
    });
    try {
      await withTempDir(async (dir) => {
        const desired = join(dir, "users.yaml");
        await writeFile(desired, bigDesired(2000));
        const cmd = `node ${CLI} apply -d ${desired} --base-url ${emulator.url} --yes --credentials-file ${join(dir, "c.csv")}`;
        const child = spawn("script", ["-qfec", cmd, "/dev/null"], {
          env: { PATH: process.env["PATH"], USERSYNC_TOKEN: TOKEN, TERM: "xterm" },
          stdio: ["pipe", "pipe", "pipe"],
        });
        let out = "";
        child.stdout.on("data", (d: Buffer) => (out += d.toString()));
        const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
        // Ctrl-C once some users exist, through the terminal (the pty's line discipline sends SIGINT).
        while (emulator.state().idpUsers.length < 100) await new Promise((r) => setTimeout(r, 50));
        child.stdin.write("\x03");
        const code = await exited;
        child.stdin.end();
        // 1 from usersync; `script` itself may report the SIGINT the terminal sent it too (130).
        expect([1, 130]).toContain(code);
        // Everything the terminal showed: the plan's summary (a plan this big shows no details
        // before the question), the bar, the interrupt's summary.
        const screen = out;
        const lines = screen.split(/\r?\n/).filter((l) => l.trim() !== "");
        expect(lines.length).toBeLessThan(30);
        const m = /([\d,]+) done, ([\d,]+) not started \(interrupted\)/.exec(screen);
        expect(m).not.toBeNull();
        const done = Number(m![1]!.replace(/,/g, ""));
        const notStarted = Number(m![2]!.replace(/,/g, ""));
        expect(done + notStarted).toBe(4000);
        const state = emulator.state();
        // Every login and mapping there was made by a step done, but the token owner's mapping (the emulator's).
        const made = state.mappings.filter((m) => m.id !== "admin").length;
        expect(done).toBe(state.idpUsers.length + made);
        // A log line always starts on a line of its own: never glued onto the bar.
        expect(screen).not.toMatch(/(running|steps|ETA [\dms]+|\/s)\d\d:\d\d:\d\d\.\d{3} /);
        expect(screen).not.toContain("step skipped");
        expect(screen).not.toMatch(/\] 4000\/4000/);
      });
    } finally {
      await emulator.close();
    }
  }, 60_000);
});
