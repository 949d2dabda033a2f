/**
 * Issue 31: three organizations from one config, through the built CLI against three emulators,
 * each accepting only its own token. alpha and beta take their people from one shared file by
 * group selectors; gamma has its own file. First run (`apply --all-targets`): gamma's file is not
 * there (exit 5), beta's deletions trip its guard (exit 3), alpha converges (exit 0); the
 * combined exit is 3 and the summary names each. No person or group of one organization reaches
 * another, though they share emails and ids. Then the file appears and beta's guard is widened
 * for it alone: all three converge, and a second plan finds nothing to do.
 */
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { deriveUserId } from "../../src/desired/ids.js";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorState } from "../../src/emulator/types.js";
import { runCli, type CliResult } from "./run-cli.js";

const NAMES = ["alpha", "beta", "gamma"] as const;
type Name = (typeof NAMES)[number];
const TOKENS: Record<Name, string> = { alpha: "alpha-token", beta: "beta-token", gamma: "gamma-token" };
const id = (email: string): string => deriveUserId(email);

/** The shared source: alpha's and beta's people, told apart by their organization's group. */
const shared = {
  version: 1,
  groups: [
    { id: "org-alpha" },
    { id: "org-beta" },
    { id: "alpha-sales", parents: ["org-alpha"] },
    { id: "analytics" },
  ],
  users: [
    { email: "ann@example.com", displayName: "Ann Alpha", groups: ["alpha-sales"] },
    { email: "bob@example.com", displayName: "Bob Beta", groups: ["org-beta"] },
    // In both organizations: each gets her, with its own groups and the shared one only.
    { email: "cy@example.com", displayName: "Cy Both", groups: ["org-alpha", "org-beta", "analytics"] },
  ],
};
/** gamma's own file: the same email (and so the same id) as alpha's ann, another person's data. */
const gammaFile = {
  version: 1,
  groups: [{ id: "gamma-ops" }],
  users: [{ email: "ann@example.com", displayName: "Ann Gamma", groups: ["gamma-ops"] }],
};
/** beta already has people the source does not list for it (ann among them): more than its guard allows. */
const betaSeed = {
  idpUsers: ["ann", "dan", "eve", "fay"].map((n) => ({
    email: `${n}@example.com`,
    displayName: `${n} of beta`,
    authenticationId: `beta-${n}`,
  })),
  mappings: ["ann", "dan", "eve", "fay"].map((n) => ({
    id: id(`${n}@example.com`),
    authenticationId: `beta-${n}`,
    email: `${n}@example.com`,
    groups: [],
  })),
};

let dir: string;
const emulators = {} as Record<Name, EmulatorHandle>;

function config(betaMaxDeletes: number | string): string {
  return stringify({
    source: { desired: "people.yaml" },
    policy: { mode: "full", maxDeletes: 1 },
    output: {
      report: "out/report.json",
      journal: "out/journal.jsonl",
      metricsFile: "out/metrics.prom",
      credentialsFile: "out/credentials.csv",
    },
    targets: [
      { name: "gamma", baseUrl: emulators.gamma.url, desired: "gamma.yaml" },
      {
        name: "beta",
        baseUrl: emulators.beta.url,
        select: { groups: ["org-beta"] },
        policy: { maxDeletes: betaMaxDeletes },
      },
      { name: "alpha", baseUrl: emulators.alpha.url, select: { groups: ["org-alpha"] } },
    ],
  });
}

const env = {
  USERSYNC_TOKEN_ALPHA: TOKENS.alpha,
  USERSYNC_TOKEN_BETA: TOKENS.beta,
  USERSYNC_TOKEN_GAMMA: TOKENS.gamma,
  USERSYNC_LOGGING_FORMAT: "json",
};
const run = (args: string[]): Promise<CliResult> => runCli(args, { cwd: dir, env });

