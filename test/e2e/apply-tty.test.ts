/**
 * The built CLI under a pseudo-terminal (util-linux `script`), as a person sees it: a 4,000-step
 * apply (2,000 new built-in users) against a slow emulator, interrupted with Ctrl-C.
 */
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import { CLI, ROOT, withTempDir } from "./run-cli.js";
import { skipWithout } from "../helpers/skips.js";

const TOKEN = "tty-token-5e0a";
const ESC = "\x1b";

function bigDesired(n: number): string {
  const rows = Array.from(
    { length: n },
    (_, i) => `  - email: u${i}@big.example\n    id: u${i}\n    firstname: U\n    lastname: N${i}\n`,
  );
  return `version: 1\nusers:\n${rows.join("")}`;
}

/** Runs `cmd` in a pseudo-terminal; `screen()` is everything the terminal showed so far. */
function onTerminal(cmd: string, env: Record<string, string>) {
  const child = spawn("script", ["-qfec", cmd, "/dev/null"], {
    env: { PATH: process.env["PATH"], TERM: "xterm", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, screen: () => out, exited };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i > 1200) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A big apply on a terminal, Ctrl-C once `after` logins exist: the screen, the exit code, the organization. */
async function interruptedApply(o: { people: number; after: number; args?: string[] }) {
  const emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, faults: { latencyMs: 20 } });
  try {
    return await withTempDir(async (dir) => {
      const desired = join(dir, "users.yaml");
      await writeFile(desired, bigDesired(o.people));
      const args = [...(o.args ?? []), "--credentials-file", join(dir, "c.csv")].join(" ");
      const t = onTerminal(`node ${CLI} apply -d ${desired} --base-url ${emulator.url} --yes ${args}`, {
        USERSYNC_TOKEN: TOKEN,
      });
      await until(() => emulator.state().idpUsers.length >= o.after);
      t.child.stdin.write("\x03");
      const code = await t.exited;
      t.child.stdin.end();
      return { screen: t.screen(), code, state: emulator.state() };
    });
  } finally {
    await emulator.close();
  }
}

describe.skipIf(skipWithout(["script"], { what: "apply on a terminal" }))("apply on a terminal", () => {
  it("Ctrl-C at the confirmation prompt: the cancellation on a line of its own, exit 3, nothing sent", async () => {
    const emulator = await startEmulator({
      port: 0,
      tokens: { [TOKEN]: "admin" },
      seed: await loadSeedFile(join(ROOT, "fixtures", "demo", "organization.yaml")),
    });
    try {
      await withTempDir(async (dir) => {
        const desired = join(ROOT, "fixtures", "demo", "users.yaml");
        const cmd = `node ${CLI} apply -d ${desired} --base-url ${emulator.url} --credentials-file ${join(dir, "c.csv")}`;
        const t = onTerminal(cmd, { USERSYNC_TOKEN: TOKEN, USERSYNC_LOGGING_LEVEL: "warn" });
        await until(() => t.screen().includes('Only "yes" will be accepted: '));
        t.child.stdin.write("\x03");
        const code = await t.exited;
        t.child.stdin.end();
        expect(code).toBe(3);
        const lines = t.screen().split(/\r?\n/);
        expect(lines.some((l) => l.startsWith('usersync: apply cancelled: the answer was not "yes"'))).toBe(
          true,
        );
        expect(t.screen()).not.toMatch(/accepted: *usersync/);
      });
      expect(emulator.requestLog().filter((r) => r.method !== "GET")).toEqual([]);
    } finally {
      await emulator.close();
    }
  }, 60_000);

  it("--log-format json on a terminal: a log line never lands on the progress bar's line", async () => {
    // Ctrl-C while the bar is drawn: the "interrupted" warning is logged below it.
    const { screen, code } = await interruptedApply({
      people: 400,
      after: 40,
      args: ["--log-format", "json"],
    });
    expect(code).toBe(130);
    expect(screen).toContain('"msg":"interrupted: finishing the running steps; no new step starts"');
    expect(screen).toMatch(/\] [\d,]+\/800 steps/);
    // Each JSON line starts a line: at the start, after a line break, or after the bar was
    // cleared (\r, erase line); never glued onto the bar's text.
    for (const m of screen.matchAll(/\{"level"/g)) {
      const before = screen.slice(Math.max(0, m.index - 4), m.index);
      const clearedLine = before.endsWith("\n") || before.endsWith(`\r${ESC}[K`);
      expect(m.index === 0 || clearedLine, JSON.stringify(before)).toBe(true);
    }
  }, 60_000);

  it("Ctrl-C: few lines in all, counts right, the bar never torn by a log line", async () => {
    // Ctrl-C once some users exist, through the terminal (the pty's line discipline sends SIGINT).
    const { screen, code, state } = await interruptedApply({ people: 2000, after: 100 });
    expect(code).toBe(130);
    // Everything the terminal showed: the plan's summary (a plan this big shows no details
    // before the question), the bar, the interrupt's summary.
    const lines = screen.split(/\r?\n/).filter((l) => l.trim() !== "");
    expect(lines.length).toBeLessThan(30);
    const plain = screen
      .replaceAll(`${ESC}[32m`, "")
      .replaceAll(`${ESC}[33m`, "")
      .replaceAll(`${ESC}[0m`, "");
    const m = /Apply stopped: ([\d,]+) succeeded, ([\d,]+) not started \(of 4,000 steps\)/.exec(plain);
    expect(m).not.toBeNull();
    const done = Number(m![1]!.replace(/,/g, ""));
    const notStarted = Number(m![2]!.replace(/,/g, ""));
    expect(done + notStarted).toBe(4000);
    // Every login and mapping there was made by a step done, but the token owner's mapping (the emulator's).
    const made = state.mappings.filter((m) => m.id !== "admin").length;
    expect(done).toBe(state.idpUsers.length + made);
    // The counts are said once (not by the bar, a log line and two summary lines), and
    // with thousands separators wherever they are.
    expect(screen.match(/not started/g)).toHaveLength(1);
    expect(screen).toMatch(/\/4,000 steps/);
    expect(screen).not.toMatch(/\b4000\b/);
    // A log line always starts on a line of its own: never glued onto the bar.
    expect(screen).not.toMatch(/(running|steps|ETA [\dms]+|\/s)\d\d:\d\d:\d\d\.\d{3} /);
    expect(screen).not.toContain("step skipped");
    expect(screen).not.toMatch(/\] 4000\/4000/);
  }, 60_000);
});
