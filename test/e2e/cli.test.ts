/**
 * The built CLI end to end, against the emulator over a real socket: the commands, their exit
 * codes, what they print, and what they send (or do not send).
 */
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { logMessages, ROOT, runCli, startCli, withTempDir } from "./run-cli.js";
import { skipWithout } from "../helpers/skips.js";

const TOKEN = "e2e-token-3b1d";
const DEMO = join(ROOT, "fixtures", "demo");
const DESIRED = join(DEMO, "users.yaml");

let emulator: EmulatorHandle;

beforeEach(async () => {
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    seed: await loadSeedFile(join(DEMO, "organization.yaml")),
  });
});
afterEach(async () => {
  await emulator.close();
});

// The demo's teams carry workspace access: managed on every workspace, as the demo's config says.
const env = () => ({
  USERSYNC_TOKEN: TOKEN,
  USERSYNC_PERMISSIONS_WORKSPACES: "all",
  USERSYNC_DATA_FILTERS_WORKSPACES: "all",
});
const writes = () => emulator.requestLog().filter((r) => r.method !== "GET").length;
/** `apply --yes` of the demo file against the emulator, with its generated passwords in `credentials`. */
const applyDemo = (credentials: string): string[] => [
  "apply",
  "--desired",
  DESIRED,
  "--base-url",
  emulator.url,
  "--yes",
  "--credentials-file",
  credentials,
];

