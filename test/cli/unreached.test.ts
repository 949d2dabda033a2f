/**
 * Issue 45, items 1 and 3: every failure lands on its organization. A run with targets that fails
 * before it reaches an organization (the config, the shared source, a bad select, the Job rendered
 * for another list, a target's token file) pushes that failure for every target it was meant to
 * serve, to the Pushgateway group each target uses (`organization=<name>` after the grouping), so
 * each organization's UsersyncRunFailed and staleness alerts fire (docs/multi-org.md). One
 * organization's missing or refused token fails that organization alone, with advice naming its
 * own token. In-process (main) against a Pushgateway stand-in and three emulators over sockets.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { captureIo as capture } from "../helpers/capture-io.js";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { exposedSeries, startFakePushgateway } from "../helpers/fake-pushgateway.js";
import { withTempDir } from "../e2e/run-cli.js";

const NAMES = ["alpha", "beta", "gamma"] as const;
const TOKENS = { alpha: "alpha-t0ken-1", beta: "beta-t0ken-2", gamma: "gamma-t0ken-3" };

let gateway: Awaited<ReturnType<typeof startFakePushgateway>>;
const orgs = new Map<string, EmulatorHandle>();

beforeAll(async () => {
  gateway = await startFakePushgateway();
  for (const n of NAMES) orgs.set(n, await startEmulator({ port: 0, tokens: { [TOKENS[n]]: "admin" } }));
});
afterAll(async () => {
  await gateway.close();
  for (const o of orgs.values()) await o.close();
});

const captureIo = (cwd: string, env: NodeJS.ProcessEnv) => capture({ cwd, env });

/** The environment of the Kubernetes CronJob: the Pushgateway settings as variables, each token. */
const cronEnv = (more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  USERSYNC_OUTPUT_METRICS_PUSH_URL: gateway.url,
  USERSYNC_OUTPUT_METRICS_PUSH_JOB: "usersync",
  USERSYNC_OUTPUT_METRICS_PUSH_GROUPING: "namespace=iam",
  USERSYNC_TOKEN_ALPHA: TOKENS.alpha,
  USERSYNC_TOKEN_BETA: TOKENS.beta,
  USERSYNC_TOKEN_GAMMA: TOKENS.gamma,
  ...more,
});

const PEOPLE = {
  version: 1,
  groups: [{ id: "org-alpha" }, { id: "org-beta" }, { id: "org-gamma" }],
  users: NAMES.map((n) => ({ email: `${n}-1@example.com`, groups: [`org-${n}`] })),
};

async function writeConfig(dir: string, o: { extra?: Record<string, unknown>; targets?: unknown[] } = {}) {
  await writeFile(join(dir, "people.yaml"), stringify(PEOPLE));
  const targets =
    o.targets ?? NAMES.map((n) => ({ name: n, baseUrl: orgs.get(n)!.url, select: { groups: [`org-${n}`] } }));
  await writeFile(
    join(dir, "usersync.yaml"),
    stringify({ source: { desired: "people.yaml" }, policy: { mode: "incremental" }, targets, ...o.extra }),
  );
}

/** What the Pushgateway exposes of the pushes since `from`: each organization's last exit code. */
function exitCodes(from: number): Record<string, number> {
  const series = exposedSeries(gateway.pushes.slice(from)).filter(
    (s) => s.name === "usersync_last_exit_code",
  );
  for (const s of series) expect(s.labels["namespace"]).toBe("iam");
  return Object.fromEntries(series.map((s) => [s.labels["organization"]!, s.value]));
}

const run = async (dir: string, argv: string[], env = cronEnv()) => {
  const c = captureIo(dir, env);
  const from = gateway.pushes.length;
  const code = await main(argv, c.io);
  return { code, err: c.err(), out: c.out(), codes: exitCodes(from), pushes: gateway.pushes.slice(from) };
};

const INDEXED = (i: number, list = "alpha,beta,gamma") => [
  "apply",
  "--yes",
  "--config",
  "usersync.yaml",
  "--target-index",
  String(i),
  "--target-list",
  list,
];

