/**
 * What the CLI loads before it does anything (docs/architecture.md, "Start-up"): every module of
 * dist/, but none of the directory client libraries, which load where a run first reads that
 * directory. Runs the built CLI with a module hook that names every module it loads.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
const HOOK = [
  'import { register } from "node:module";',
  "register('data:text/javascript,' + encodeURIComponent(",
  '"export async function load(url, context, next) { process.stderr.write(\\"LOADED \\" + url + \\"\\\\n\\"); return next(url, context); }"',
  "));",
].join("");

function loaded(args: string[]): string[] {
  const run = spawnSync(
    process.execPath,
    ["--import", `data:text/javascript,${encodeURIComponent(HOOK)}`, CLI, ...args],
    { encoding: "utf8" },
  );
  expect(run.status, run.stderr).toBe(0);
  return run.stderr
    .split("\n")
    .filter((l) => l.startsWith("LOADED "))
    .map((l) => l.slice("LOADED ".length));
}

const LAZY = ["@azure/identity", "google-auth-library", "ldapts", "jose"];

describe("start-up", () => {
  it("loads dist/ whole and no directory client library for --version", () => {
    const urls = loaded(["--version"]);
    // The hook sees the modules: the CLI itself and what it needs on every run.
    expect(urls.some((u) => u.endsWith("/dist/cli.js"))).toBe(true);
    expect(urls.some((u) => /node_modules\/undici\//.test(u))).toBe(true);
    expect(urls.some((u) => u.includes("/dist/emulator/"))).toBe(true);
    for (const lib of LAZY) expect(urls.filter((u) => u.includes(`node_modules/${lib}/`))).toEqual([]);
  });
});
