/**
 * The examples in the README and docs/ are run, so they stay true. Every shell block is marked
 * (doc-blocks.ts): a runnable one is run by bash in a temporary folder (with `fixtures` and
 * `dist` linked in) against emulators, and every command in it must exit as documented; a
 * documented option that a command does not take fails here. The commands are written as a
 * person runs them in a checkout: `npx usersync` or `node dist/cli.js`; a bare `usersync` is not
 * on the PATH there, and is not here either (`npx usersync` runs the built CLI, as npm does in a
 * checkout: checked once below). What a block writes must be ignored by git: the docs never
 * dirty a checkout. HOME is a folder of its own, so what tools keep there (kubectl's cache) is
 * not the example's doing. Blocks that need a Docker engine or a Kubernetes cluster are marked
 * not runnable, with the reason; test/deploy/manifests.test.ts and scripts/check-package.sh check
 * what they would do. A block that needs kubectl or slapd is skipped where they are missing, and
 * says so.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import { directoryLdif, GROUPS, PEOPLE } from "../helpers/directory-ldif.js";
import { READER_DN, READER_PASSWORD, startSlapd } from "../helpers/slapd.js";
import { skipWithout, type Need } from "../helpers/skips.js";
import {
  blockScript,
  codeBlocks,
  markdownFiles,
  sessionScript,
  shellBlocks,
  type ShellBlock,
} from "./doc-blocks.js";
import { CLI, ROOT, runCli, withTempDir } from "./run-cli.js";

const blocks: ShellBlock[] = [];
for (const file of await markdownFiles(ROOT))
  blocks.push(...shellBlocks(await readFile(join(ROOT, file), "utf8"), file));
const runnable = blocks.filter((b) => b.marker?.runnable === true);

/** A page's walk on a background command: that block and every runnable block after it on the page. */
interface Session {
  background: ShellBlock;
  after: ShellBlock[];
}
const isBackground = (b: ShellBlock): boolean =>
  b.marker?.runnable === true && b.marker.background !== undefined;
const sessions: Session[] = [];
for (const b of runnable)
  if (isBackground(b) && !sessions.some((s) => s.background.file === b.file))
    sessions.push({
      background: b,
      after: runnable.filter((a) => a.file === b.file && a.line > b.line),
    });
const inSession = new Set(sessions.flatMap((s) => [s.background, ...s.after]));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const DEMO_SEED = join(ROOT, "fixtures", "demo", "organization.yaml");
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

interface Fixture {
  env: Record<string, string>;
  replace?: Record<string, string>;
}

/** What a `<!-- runnable: FIXTURE -->` block expects to find in its folder. */
const FIXTURES: Record<string, (dir: string, port: number) => Promise<Fixture>> = {
  /** A usersync.yaml that targets an emulator holding the demo organization, and its token. */
  "demo-service": async (dir) => {
    const emulator = await startEmulator({
      port: 0,
      tokens: { "dev-token": "admin" },
      seed: await loadSeedFile(DEMO_SEED),
    });
    cleanups.push(() => emulator.close());
    const config = { target: { baseUrl: emulator.url }, source: { desired: "fixtures/demo/users.yaml" } };
    await writeFile(join(dir, "usersync.yaml"), stringify(config));
    return { env: { USERSYNC_TOKEN: "dev-token" } };
  },
  /**
   * The README tour after its apply: the emulator on the block's port 8080 holds the demo
   * organization with fixtures/demo/users.yaml applied, permissions managed on every workspace.
   */
  "demo-applied": async (dir, port) => {
    const emulator = await startEmulator({
      port,
      tokens: { "dev-token": "admin" },
      seed: await loadSeedFile(DEMO_SEED),
    });
    cleanups.push(() => emulator.close());
    const env = {
      USERSYNC_TOKEN: "dev-token",
      USERSYNC_PERMISSIONS_WORKSPACES: "all",
      USERSYNC_DATA_FILTERS_WORKSPACES: "all",
    };
    await mkdir(join(dir, ".usersync"));
    const desired = join(ROOT, "fixtures", "demo", "users.yaml");
    const credentials = join(dir, ".usersync", "credentials.csv");
    const r = await runCli(
      ["apply", "--base-url", emulator.url, "--desired", desired, "--yes", "--credentials-file", credentials],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    return { env };
  },
  /** A usersync.yaml reading a directory (slapd, 20 people) and targeting an empty emulator. */
  "ldap-directory": async (dir) => {
    const [slapd, emulator] = await Promise.all([
      startSlapd(directoryLdif(20)),
      startEmulator({ port: 0, tokens: { "dev-token": "admin" } }),
    ]);
    cleanups.push(
      () => emulator.close(),
      () => slapd.remove(),
    );
    const ldap = {
      url: slapd.url,
      bindDn: READER_DN,
      baseDn: PEOPLE,
      groupBaseDn: GROUPS,
      attributes: { email: "{mail}", id: "{uid}", authenticationId: "{uid}" },
      groups: [{ dn: `*,${GROUPS}` }],
    };
    const config = {
      target: { baseUrl: emulator.url },
      source: { type: "ldap", ldap },
      identity: { default: "external" },
    };
    await writeFile(join(dir, "usersync.yaml"), stringify(config));
    return {
      env: { USERSYNC_TOKEN: "dev-token" },
      replace: { "USERSYNC_LDAP_PASSWORD=...": `USERSYNC_LDAP_PASSWORD=${READER_PASSWORD}` },
    };
  },
};

/** Files (not links) under `dir`, relative to it. */
async function filesUnder(dir: string, base = dir): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const st = await lstat(path);
    if (st.isSymbolicLink()) continue;
    if (st.isDirectory()) out.push(...(await filesUnder(path, base)));
    else out.push(relative(base, path));
  }
  return out;
}