describe("a failure before any organization is every organization's failure", () => {
  it("a config typo: the Indexed Job's pod pushes exit 4 for its organization", () =>
    withTempDir(async (dir) => {
      await writeConfig(dir, { extra: { polcy: { maxDeletes: 3 } } });
      const r = await run(dir, INDEXED(1));
      expect(r.code).toBe(4);
      expect(r.codes).toEqual({ beta: 4 });
      expect(r.pushes[0]!.path).toBe("/metrics/job/usersync/namespace/iam/organization/beta");
      // No last success: the staleness alert keeps counting from the last good run.
      expect(r.pushes[0]!.samples.some((s) => s.name === "usersync_last_success_timestamp_seconds")).toBe(
        false,
      );
    }));

  it("a config typo with --all-targets: exit 4 for each of the file's targets", () =>
    withTempDir(async (dir) => {
      await writeConfig(dir, { extra: { polcy: {} } });
      const r = await run(dir, ["plan", "--config", "usersync.yaml", "--all-targets"]);
      expect(r.code).toBe(4);
      expect(r.codes).toEqual({ alpha: 4, beta: 4, gamma: 4 });
    }));

  it("the shared source unreadable: exit 5 for each organization", () =>
    withTempDir(async (dir) => {
      await writeConfig(dir, { extra: { source: { desired: "missing.yaml" } } });
      const r = await run(dir, ["apply", "--yes", "--config", "usersync.yaml", "--all-targets"]);
      expect(r.code).toBe(5);
      expect(r.codes).toEqual({ alpha: 5, beta: 5, gamma: 5 });
    }));

  it("a select naming no group: exit 4 for the pod's organization", () =>
    withTempDir(async (dir) => {
      await writeConfig(dir, {
        targets: NAMES.map((n) => ({
          name: n,
          baseUrl: orgs.get(n)!.url,
          select: { groups: [n === "gamma" ? "org-gama" : `org-${n}`] },
        })),
      });
      const r = await run(dir, INDEXED(2));
      expect(r.code).toBe(4);
      expect(r.codes).toEqual({ gamma: 4 });
    }));

  it("a Job rendered for another list: the index's organization of that list fails and alerts", () =>
    withTempDir(async (dir) => {
      await writeConfig(dir);
      const r = await run(dir, INDEXED(2, "alpha,beta,delta"));
      expect(r.code).toBe(4);
      expect(r.codes).toEqual({ delta: 4 });
      expect(r.err).toContain("TARGET_LIST");
      expect(r.err).not.toContain("USERSYNC_TARGET_LIST");
    }));
});

describe("one organization's config that does not load", () => {
  it("pushes exit 4 under the job's grouping, labelled with the host of its URL", () =>
    withTempDir(async (dir) => {
      const url = orgs.get("alpha")!.url;
      await writeFile(join(dir, "people.yaml"), stringify(PEOPLE));
      await writeFile(
        join(dir, "usersync.yaml"),
        stringify({ source: { desired: "people.yaml" }, target: { baseUrl: url }, polcy: {} }),
      );
      const r = await run(
        dir,
        ["apply", "--yes", "--config", "usersync.yaml"],
        cronEnv({ USERSYNC_TOKEN: "x" }),
      );
      expect(r.code).toBe(4);
      expect(r.pushes.map((p) => p.path)).toEqual(["/metrics/job/usersync/namespace/iam"]);
      expect(r.codes).toEqual({ [new URL(url).host]: 4 });
    }));
});

describe("one organization's credentials never stop another", () => {
  it("a missing token file, an unset variable and a refused token fail their organization alone", () =>
    withTempDir(async (dir) => {
      await mkdir(join(dir, "secrets"));
      await writeConfig(dir, {
        targets: [
          { name: "alpha", baseUrl: orgs.get("alpha")!.url, select: { groups: ["org-alpha"] } },
          {
            name: "beta",
            baseUrl: orgs.get("beta")!.url,
            select: { groups: ["org-beta"] },
            tokenFile: "secrets/beta-token",
          },
          { name: "gamma", baseUrl: orgs.get("gamma")!.url, select: { groups: ["org-gamma"] } },
        ],
      });
      // beta's Secret is not mounted; alpha's token is wrong; gamma's is right.
      const env = cronEnv({ USERSYNC_TOKEN_ALPHA: "wrong-t0ken" });
      const argv = [
        "apply",
        "--yes",
        "--config",
        "usersync.yaml",
        "--all-targets",
        "--credentials-file",
        join(dir, "c.csv"),
      ];
      const r = await run(dir, argv, env);
      expect(r.codes).toEqual({ alpha: 1, beta: 4, gamma: 0 });
      expect(r.code).toBe(4);
      const fatal = r.err
        .split("\n")
        .filter((l) => l.includes('"level":60'))
        .map((l) => JSON.parse(l) as { organization: string; msg: string });
      const alpha = fatal.find((l) => l.organization === "alpha")!.msg;
      expect(alpha).toContain("Check USERSYNC_TOKEN_ALPHA");
      expect(fatal.find((l) => l.organization === "beta")!.msg).toContain("secrets/beta-token");
      expect(r.out).toMatch(/gamma\s+exit 0/);
    }));

  it("an unset USERSYNC_TOKEN_<NAME> names that variable and fails that organization", () =>
    withTempDir(async (dir) => {
      await writeConfig(dir);
      const env = cronEnv({ USERSYNC_TOKEN_BETA: undefined });
      const r = await run(dir, INDEXED(1), env);
      expect(r.code).toBe(4);
      expect(r.codes).toEqual({ beta: 4 });
      expect(r.err).toContain("USERSYNC_TOKEN_BETA");
    }));
});

describe("the audit's drift names its organization", () => {
  it("plan --detailed-exitcode pushes exit 2 with the organization label (UsersyncDriftFound)", () =>
    withTempDir(async (dir) => {
      // beta: no earlier case of this file applied anything there.
      await writeConfig(dir);
      const r = await run(dir, [
        "plan",
        "--config",
        "usersync.yaml",
        "--target",
        "beta",
        "--detailed-exitcode",
      ]);
      expect(r.code).toBe(2);
      expect(r.codes).toEqual({ beta: 2 });
      const drift = r.pushes[0]!.samples.find((s) => s.name === "usersync_last_exit_code")!;
      expect(drift.labels).toMatchObject({ command: "plan", organization: "beta" });
    }));
});
