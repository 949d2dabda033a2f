/**
 * Adopting an organization that already has people (issue 38, point 6), through the built CLI
 * against the emulator: people whose mappings exist under ids of their own (made by hand, by an
 * older file, by just-in-time provisioning) are kept under those ids and updated, in full mode
 * nobody is deleted or duplicated, a second run changes nothing; a real conflict (two mappings
 * holding one person's login) is exit 3 in full mode, never a silent "not planned".
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorSeed } from "../../src/emulator/types.js";
import { ADMIN, cliEnv, GROUPS, TOKEN } from "../reliability/org.js";
import { logMessages, runCli } from "./run-cli.js";

const people = [
  { email: "rae@emea.contoso.com", legacyId: "rae.emea_contoso.com", groups: ["g1"] },
  { email: "sam@emea.contoso.com", legacyId: "jit-5d1c", groups: ["g2"] },
  { email: "kim@emea.contoso.com", legacyId: "kim-old", groups: ["g3"] },
];

function seed(extraMappings: EmulatorSeed["mappings"] = []): EmulatorSeed {
  return {
    groups: GROUPS.map((id) => ({ id, name: `Group ${id}`, parents: [] })),
    idpUsers: [
      { email: ADMIN.email, displayName: "Admin", authenticationId: ADMIN.authenticationId },
      ...people.map((p) => ({
        email: p.email,
        displayName: p.email,
        authenticationId: `auth-${p.legacyId}`,
      })),
    ],
    mappings: [
      { id: ADMIN.id, authenticationId: ADMIN.authenticationId, email: ADMIN.email, groups: ["g1"] },
      // Made by hand long ago: right login, no groups, no email attribute.
      ...people.map((p) => ({ id: p.legacyId, authenticationId: `auth-${p.legacyId}`, groups: [] })),
      ...extraMappings,
    ],
  };
}

let dir: string;
let emulator: EmulatorHandle;

async function start(s: EmulatorSeed): Promise<string> {
  emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, seed: s });
  const desired = join(dir, "users.yaml");
  await writeFile(
    desired,
    stringify({
      version: 1,
      groups: GROUPS.map((id) => ({ id, name: `Group ${id}` })),
      // No ids: usersync derives them from the emails, as it does for a directory's people.
      users: people.map((p) => ({ email: p.email, displayName: p.email, groups: p.groups })),
    }),
  );
  const config = join(dir, "usersync.yaml");
  await writeFile(
    config,
    stringify({
      target: { baseUrl: emulator.url },
      source: { desired },
      policy: { mode: "full", deletions: "remove", scope: { emailDomains: ["emea.contoso.com"] } },
      execution: { concurrency: 16, requestsPerSecond: 10_000 },
      logging: { level: "warn", format: "json" },
    }),
  );
  return config;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-adopt-"));
});
afterEach(async () => {
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("adopting an organization's existing people", () => {
  it("keeps their mappings under their own ids, updates them, deletes and duplicates nothing; a re-run is empty", async () => {
    const config = await start(seed());
    const apply = await runCli(["apply", "--config", config, "--yes"], { env: cliEnv() });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain("Adopted (existing mappings kept under their ids)");
    expect(apply.stdout).toContain(
      "rae@emea.contoso.com: its login is already mapped as 'rae.emea_contoso.com'",
    );
    const state = emulator.state();
    const ids = state.mappings.map((m) => m.id).sort();
    expect(ids).toEqual(["admin", "jit-5d1c", "kim-old", "rae.emea_contoso.com"]);
    for (const p of people) {
      const m = state.mappings.find((x) => x.id === p.legacyId)!;
      expect(m.groups).toEqual(p.groups);
      expect(m.email).toBe(p.email);
      expect(m.authenticationId).toBe(`auth-${p.legacyId}`);
    }
    expect(state.idpUsers).toHaveLength(4);
    const again = await runCli(["plan", "--config", config, "--detailed-exitcode"], { env: cliEnv() });
    expect(again.code, again.stderr).toBe(0);
  });

  it("a login held by two mappings is a conflict: full mode ends with exit 3 and names it", async () => {
    const config = await start(seed([{ id: "kim-copy", authenticationId: "auth-kim-old", groups: [] }]));
    const plan = await runCli(["plan", "--config", config], { env: cliEnv() });
    expect(plan.code).toBe(3);
    expect(plan.stdout).toContain("Conflicts");
    expect(plan.stdout).toContain("kim-copy");
    expect(logMessages(plan.stderr)).toContain(
      "1 person of the desired state could not be managed: another mapping holds their login",
    );
    const apply = await runCli(["apply", "--config", config, "--yes"], { env: cliEnv() });
    expect(apply.code).toBe(3);
    // The others were adopted and updated all the same; the conflicted person was left alone.
    const state = emulator.state();
    expect(state.mappings.find((m) => m.id === "rae.emea_contoso.com")?.groups).toEqual(["g1"]);
    expect(state.mappings.find((m) => m.id === "kim-old")?.groups).toEqual([]);
    expect(state.mappings.find((m) => m.id === "kim-copy")).toBeDefined();
  });
});