const hasGit = spawnSync("git", ["--version"]).status === 0;

/** The paths git would not ignore in this repository (all of them when git is missing: nothing to check). */
function notIgnored(paths: string[]): string[] {
  if (!hasGit || paths.length === 0) return [];
  const r = spawnSync("git", ["check-ignore", "--no-index", "--stdin"], {
    cwd: ROOT,
    input: paths.join("\n"),
    encoding: "utf8",
  });
  const ignored = new Set(r.stdout.split("\n").filter(Boolean));
  return paths.filter((p) => !ignored.has(p));
}

function bash(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("close", (code) => resolve({ code, out }));
  });
}

/**
 * `npx usersync …` runs the built CLI, as npm does in a checkout (without npm's second of
 * start-up per command); any other `npx` is npm's.
 */
const npxShim = (path: string | undefined): string =>
  `#!/bin/sh\nif [ "$1" = usersync ]; then shift; exec "${process.execPath}" "${CLI}" "$@"; fi\n` +
  `PATH='${path ?? ""}' exec npx "$@"\n`;

type ScriptOf = (o: { port: number; replace?: Record<string, string> }) => string;

/** Runs a block as a person would in a fresh checkout: the folder, `npx usersync`, a HOME of its own. */
function runBlock(block: ShellBlock): Promise<{ code: number | null; out: string; written: string[] }> {
  const fixture = block.marker?.runnable && block.marker.fixture ? block.marker.fixture : undefined;
  return runScript((o) => blockScript(block, o), fixture);
}

