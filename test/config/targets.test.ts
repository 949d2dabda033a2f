/**
 * `targets:` in the config (issue 31): each target's own token by default, its own output and
 * state paths, its overrides checked as the shared sections are, and the Indexed Job's choice
 * of a target refused when the list it was rendered with changed.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { configForTarget, forTarget, loadConfig } from "../../src/config/index.js";
import { combinedExitCode, selectTargets } from "../../src/cli/target-selection.js";

let dir: string;
beforeAll(async () => void (dir = await mkdtemp(join(tmpdir(), "usersync-targets-"))));
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function load(config: unknown, env: NodeJS.ProcessEnv = {}) {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, stringify(config));
  return loadConfig({ file, env, cwd: dir });
}

const two = {
  output: { report: "/var/lib/usersync/report.json", journal: "/var/lib/usersync/{target}/journal.jsonl" },
  state: { file: "/var/lib/usersync/state.json" },
  policy: { maxDeletes: 5 },
  source: { desired: "people.yaml" },
  targets: [
    { name: "beta", baseUrl: "https://beta.example.com", select: { groups: ["org-beta"] } },
    {
      name: "alpha",
      baseUrl: "https://alpha.example.com",
      desired: "alpha.yaml",
      policy: { maxDeletes: "50%" },
    },
  ],
};

describe("targets", () => {
  it("gives each target its own token variable, paths and overrides", async () => {
    const config = await load(two, { USERSYNC_TOKEN_ALPHA: "a-token", USERSYNC_TOKEN_BETA: "b-token" });
    expect(config.warnings).toEqual([]); // the token variables are not read as settings
    const alpha = await configForTarget(config, "alpha", { USERSYNC_TOKEN_ALPHA: "a-token" });
    expect(alpha.token).toBe("a-token");
    expect(alpha.target.baseUrl).toBe("https://alpha.example.com");
    expect(alpha.output.report).toBe("/var/lib/usersync/report.alpha.json");
    expect(alpha.output.journal).toBe("/var/lib/usersync/alpha/journal.jsonl");
    expect(alpha.state.file).toBe("/var/lib/usersync/state.alpha.json");
    expect(alpha.output.metricsPushGrouping).toEqual(["organization=alpha"]);
    expect(alpha.policy.maxDeletes).toBe("50%");
    expect(alpha.source.desired).toBe(join(dir, "alpha.yaml"));
    const beta = await configForTarget(config, "beta", {});
    expect(beta.token).toBeUndefined(); // USERSYNC_TOKEN is never a target's by default
    expect(beta.policy.maxDeletes).toBe(5);
    expect(forTarget("metrics", "beta")).toBe("metrics.beta");
  });

  it("refuses two targets on one token unless each says shareToken", async () => {
    const shared = {
      targets: [
        { name: "a", baseUrl: "https://a.example.com", tokenEnv: "TOKEN", select: { all: true } },
        { name: "b", baseUrl: "https://b.example.com", tokenEnv: "TOKEN", select: { all: true } },
      ],
    };
    await expect(load(shared)).rejects.toThrow(/targets a, b read one token \(the variable TOKEN\)/);
    const allowed = structuredClone(shared);
    for (const t of allowed.targets) Object.assign(t, { shareToken: true });
    await expect(load(allowed)).resolves.toBeDefined();
  });

  it("refuses a target without its slice, an unknown key, a duplicate name", async () => {
    const bad = {
      targets: [
        { name: "a", baseUrl: "https://a.example.com" },
        { name: "a", baseUrl: "https://b.example.com", select: { all: true }, colour: "red" },
      ],
    };
    const err = await load(bad).catch((e: Error) => e);
    expect(String(err)).toMatch(/targets\.0: a target needs its slice/);
    expect(String(err)).toMatch(/the name a is used twice/);
    expect(String(err)).toMatch(/targets\.1\.colour: unknown key/);
  });

  it("a bad override or token file is that target's problem only", async () => {
    const config = await load({
      targets: [
        { name: "a", baseUrl: "http://a.example.com", select: { all: true }, policy: { maxDeletes: "150%" } },
        { name: "b", baseUrl: "https://b.example.com", select: { all: true }, tokenFile: "missing-token" },
        { name: "c", baseUrl: "https://c.example.com", select: { all: true } },
      ],
    });
    await expect(configForTarget(config, "a", {})).rejects.toThrow(
      /target a: invalid configuration \(2 problems\)[\s\S]*baseUrl: plain http[\s\S]*policy\.maxDeletes: "150%"/,
    );
    await expect(configForTarget(config, "b", {})).rejects.toThrow(
      /cannot read the token file .*missing-token/,
    );
    await expect(configForTarget(config, "c", { USERSYNC_TOKEN_C: "t" })).resolves.toMatchObject({
      targetName: "c",
    });
  });

  it("chooses by name, all, or an Indexed Job's index checked against its list", async () => {
    const config = await load(two);
    expect(selectTargets({ target: "beta" }, config)).toEqual({ names: ["beta"], all: false });
    expect(selectTargets({ "all-targets": true }, config)).toEqual({ names: ["alpha", "beta"], all: true });
    expect(selectTargets({ "target-index": "1", "target-list": "alpha,beta" }, config)?.names).toEqual([
      "beta",
    ]);
    expect(() => selectTargets({ "target-index": "1", "target-list": "alpha,beta,gamma" }, config)).toThrow(
      /rendered for the targets alpha, beta, gamma/,
    );
    expect(() => selectTargets({ "target-index": "2", "target-list": "alpha,beta" }, config)).toThrow(
      /not an index/,
    );
    expect(() => selectTargets({ "target-index": "0" }, config)).toThrow(/needs --target-list/);
    expect(() => selectTargets({}, config)).toThrow(/lists 2 targets \(alpha, beta\)/);
    expect(() => selectTargets({ target: "zeta" }, config)).toThrow(
      /no such target; the config's targets are alpha, beta/,
    );
  });

  it("combines exit codes: the one that most needs a person", () => {
    expect(combinedExitCode([0, 3, 5])).toBe(3);
    expect(combinedExitCode([0, 5, 2])).toBe(5);
    expect(combinedExitCode([3, 1, 4])).toBe(4);
    expect(combinedExitCode([0, 130, 4])).toBe(130);
    expect(combinedExitCode([0, 0])).toBe(0);
    expect(combinedExitCode([2, 0])).toBe(2);
  });
});
