/**
 * Runs the BUILT CLI (dist/cli.js, built by `npm test`'s pretest step) as a child process, the
 * way a user or a CronJob does, and captures what it printed and its exit code.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");
export const CLI = join(ROOT, "dist", "cli.js");

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  input?: string;
}

export function startCli(
  args: string[],
  options: CliOptions = {},
): { child: ChildProcess; done: Promise<CliResult> } {
  const env: Record<string, string | undefined> = {
    PATH: process.env["PATH"],
    NO_COLOR: "1",
    ...options.env,
  };
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    env: env as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdin?.end(options.input ?? "");
  const done = new Promise<CliResult>((resolvePromise, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

/**
 * stderr off a terminal, which must be JSON lines only (logs and the fatal error alike), as the
 * messages a person would read: each line's `msg`, one per line. Throws on a line that is not JSON.
 */
export function logMessages(stderr: string): string {
  return stderr
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      try {
        return String((JSON.parse(line) as { msg?: unknown }).msg ?? "");
      } catch {
        throw new Error(`stderr has a line that is not JSON: ${line}`);
      }
    })
    .join("\n");
}

export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "usersync-e2e-"));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Where tests that make the CLI write many journal, credential and state lines (each flushed to
 * disk with fdatasync, the product's durability) keep them: /dev/shm, a memory file system, when
 * this machine has a writable one, else the OS temp folder. The CLI does the same writes and syncs
 * either way; on memory a sync costs no disk flush (measured: a 2,000-user apply's CPU 7.0 s on
 * disk, 4.9 s on /dev/shm). Only for files the test makes itself: nothing renames across folders.
 */
export const MEMORY_TMP = ((): string => {
  try {
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return tmpdir();
  }
})();

/** `mkdtemp` in MEMORY_TMP. */
export function memoryTempDir(prefix: string): Promise<string> {
  return mkdtemp(join(MEMORY_TMP, prefix));
}

/** withTempDir, in MEMORY_TMP. */
export async function withMemoryDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await memoryTempDir("usersync-e2e-");
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
