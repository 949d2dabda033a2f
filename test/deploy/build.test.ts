/**
 * `npm run build` (scripts/build.mjs) swaps a whole build in: while it compiles, the output folder
 * is the old build, untouched; after, the new one, whole, with an executable cli.js and nothing
 * left beside it. A CLI starting during a build so never loads half of one (issue 40).
 */
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../e2e/run-cli.js";

it("the output folder is the old build or the whole new one, never a half", async () => {
  const dir = await mkdtemp(join(tmpdir(), "usersync-build-"));
  try {
    const out = join(dir, "dist");
    await mkdir(out);
    await writeFile(join(out, "old-build.txt"), "the previous build\n");
    const child = spawn(process.execPath, [join(ROOT, "scripts", "build.mjs"), "--out", out], {
      stdio: "inherit",
    });
    const done = new Promise<number | null>((resolve) => child.on("close", resolve));
    let finished = false;
    void done.then(() => (finished = true));
    const seen = new Set<string>();
    while (!finished) {
      const old = existsSync(join(out, "old-build.txt"));
      // The first file tsc writes and one of the last: both or neither.
      const cli = existsSync(join(out, "cli.js"));
      const planner = existsSync(join(out, "plan", "planner.js"));
      seen.add(old ? "old" : cli && planner ? "new" : cli || planner ? "half" : "none");
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await done).toBe(0);
    expect(seen.has("half")).toBe(false);
    expect(seen.has("old")).toBe(true);
    expect(existsSync(join(out, "old-build.txt"))).toBe(false);
    expect(statSync(join(out, "cli.js")).mode & 0o111).not.toBe(0);
    expect((await readdir(dir)).sort()).toEqual(["dist"]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 240_000);