describe("usersync CLI", () => {
  it("prints help and its version", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Commands:");
    expect(help.stdout).toContain("Exit codes");
    const planHelp = await runCli(["plan", "--help"]);
    expect(planHelp.stdout).toContain("--detailed-exitcode");
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string };
    const version = await runCli(["--version"]);
    expect(version.stdout.trim()).toBe(`usersync ${pkg.version}`);
  });

  it("an unknown command or option is exit 4 with a hint", async () => {
    const r = await runCli(["plna"]);
    expect(r.code).toBe(4);
    expect(logMessages(r.stderr)).toContain('unknown command "plna"');
    const o = await runCli(["plan", "--colour"]);
    expect(o.code).toBe(4);
    expect(logMessages(o.stderr)).toContain("--colour");
  });

  it("stops with exit 4 when no service is named, and says both ways out", async () => {
    const r = await runCli(["plan", "--desired", DESIRED], { env: env() });
    expect(r.code).toBe(4);
    expect(logMessages(r.stderr)).toContain("target.baseUrl");
    expect(logMessages(r.stderr)).toContain('"embedded"');
  });

  it("refuses plain http to a remote host and a missing token, before sending anything", async () => {
    const insecure = await runCli(
      ["plan", "--desired", DESIRED, "--base-url", "http://analytics.example.com"],
      {
        env: env(),
      },
    );
    expect(insecure.code).toBe(4);
    expect(logMessages(insecure.stderr)).toContain("allowInsecureHttp");
    const noToken = await runCli(["plan", "--desired", DESIRED, "--base-url", emulator.url]);
    expect(noToken.code).toBe(4);
    expect(logMessages(noToken.stderr)).toContain("USERSYNC_TOKEN");
    expect(emulator.counters().requests).toBe(0);
  });

  it("plan on the demo prints a dry run, exits 2 with --detailed-exitcode, and is byte-identical twice", async () => {
    // A relative path (from the repo root), so the text does not depend on where the checkout is.
    const args = [
      "plan",
      "--desired",
      "fixtures/demo/users.yaml",
      "--base-url",
      emulator.url,
      "--detailed-exitcode",
    ];
    const first = await runCli(args, { env: env() });
    expect(logMessages(first.stderr)).not.toContain("ERROR");
    expect(first.code).toBe(2);
    expect(first.stdout).toContain("DRY RUN");
    // The summary comes first (right after the mode line), counting people, not steps.
    expect(first.stdout.split("\n").slice(3, 5)).toEqual([
      "Summary:",
      "  People            21 to add, 17 to change, 1 to revoke",
    ]);
    expect(first.stdout).toMatch(/^ {2}Steps {13}49 to create, 11 to update, 2 to delete$/m);
    expect(first.stdout).toMatch(
      /^Plan: changes for 39 people \(21 to add, 17 to change, 1 to revoke\), 4 groups \(3 to add, 1 to change\), 7 permission changes \(6 to grant, 1 to revoke\) and 1 data filter change \(1 to create\)\.$/m,
    );
    // The whole text, reviewed once and kept: any change to the demo plan's text shows in a diff.
    // Normalised: the text must not depend on where the checkout is.
    // And not on the emulator's port (the last line names the organization planned for).
    const normal = first.stdout.replaceAll(`${ROOT}/`, "<root>/").replaceAll(emulator.url, "<base-url>");
    await expect(normal).toMatchFileSnapshot("__snapshots__/demo-plan.txt");
    const second = await runCli(args, { env: env() });
    expect(second.stdout).toBe(first.stdout);
    expect(writes()).toBe(0);
  });

  it("plan --format json --out saves the same plan it prints", async () => {
    await withTempDir(async (dir) => {
      const out = join(dir, "plan.json");
      const r = await runCli(
        ["plan", "--desired", DESIRED, "--base-url", emulator.url, "--format", "json", "--out", out],
        {
          env: env(),
        },
      );
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(JSON.parse(await readFile(out, "utf8")));
      expect((JSON.parse(r.stdout) as { formatVersion: number }).formatVersion).toBe(2);
    });
  });

  it("apply without a terminal and without --yes refuses with exit 3 and changes nothing", async () => {
    await withTempDir(async (dir) => {
      const r = await runCli(
        ["apply", "--desired", DESIRED, "--base-url", emulator.url, "--credentials-file", join(dir, "c.csv")],
        { env: env() },
      );
      expect(r.code).toBe(3);
      expect(logMessages(r.stderr)).toContain("--yes");
      expect(writes()).toBe(0);
    });
  });

  it("apply with generated passwords and no credentials file is refused before anything is sent", async () => {
    const r = await runCli(["apply", "--desired", DESIRED, "--base-url", emulator.url, "--yes"], {
      env: env(),
    });
    expect(r.code).toBe(3);
    expect(logMessages(r.stderr)).toContain("--credentials-file");
    expect(writes()).toBe(0);
  });

  it("apply --yes converges: report, journal, metrics, 0600 credentials; the next plan is empty", async () => {
    await withTempDir(async (dir) => {
      const files = {
        credentials: join(dir, "credentials.csv"),
        report: join(dir, "report.json"),
        journal: join(dir, "journal.jsonl"),
        metrics: join(dir, "usersync.prom"),
      };
      const r = await runCli(
        [
          ...applyDemo(files.credentials),
          "--report",
          files.report,
          "--journal",
          files.journal,
          "--metrics-file",
          files.metrics,
        ],
        { env: env() },
      );
      expect(r.stderr).not.toMatch(/"level":50/);
      expect(r.code).toBe(0);
      expect((await stat(files.credentials)).mode & 0o777).toBe(0o600);
      const credentialLines = (await readFile(files.credentials, "utf8")).trim().split("\n").slice(1);
      expect(credentialLines).toHaveLength(20);
      const report = JSON.parse(await readFile(files.report, "utf8")) as {
        steps: Array<{ outcome: string }>;
      };
      expect(report.steps.every((s) => s.outcome === "succeeded")).toBe(true);
      const journal = (await readFile(files.journal, "utf8")).trim().split("\n");
      expect(journal).toHaveLength(report.steps.length);
      const metrics = await readFile(files.metrics, "utf8");
      expect(metrics).toMatch(
        /^usersync_last_success_timestamp_seconds\{command="apply",organization="[^"]+"\} \d+$/m,
      );
      // No generated password anywhere but the credentials file.
      const passwords = credentialLines.map((l) => l.split(",")[1] ?? "");
      const everything = [
        r.stdout,
        r.stderr,
        await readFile(files.report, "utf8"),
        journal.join("\n"),
        metrics,
      ].join("\n");
      for (const p of passwords) expect(everything).not.toContain(p);

      const again = await runCli(
        ["plan", "--desired", DESIRED, "--base-url", emulator.url, "--detailed-exitcode"],
        {
          env: env(),
        },
      );
      expect(again.code).toBe(0);
      expect(again.stdout).toContain("No changes");
      // The person of another organization and the admin were not touched.
      const state = emulator.state();
      expect(state.idpUsers.map((u) => u.email)).toContain("visitor@partner.example");
      expect(state.idpUsers.find((u) => u.email === "admin@demo.example")?.displayName).toBe(
        "Organization Admin",
      );
      // The leaver was revoked (credentials gone), the mapping stays.
      expect(state.idpUsers.map((u) => u.email)).not.toContain("leaver@demo.example");
      expect(state.mappings.map((m) => m.id)).toContain("leaver");
    });
  });

  it.skipIf(skipWithout(["devFull"], { what: "a journal on a full disk" }))(
    "a journal that cannot be written (a full disk) is said once; the run finishes with its own exit code",
    async () => {
      await withTempDir(async (dir) => {
        const r = await runCli([...applyDemo(join(dir, "c.csv")), "--journal", "/dev/full"], { env: env() });
        expect(r.code).toBe(0);
        expect(logMessages(r.stderr).split("the journal cannot be written")).toHaveLength(2);
        expect(logMessages(r.stderr)).not.toContain("unexpected error");
        expect(r.stdout).toContain("succeeded");
      });
    },
  );

  it("apply --plan applies a saved plan and reports steps whose objects changed as stale (exit 3)", async () => {
    await withTempDir(async (dir) => {
      const planFile = join(dir, "plan.json");
      const made = await runCli(
        ["plan", "--desired", DESIRED, "--base-url", emulator.url, "--out", planFile],
        {
          env: env(),
        },
      );
      expect(made.code).toBe(0);
      // Someone changes a user the plan updates (grace.hopper's groups drifted in the seed; she
      // alone joins finance, so her own PUT moves her, not a bulk request).
      const res = await fetch(`${emulator.url}/api/v1/entities/users/grace.hopper`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/vnd.gooddata.api+json" },
        body: JSON.stringify({
          data: { id: "grace.hopper", type: "user", attributes: { lastname: "Hopper-Changed" } },
        }),
      });
      expect(res.status).toBe(200);
      const r = await runCli(
        [
          "apply",
          "--plan",
          planFile,
          "--base-url",
          emulator.url,
          "--yes",
          "--credentials-file",
          join(dir, "c.csv"),
          "--report",
          join(dir, "r.json"),
        ],
        { env: env() },
      );
      expect(r.code).toBe(3);
      const report = JSON.parse(await readFile(join(dir, "r.json"), "utf8")) as {
        steps: Array<{ stepId: string; outcome: string }>;
      };
      const stale = report.steps.filter((s) => s.outcome === "stale").map((s) => s.stepId);
      expect(stale).toEqual(["updateMapping:grace.hopper"]);
      expect(report.steps.filter((s) => s.outcome === "succeeded").length).toBeGreaterThan(20);
      // A saved plan is applied exactly: options that would change it are refused.
      const reshaped = await runCli(
        ["apply", "--plan", planFile, "--base-url", emulator.url, "--yes", "--allow-deletes", "5"],
        {
          env: env(),
        },
      );
      expect(reshaped.code).toBe(4);
      expect(logMessages(reshaped.stderr)).toContain("applied exactly");
    });
  });

  it("an invalid desired file is exit 4 with every problem, and the service gets zero requests", async () => {
    await withTempDir(async (dir) => {
      const bad = join(dir, "bad.csv");
      await writeFile(
        bad,
        "email,id,colour\nnot-an-email,.bad,red\na@example.com,a,blue\nA@example.com,b,green\n",
      );
      const r = await runCli(["plan", "--desired", bad, "--base-url", emulator.url], { env: env() });
      expect(r.code).toBe(4);
      expect(logMessages(r.stderr)).toContain("colour");
      expect(logMessages(r.stderr)).toMatch(/bad\.csv:2/);
      expect(logMessages(r.stderr)).toMatch(/bad\.csv:4/);
      expect(logMessages(r.stderr)).toContain("Nothing was changed in the service");
      expect(emulator.counters().requests).toBe(0);
    });
  });

  it("export writes a desired state that plans to nothing against the same organization", async () => {
    await withTempDir(async (dir) => {
      for (const format of ["yaml", "csv"] as const) {
        const out = join(dir, `org.${format}`);
        const r = await runCli(["export", "--base-url", emulator.url, "--format", format, "--out", out], {
          env: env(),
        });
        expect(r.code).toBe(0);
        const validate = await runCli(
          ["validate", out, ...(format === "csv" ? ["--groups", join(dir, "org-groups.csv")] : [])],
          { env: env() },
        );
        expect(validate.stdout).toMatch(/^OK: /m);
        expect(validate.code).toBe(0);
        const plan = await runCli(
          [
            "plan",
            "--desired",
            out,
            "--base-url",
            emulator.url,
            "--detailed-exitcode",
            ...(format === "csv" ? ["--groups", join(dir, "org-groups.csv")] : []),
          ],
          { env: env() },
        );
        expect(plan.stdout).toContain("No changes");
        expect(plan.code).toBe(0);
      }
      const exported = parseYaml(await readFile(join(dir, "org.yaml"), "utf8")) as { users: unknown[] };
      expect(exported.users.length).toBeGreaterThan(30);
    });
  });

  it("validate is offline and reports OK with counts", async () => {
    const r = await runCli(["validate", DESIRED]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^OK: .*users\.yaml: 52 user\(s\) \(1 marked absent\), 7 group\(s\)/m);
  });

  it("usersync emulator --port 0 --profile v1 prints its URL and answers with the token", async () => {
    const { child, done } = startCli(["emulator", "--port", "0", "--profile", "v1", "--token", "cli-token"]);
    const url = await new Promise<string>((resolve) =>
      child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())),
    );
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const ok = await fetch(`${url}/api/v1/auth/users`, { headers: { authorization: "Bearer cli-token" } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual([]);
    const denied = await fetch(`${url}/api/v1/auth/users`, { headers: { authorization: "Bearer wrong" } });
    expect(denied.status).toBe(401);
    const legacy = await fetch(`${url}/api/auth/users`, { headers: { authorization: "Bearer cli-token" } });
    expect(legacy.status).toBe(404);
    child.kill("SIGTERM");
    expect((await done).code).toBe(0);
  });

  it("usersync emulator --user-management 405 refuses bulk membership like an older service; plan falls back to one PUT a person", async () => {
    const seed = join(ROOT, "fixtures", "demo", "organization.yaml");
    const args = [
      "emulator",
      "--port",
      "0",
      "--user-management",
      "405",
      "--seed",
      seed,
      "--token",
      "cli-token",
    ];
    const { child, done } = startCli(args);
    const url = await new Promise<string>((resolve) =>
      child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())),
    );
    try {
      const headers = { authorization: "Bearer cli-token", "content-type": "application/json" };
      const add = await fetch(`${url}/api/v1/actions/userManagement/userGroups/sales/addMembers`, {
        method: "POST",
        headers,
        body: JSON.stringify({ members: [{ id: "x" }] }),
      });
      expect(add.status).toBe(405);
      const plan = await runCli(["plan", "--desired", DESIRED, "--base-url", url], {
        env: { USERSYNC_TOKEN: "cli-token" },
      });
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).not.toContain("Bulk moves");
      expect(logMessages(plan.stderr)).toMatch(/bulk membership/i);
    } finally {
      child.kill("SIGTERM");
    }
    expect((await done).code).toBe(0);
  });

  it("--base-url embedded runs the emulator in the process and persists it with target.embeddedData", async () => {
    await withTempDir(async (dir) => {
      const config = join(dir, "usersync.yaml");
      await writeFile(
        config,
        "target:\n  baseUrl: embedded\n  embeddedData: ./store.json\nidentity:\n  passwords: none\n",
      );
      const apply = await runCli(["apply", "--desired", DESIRED, "--yes"], { cwd: dir });
      expect(apply.code).toBe(0);
      const store = JSON.parse(await readFile(join(dir, "store.json"), "utf8")) as { mappings: unknown[] };
      expect(store.mappings.length).toBe(52); // the file's 51 present users and the token's owner
      const again = await runCli(["plan", "--desired", DESIRED, "--detailed-exitcode"], { cwd: dir });
      expect(again.code).toBe(0);
    });
  });

  it("a plan's metrics file counts its changes and keeps the last success time", async () => {
    await withTempDir(async (dir) => {
      const metrics = join(dir, "usersync.prom");
      const args = ["plan", "--desired", DESIRED, "--base-url", emulator.url, "--metrics-file", metrics];
      expect((await runCli(args, { env: env() })).code).toBe(0);
      const text = await readFile(metrics, "utf8");
      // The one organization is named by its URL's host, as a target is by its name (the alerts are per organization).
      const org = `organization="${new URL(emulator.url).host}"`;
      expect(text).toContain(`usersync_plan_changes{action="create",${org}} 49`);
      expect(text).toContain(`usersync_last_exit_code{command="plan",${org}} 0`);
      const success = new RegExp(
        `^usersync_last_success_timestamp_seconds\\{command="plan",${org}\\} (\\d+)$`,
        "m",
      ).exec(text)?.[1];
      expect(Number(success)).toBeGreaterThan(1_700_000_000);
      // A failing run (wrong token) keeps the previous success time.
      const failed = await runCli(args, { env: { USERSYNC_TOKEN: "wrong" } });
      expect(failed.code).toBe(1);
      const after = await readFile(metrics, "utf8");
      expect(after).toContain(`usersync_last_exit_code{command="plan",${org}} 1`);
      expect(after).toContain(`usersync_last_success_timestamp_seconds{command="plan",${org}} ${success}`);
    });
  });

  it("SIGTERM during apply finishes the running steps, writes the report, exits 130; a re-run converges", async () => {
    emulator.setFaults({ latencyMs: 40 });
    await withTempDir(async (dir) => {
      const report = join(dir, "report.json");
      const args = applyDemo(join(dir, "c.csv"));
      const { child, done } = startCli([...args, "--report", report], {
        env: { ...env(), USERSYNC_EXECUTION_CONCURRENCY: "1" },
      });
      // Stop it once some steps have been carried out.
      while (writes() < 5) await new Promise((r) => setTimeout(r, 20));
      child.kill("SIGTERM");
      const stopped = await done;
      expect(stopped.code).toBe(130);
      const written = JSON.parse(await readFile(report, "utf8")) as {
        stoppedBy: string;
        steps: Array<{ outcome: string }>;
      };
      expect(written.stoppedBy).toBe("interrupted");
      expect(written.steps.filter((s) => s.outcome === "skipped").length).toBeGreaterThan(0);
      emulator.setFaults({});
      expect((await runCli(args, { env: env() })).code).toBe(0);
      const plan = await runCli(
        ["plan", "--desired", DESIRED, "--base-url", emulator.url, "--detailed-exitcode"],
        {
          env: env(),
        },
      );
      expect(plan.code).toBe(0);
    });
  });
});

