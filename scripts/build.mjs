// `npm run build`: compiles into a temporary folder beside dist/ and swaps it in with two renames,
// so a CLI that starts during a build (another terminal, npm test's pretest) loads a whole build,
// the old or the new, never a half-written dist/ that fails on a missing export. The CLI loads
// all its own modules at start (no dynamic import of dist/; docs/architecture.md "Start-up"), so one
// already running is not touched either.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// `--out DIR` builds elsewhere (test/deploy/build.test.ts); dist/ by default.
const outAt = process.argv.indexOf("--out");
const dist = outAt > 0 ? resolve(process.argv[outAt + 1] ?? "dist") : join(root, "dist");
// Beside dist/, at the same depth: the source maps' relative paths to src/ stay right.
const next = `${dist}.next-${process.pid}`;
const old = `${dist}.old-${process.pid}`;
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

rmSync(next, { recursive: true, force: true });
try {
  execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json"), "--outDir", next], {
    stdio: "inherit",
  });
} catch {
  rmSync(next, { recursive: true, force: true });
  process.exit(1);
}
// npx usersync runs dist/cli.js directly: it must be executable whatever ran before.
chmodSync(join(next, "cli.js"), 0o755);
if (existsSync(dist)) renameSync(dist, old);
renameSync(next, dist);
rmSync(old, { recursive: true, force: true });