const jsonLines = (stderr: string): Array<Record<string, unknown>> =>
  stderr
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const mapping = (s: EmulatorState, email: string) => s.mappings.find((m) => m.id === id(email));
const login = (s: EmulatorState, email: string) => s.idpUsers.find((u) => u.email === email);
const groupIds = (s: EmulatorState): string[] => s.groups.map((g) => g.id).sort();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-multi-org-"));
  for (const name of NAMES)
    emulators[name] = await startEmulator({
      port: 0,
      tokens: { [TOKENS[name]]: "admin" },
      ...(name === "beta" ? { seed: betaSeed } : {}),
    });
  await writeFile(join(dir, "people.yaml"), stringify(shared));
  await writeFile(join(dir, "usersync.yaml"), config(1));
});

afterAll(async () => {
  for (const name of NAMES) await emulators[name]?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("apply --all-targets over three organizations", () => {
  it("one down (5), one guarded (3), one converging (0): exit 3, each isolated", async () => {
    const r = await run(["apply", "--all-targets", "--yes"]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/Targets: 3, exit 3/);
    expect(r.stdout).toMatch(/alpha\s+exit 0/);
    expect(r.stdout).toMatch(/beta\s+exit 3/);
    expect(r.stdout).toMatch(/gamma\s+exit 5/);
    // gamma's failure is one JSON line naming it; the others' lines carry their organization.
    const lines = jsonLines(r.stderr);
    const fatal = lines.find((l) => l["level"] === 60);
    expect(fatal).toMatchObject({ organization: "gamma", exitCode: 5, code: "SOURCE_UNAVAILABLE" });
    expect(lines.some((l) => l["organization"] === "alpha" && /^listed /.test(String(l["msg"])))).toBe(true);
    expect(lines.at(-1)).toMatchObject({ targets: { alpha: 0, beta: 3, gamma: 5 }, exitCode: 3 });

    const alpha = emulators.alpha.state();
    expect(mapping(alpha, "ann@example.com")?.groups).toEqual(["alpha-sales"]);
    expect(login(alpha, "ann@example.com")?.displayName).toBe("Ann Alpha");
    expect(mapping(alpha, "bob@example.com")).toBeUndefined();
    // cy is in both: alpha gets its group and the shared one, never beta's.
    expect(mapping(alpha, "cy@example.com")?.groups.sort()).toEqual(["analytics", "org-alpha"]);
    expect(groupIds(alpha)).toEqual(["alpha-sales", "analytics", "org-alpha"]);

    const beta = emulators.beta.state();
    expect(mapping(beta, "bob@example.com")?.groups).toEqual(["org-beta"]);
    expect(mapping(beta, "cy@example.com")?.groups.sort()).toEqual(["analytics", "org-beta"]);
    expect(groupIds(beta)).toEqual(["analytics", "org-beta"]);
    // beta's own ann (same email and id as alpha's) is untouched: held back, never given alpha's data.
    expect(mapping(beta, "ann@example.com")).toMatchObject({ authenticationId: "beta-ann", groups: [] });
    expect(login(beta, "ann@example.com")?.displayName).toBe("ann of beta");

    // gamma: nothing was sent past reading its source (only the admin the emulator maps).
    expect(emulators.gamma.state().mappings.map((m) => m.id)).toEqual(["admin"]);
  });

  it("writes each organization's report, journal and metrics, labelled, to its own files", async () => {
    const files = (await readdir(join(dir, "out"))).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        "journal.alpha.jsonl",
        "metrics.alpha.prom",
        "metrics.beta.prom",
        "report.alpha.json",
      ]),
    );
    expect(files.some((f) => f.includes("gamma") && !f.startsWith("metrics"))).toBe(false);
    // Generated passwords: each organization's own credentials file (0600), with its people only.
    const alphaCredentials = join(dir, "out", "credentials.alpha.csv");
    expect((await stat(alphaCredentials)).mode & 0o777).toBe(0o600);
    const credentials = await readFile(alphaCredentials, "utf8");
    expect(credentials).toMatch(/ann@example\.com/);
    expect(credentials).not.toMatch(/bob@example\.com/);
    const metrics = await readFile(join(dir, "out", "metrics.gamma.prom"), "utf8");
    expect(metrics).toMatch(/^usersync_last_exit_code\{command="apply",organization="gamma"\} 5$/m);
    const betaMetrics = await readFile(join(dir, "out", "metrics.beta.prom"), "utf8");
    expect(betaMetrics).toMatch(/^usersync_deletions_held_back\{command="apply",organization="beta"\} 4$/m);
    const report = JSON.parse(await readFile(join(dir, "out", "report.alpha.json"), "utf8")) as {
      outcomes: Array<{ target?: { id?: string } }>;
    };
    expect(JSON.stringify(report)).not.toMatch(/bob@example\.com|org-beta/);
  });

  it("then all converge: gamma's file is there, beta's guard allows its leavers", async () => {
    await writeFile(join(dir, "gamma.yaml"), stringify(gammaFile));
    await writeFile(join(dir, "usersync.yaml"), config("100%"));
    const r = await run(["apply", "--all-targets", "--yes"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Targets: 3, exit 0/);
    // The summary says what each did: alpha had converged, gamma and beta applied their steps.
    expect(r.stdout).toMatch(/alpha\s+exit 0 {2}done \/ no changes/);
    for (const name of ["beta", "gamma"]) {
      const part = r.stdout.split(`=== target ${name} `)[1]!.split("=== target ")[0]!;
      const succeeded = /Apply finished: (\d+) succeeded/.exec(part)?.[1];
      expect(succeeded, part).toBeDefined();
      expect(r.stdout).toMatch(new RegExp(`${name}\\s+exit 0 {2}done: ${succeeded} steps? applied`));
    }
    const gamma = emulators.gamma.state();
    expect(mapping(gamma, "ann@example.com")?.groups).toEqual(["gamma-ops"]);
    expect(login(gamma, "ann@example.com")?.displayName).toBe("Ann Gamma");
    expect(groupIds(gamma)).toEqual(["gamma-ops"]);
    // beta's leavers (its ann among them) lost their logins (revoked); alpha's ann is as she was.
    const beta = emulators.beta.state();
    for (const n of ["ann", "dan", "eve", "fay"]) expect(login(beta, `${n}@example.com`)).toBeUndefined();
    expect(login(emulators.alpha.state(), "ann@example.com")?.displayName).toBe("Ann Alpha");

    const again = await run(["plan", "--all-targets", "--detailed-exitcode"]);
    expect(again.code, again.stdout).toBe(0);
  });

  it("--target runs one; a changed list under an Indexed Job is refused; --base-url is refused", async () => {
    const one = await run(["plan", "--target", "beta", "--detailed-exitcode"]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).not.toMatch(/=== target/);
    const none = await run(["plan"]);
    expect(none.code).toBe(4);
    expect(jsonLines(none.stderr).at(-1)?.["msg"]).toMatch(/lists 3 targets \(alpha, beta, gamma\)/);
    const moved = await run(["plan", "--target-index", "1", "--target-list", "alpha,gamma"]);
    expect(moved.code).toBe(4);
    expect(jsonLines(moved.stderr).at(-1)?.["msg"]).toMatch(/rendered for the targets alpha, gamma/);
    const indexed = await run(["plan", "--target-index", "2", "--target-list", "alpha,beta,gamma"]);
    expect(indexed.code, indexed.stderr).toBe(0);
    expect(jsonLines(indexed.stderr).some((l) => l["organization"] === "gamma")).toBe(true);
    const url = await run(["plan", "--target", "alpha", "--base-url", emulators.alpha.url]);
    expect(url.code).toBe(4);
    // export takes --target too: that organization's users, through its own token.
    const exported = await run(["export", "--target", "gamma"]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/Ann Gamma/);
    expect(exported.stdout).not.toMatch(/Ann Alpha|bob@example\.com/);
  });
});
