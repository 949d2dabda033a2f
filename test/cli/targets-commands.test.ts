/**
 * Issue 45, items 2 and 4: every command takes targets the same way. `validate` checks each
 * target's select as `plan` does (a select naming no group fails validate too) and takes
 * `--target` and `--all-targets`; `export --all-targets` writes one file per organization; each
 * `--all-targets` run ends with one summary. An index past the targets names completions and the
 * Job's TARGET_LIST. In-process (main) against three emulators on sockets.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { withTempDir } from "../e2e/run-cli.js";
import { captureIo } from "../helpers/capture-io.js";

const NAMES = ["alpha", "beta", "gamma"] as const;
const orgs = new Map<string, EmulatorHandle>();
const env: NodeJS.ProcessEnv = {};

beforeAll(async () => {
  for (const n of NAMES) {
    const token = `${n}-t0ken`;
    env[`USERSYNC_TOKEN_${n.toUpperCase()}`] = token;
    orgs.set(
      n,
      await startEmulator({
        port: 0,
        tokens: { [token]: "admin" },
        seed: {
          idpUsers: [{ email: `${n}@example.com`, authenticationId: `a-${n}`, displayName: n }],
          mappings: [{ id: `${n}-1`, email: `${n}@example.com`, authenticationId: `a-${n}`, groups: [] }],
        },
      }),
    );
  }
});
afterAll(async () => {
  for (const o of orgs.values()) await o.close();
});

async function run(dir: string, argv: string[]) {
  const c = captureIo({ env, cwd: dir });
  const code = await main(argv, c.io);
  return { code, out: c.out(), err: c.err() };
}

async function writeConfig(dir: string, select: (n: string) => string = (n) => `org-${n}`) {
  await writeFile(
    join(dir, "people.yaml"),
    stringify({
      version: 1,
      groups: NAMES.map((n) => ({ id: `org-${n}` })),
      users: [
        ...NAMES.map((n) => ({ email: `${n}-new@example.com`, groups: [`org-${n}`] })),
        { email: "gone@example.com", state: "absent" },
      ],
    }),
  );
  const targets = NAMES.map((n) => ({ name: n, baseUrl: orgs.get(n)!.url, select: { groups: [select(n)] } }));
  await writeFile(join(dir, "usersync.yaml"), stringify({ source: { desired: "people.yaml" }, targets }));
}

describe("validate takes targets as plan does", () => {
  it("checks every select with no option: a select naming no group fails validate as it fails plan", () =>
    withTempDir(async (dir) => {
      await writeConfig(dir, (n) => (n === "beta" ? "org-bta" : `org-${n}`));
      const v = await run(dir, ["validate", "--config", "usersync.yaml"]);
      expect(v.code).toBe(4);
      expect(v.out).toMatch(/^OK: target alpha: slice of .*people\.yaml: 2 user\(s\) \(1 marked absent\)/m);
      expect(v.out).toMatch(/^error: targets\[1\] \(beta\)\.select.*org-bta/m);
      expect(v.out).toMatch(/^Targets: 3, exit 4/m);
      expect(v.out).toMatch(/^ {2}beta {3}exit 4/m);
      const p = await run(dir, ["plan", "--config", "usersync.yaml", "--target", "beta"]);
      expect(p.code).toBe(4);
    }));

  it("takes --all-targets and --target NAME", () =>
    withTempDir(async (dir) => {
      await writeConfig(dir);
      const all = await run(dir, ["validate", "--config", "usersync.yaml", "--all-targets"]);
      expect(all.code, all.out + all.err).toBe(0);
      expect(all.out.match(/^OK: target /gm)).toHaveLength(3);
      expect(all.out).toMatch(/^Targets: 3, exit 0/m);
      const one = await run(dir, ["validate", "--config", "usersync.yaml", "--target", "gamma"]);
      expect(one.code).toBe(0);
      expect(one.out).toMatch(/^OK: target gamma: /m);
      expect(one.out).not.toContain("target alpha");
    }));
});

describe("export takes targets as plan does", () => {
  it("--all-targets writes each organization's own file and one summary", () =>
    withTempDir(async (dir) => {
      await writeConfig(dir);
      const r = await run(dir, [
        "export",
        "--config",
        "usersync.yaml",
        "--all-targets",
        "--out",
        join(dir, "org.yaml"),
      ]);
      expect(r.code, r.err).toBe(0);
      for (const n of NAMES) {
        const doc = parse(await readFile(join(dir, `org.${n}.yaml`), "utf8")) as {
          users: { email: string }[];
        };
        expect(doc.users.map((u) => u.email)).toEqual([`${n}@example.com`]);
      }
      expect(r.out).toMatch(/^Targets: 3, exit 0/m);
    }));
});

describe("the Job and the config agree on the targets", () => {
  it("an index past the targets names completions and TARGET_LIST", () =>
    withTempDir(async (dir) => {
      await writeConfig(dir);
      const argv = [
        "plan",
        "--config",
        "usersync.yaml",
        "--target-index",
        "3",
        "--target-list",
        "alpha,beta,gamma",
      ];
      const r = await run(dir, argv);
      expect(r.code).toBe(4);
      expect(r.err).toContain("completions");
      expect(r.err).toContain("TARGET_LIST");
    }));
});

describe("--min-users for a rollback", () => {
  it("is this run's floor for every organization, over source.minUsers and a target's minUsers", () =>
    withTempDir(async (dir) => {
      await writeConfig(dir);
      const config = parse(await readFile(join(dir, "usersync.yaml"), "utf8")) as {
        source: Record<string, unknown>;
        targets: Record<string, unknown>[];
      };
      config.source["minUsers"] = 40;
      config.targets[0]!["minUsers"] = 50;
      await writeFile(join(dir, "usersync.yaml"), stringify(config));
      const refused = await run(dir, ["plan", "--config", "usersync.yaml", "--all-targets"]);
      expect(refused.out).toMatch(/^ {2}alpha {2}exit 4/m);
      expect(refused.out).toMatch(/^ {2}beta {3}exit 4/m);
      const rollback = await run(dir, [
        "plan",
        "--config",
        "usersync.yaml",
        "--all-targets",
        "--min-users",
        "1",
      ]);
      expect(rollback.code, rollback.err).toBe(0);
      const bad = await run(dir, [
        "plan",
        "--config",
        "usersync.yaml",
        "--target",
        "alpha",
        "--min-users",
        "lots",
      ]);
      expect(bad.code).toBe(4);
      expect(bad.err).toContain("--min-users");
    }));
});