/** Runs a script made for the folder's free port, after the fixture (if any) is set up. */
async function runScript(
  scriptOf: ScriptOf,
  fixture: string | undefined,
): Promise<{ code: number | null; out: string; written: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), "usersync-docs-"));
  try {
    // Outside the folder: the `npx` shim, HOME, and the background emulator's output.
    const bin = await mkdtemp(join(tmpdir(), "usersync-docs-bin-"));
    cleanups.push(() => rm(bin, { recursive: true, force: true }));
    await writeFile(join(bin, "npx"), npxShim(process.env["PATH"]));
    await chmod(join(bin, "npx"), 0o755);
    await mkdir(join(bin, "home"));
    for (const link of ["fixtures", "dist", "deploy", "scripts", "config.example.yaml", "package.json"])
      await symlink(join(ROOT, link), join(dir, link));
    const port = await freePort();
    const setUp = fixture ? await FIXTURES[fixture]!(dir, port) : { env: {} };
    const before = new Set(await filesUnder(dir));
    const script = scriptOf({ port, ...(setUp.replace ? { replace: setUp.replace } : {}) });
    const r = await bash(script, dir, {
      PATH: `${bin}:${process.env["PATH"]}`,
      HOME: join(bin, "home"),
      KUBECACHEDIR: join(bin, "home", "kube-cache"),
      NO_COLOR: "1",
      __TMP: bin,
      ...setUp.env,
    });
    const written = (await filesUnder(dir)).filter((f) => !before.has(f));
    return { ...r, written };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("documentation examples", () => {
  it("every shell block is marked runnable or not runnable (with a reason)", () => {
    const unmarked = blocks.filter((b) => b.marker === undefined).map((b) => `${b.file}:${b.line}`);
    expect(unmarked, "mark them: docs/architecture.md, Executed documentation").toEqual([]);
    for (const b of blocks)
      if (b.marker?.runnable === false) expect(b.marker.reason, `${b.file}:${b.line}`).not.toBe("");
    for (const b of runnable)
      if (b.marker?.runnable && b.marker.fixture)
        expect(Object.keys(FIXTURES), `${b.file}:${b.line}`).toContain(b.marker.fixture);
    // The README's tour, the audit commands, the emulator's two examples, the LDAP walk-through.
    expect(runnable.length).toBeGreaterThanOrEqual(5);
  });

  it("a background block is one command; the blocks of its walk need no fixture", () => {
    for (const { background, after } of sessions) {
      const commands = background.text
        .split("\n")
        .filter((l) => l.trim() !== "" && !l.trim().startsWith("#"));
      expect(commands, `${background.file}:${background.line}`).toHaveLength(1);
      for (const b of after)
        expect(
          b.marker?.runnable && (b.marker.fixture ?? b.marker.background),
          `${b.file}:${b.line}`,
        ).toBeUndefined();
    }
    // The rehearsals of entra.md, okta.md and google.md, from nothing to a converged apply.
    expect(sessions.map((x) => x.background.file).sort()).toEqual(
      expect.arrayContaining(["docs/entra.md", "docs/google.md", "docs/okta.md"]),
    );
  });

  for (const { background, after } of sessions) {
    const where = `${background.file}:${background.line}`;
    it(`${where} runs in the background while the page's walk runs (${after.map((b) => b.line).join(", ")}), every command with its documented exit code`, async () => {
      const r = await runScript((o) => sessionScript(background, after, o), undefined);
      expect(r.out).not.toContain("__DOCS_FAILED");
      expect(r.code, r.out).toBe(0);
      expect(notIgnored(r.written), "files the walk writes that git does not ignore").toEqual([]);
    }, 180_000);
  }

  for (const block of runnable.filter((b) => !inSession.has(b))) {
    const where = `${block.file}:${block.line}`;
    const needs: Need[] = [
      ...(block.marker?.runnable === true && block.marker.fixture === "ldap-directory"
        ? ["slapd" as const]
        : []),
      ...(/^\s*(kubectl\b|node scripts\/check-deploy)/m.test(block.text) ? ["kubectl" as const] : []),
    ];
    it.skipIf(needs.length > 0 && skipWithout(needs, { what: where }))(
      `${where} runs, every command with its documented exit code`,
      async () => {
        const r = await runBlock(block);
        expect(r.out).not.toContain("__DOCS_FAILED");
        expect(r.code, r.out).toBe(0);
        // A block without a fixture runs in the checkout (it names fixtures/ or dist/): what it
        // writes must be ignored by git. One with a fixture runs in a person's own folder.
        if (!(block.marker?.runnable && block.marker.fixture))
          expect(notIgnored(r.written), "files the example writes that git does not ignore").toEqual([]);
      },
      90_000,
    );
  }

  it("`npx usersync` runs the built CLI in a checkout, as the docs say", () => {
    const r = spawnSync("npx", ["--offline", "--no-install", "usersync", "--version"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(r.stdout + r.stderr).toContain("usersync ");
    expect(r.status).toBe(0);
  }, 30_000);

  it("no runnable block calls a bare `usersync`: it is not on the PATH in a checkout", () => {
    const bare = runnable
      .filter((b) => b.text.split("\n").some((l) => /^\s*usersync\s/.test(l)))
      .map((b) => `${b.file}:${b.line}`);
    expect(bare, "write npx usersync (or node dist/cli.js)").toEqual([]);
  });

  it("every desired-state example (YAML with version: 1, CSV with an email column) validates", async () => {
    const examples = (await codeBlocks(ROOT)).filter(
      (b) =>
        (b.lang === "yaml" && /^version: 1/m.test(b.text)) || (b.lang === "csv" && /^email,/.test(b.text)),
    );
    expect(examples.length).toBeGreaterThanOrEqual(3);
    await withTempDir(async (dir) => {
      // Two at a time (one per core): each is a CLI start, most of which is loading modules.
      const next = examples.entries();
      const worker = async () => {
        for (const [i, b] of next) {
          const file = join(dir, `example-${i}.${b.lang}`);
          await writeFile(file, b.text);
          const r = await runCli(["validate", file]);
          expect(`${b.file}: ${r.stdout}${r.stderr}`).toMatch(/OK: /);
          expect(r.code, `${b.file} example ${i}`).toBe(0);
        }
      };
      await Promise.all([worker(), worker()]);
    });
  }, 120_000);

  it("the README's plan excerpt is the demo plan's real text (test/e2e/__snapshots__/demo-plan.txt)", async () => {
    const excerpt = (await codeBlocks(ROOT)).find(
      (b) => b.file === "README.md" && b.text.includes("Summary:"),
    );
    expect(excerpt).toBeDefined();
    const plan = await readFile(join(ROOT, "test", "e2e", "__snapshots__", "demo-plan.txt"), "utf8");
    // Each run of lines between "..." appears in the plan as it is, in order.
    let from = 0;
    for (const part of excerpt!.text.split("...\n")) {
      const at = plan.indexOf(part, from);
      expect(at, part).toBeGreaterThanOrEqual(0);
      from = at + part.length;
    }
    expect(plan.startsWith(excerpt!.text.split("...\n")[0]!)).toBe(true);
  });
});