describe("a service without a built-in identity provider", () => {
  it("plans external users; refuses built-in ones with exit 4, naming the row, before any write", async () => {
    const noIdp = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, builtinIdp: false });
    try {
      await withTempDir(async (dir) => {
        const external = join(dir, "external.csv");
        await writeFile(
          external,
          "email,id,identity,authenticationId\nann@corp.example,ann,external,sub-ann\n",
        );
        const ok = await runCli(
          ["plan", "--desired", external, "--base-url", noIdp.url, "--detailed-exitcode"],
          {
            env: env(),
          },
        );
        expect(ok.code).toBe(2);
        expect(ok.stdout).toContain("+ mapping ann");
        expect(logMessages(ok.stderr)).toContain("no built-in identity provider");

        const builtin = join(dir, "builtin.csv");
        await writeFile(builtin, "email,id\nbob@corp.example,bob\ncid@corp.example,cid\n");
        const refused = await runCli(["apply", "--yes", "--desired", builtin, "--base-url", noIdp.url], {
          env: env(),
        });
        expect(refused.code).toBe(4);
        expect(logMessages(refused.stderr)).toContain(
          `${builtin}:2: identity: user 'bob' (and 1 more) has identity builtin`,
        );
        expect(logMessages(refused.stderr)).toContain("source.defaultIdentity: external");
        expect(noIdp.requestLog().filter((r) => r.method !== "GET")).toEqual([]);
      });
    } finally {
      await noIdp.close();
    }
  });
});
