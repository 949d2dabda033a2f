// `npm run build`: compiles into a temporary folder beside dist/ and swaps it in with two renames,
// so a CLI that starts during a build (another terminal, npm test's pretest) loads a whole build,
// the old or the new, never a half-written dist/ that fails on a missing export. The CLI loads
// all its own modules at start (no dynamic import of dist/; docs/architecture.md "Start-up"), so one
// already running is not touched either.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
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

// CI builds once and then runs scripts that build again (npm test's pretest, the packaging check's
// prepack): a dist/ made from these very inputs is kept as it is. `--force` compiles regardless.
const STAMP = ".build-inputs";
const digest = inputsDigest();
if (!process.argv.includes("--force") && existsSync(join(dist, "cli.js")) && stampOf(dist) === digest)
  process.exit(0);

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
writeFileSync(join(next, STAMP), `${digest}\n`);
if (existsSync(dist)) renameSync(dist, old);
renameSync(next, dist);
rmSync(old, { recursive: true, force: true });

/** sha256 over what the build reads: src/, the tsconfigs, this script, TypeScript's version. */
function inputsDigest() {
  const hash = createHash("sha256");
  const add = (file) =>
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update("\0");
  const walk = (dir) =>
    readdirSync(join(root, dir), { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .forEach((e) => (e.isDirectory() ? walk(`${dir}/${e.name}`) : add(`${dir}/${e.name}`)));
  walk("src");
  for (const file of ["tsconfig.json", "tsconfig.build.json", "scripts/build.mjs", "package.json"]) add(file);
  hash.update(createRequire(import.meta.url)("typescript/package.json").version);
  return hash.digest("hex");
}

function stampOf(dir) {
  try {
    return readFileSync(join(dir, STAMP), "utf8").trim();
  } catch {
    return undefined;
  }
}
