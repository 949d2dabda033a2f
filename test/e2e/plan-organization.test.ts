/**
 * A saved plan belongs to its organization (issue 49, item 1), through the built CLI against two
 * emulators over real sockets: a plan made against one and applied to the other is refused with
 * exit 4, naming both organizations, and the other emulator receives no write; the same for a
 * target's saved plan under `targets:` (docs/multi-org.md). The plan applied to its own
 * organization goes through.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { logMessages, runCli } from "./run-cli.js";

const TOKEN = "org-token";
let dir: string;
let acme: EmulatorHandle;
let globex: EmulatorHandle;

const writes = (e: EmulatorHandle): number =>
  e.requestLog().filter((r) => r.method !== "GET" && r.method !== "HEAD").length;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-plan-org-"));
  const seed = { groups: [{ id: "staff" }] };
  acme = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, organizationId: "acme", seed });
  globex = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, organizationId: "globex", seed });
  await writeFile(
    join(dir, "people.yaml"),
    stringify({
      version: 1,
      users: [{ email: "ann@example.com", id: "ann", authenticationId: "sub-ann", groups: ["staff"] }],
    }),
  );
  const common = {
    identity: { default: "external" },
    policy: { mode: "incremental" },
    execution: { requestsPerSecond: 10_000 },
    logging: { level: "warn", format: "json" },
  };
  await writeFile(
    join(dir, "one.yaml"),
    stringify({ ...common, source: { desired: join(dir, "people.yaml") } }),
  );
  await writeFile(
    join(dir, "targets.yaml"),
    stringify({
      ...common,
      targets: [
        { name: "acme", baseUrl: acme.url, desired: join(dir, "people.yaml"), shareToken: true },
        { name: "globex", baseUrl: globex.url, desired: join(dir, "people.yaml"), shareToken: true },
      ],
    }),
  );
});
afterAll(async () => {
  await Promise.all([acme?.close(), globex?.close()]);
  await rm(dir, { recursive: true, force: true });
});

const cli = (config: string, ...args: string[]) =>
  runCli([...args, "--config", join(dir, config)], { env: { USERSYNC_TOKEN: TOKEN } });

describe("a saved plan belongs to its organization", () => {
  it("applied to another organization: exit 4, both named, nothing written there", async () => {
    const planFile = join(dir, "acme-plan.json");
    const made = await cli("one.yaml", "plan", "--base-url", acme.url, "--out", planFile);
    expect(made.code, made.stderr).toBe(0);
    const saved = JSON.parse(await readFile(planFile, "utf8")) as Record<string, unknown>;
    expect(saved["organization"]).toEqual({ id: "acme", url: acme.url });
    expect(saved["stateDigest"]).toMatch(/^[0-9a-f]{16}$/);

    globex.resetLog();
    const wrong = await cli("one.yaml", "apply", "--plan", planFile, "--base-url", globex.url, "--yes");
    expect(wrong.code, wrong.stdout).toBe(4);
    const said = logMessages(wrong.stderr);
    expect(said).toContain(`made for organization acme at ${acme.url}`);
    expect(said).toContain(`pointed at organization globex at ${globex.url}`);
    expect(said).toContain("nothing was sent");
    expect(writes(globex)).toBe(0);
    expect(globex.state().mappings.map((m) => m.id)).not.toContain("ann");

    const right = await cli("one.yaml", "apply", "--plan", planFile, "--base-url", acme.url, "--yes");
    expect(right.code, right.stderr).toBe(0);
    expect(acme.state().mappings.map((m) => m.id)).toContain("ann");
  }, 120_000);

  it("a target's saved plan put where another target's belongs is refused for that target", async () => {
    const made = await cli("targets.yaml", "plan", "--all-targets", "--out", join(dir, "t.json"));
    expect(made.code, made.stderr).toBe(0);
    // acme's plan, under globex's name: as if copied into the wrong folder.
    await copyFile(join(dir, "t.acme.json"), join(dir, "t.globex.json"));
    globex.resetLog();
    const r = await cli(
      "targets.yaml",
      "apply",
      "--target",
      "globex",
      "--plan",
      join(dir, "t.json"),
      "--yes",
    );
    expect(r.code, r.stdout).toBe(4);
    expect(logMessages(r.stderr)).toContain(`made for organization acme at ${acme.url}`);
    expect(writes(globex)).toBe(0);
  }, 120_000);
});
