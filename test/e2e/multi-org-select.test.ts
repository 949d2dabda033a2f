/**
 * Issue 38 item 3, through the built CLI against two emulators: a select names what the source
 * read (a typo is exit 4 with a did-you-mean, before any request to any organization), a select
 * that gives nobody is exit 4 unless the target allows it, `minUsers` counts each organization's
 * slice, and `plan --all-targets` says "changes planned" for a plan with steps.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { runCli, type CliResult } from "./run-cli.js";

const people = {
  version: 1,
  groups: [{ id: "bu-retail" }, { id: "bu-energy" }, { id: "bu-closed" }],
  users: [
    { email: "ann@example.com", groups: ["bu-retail"] },
    { email: "bob@example.com", groups: ["bu-retail"] },
    { email: "cy@example.com", groups: ["bu-energy"] },
  ],
};

let dir: string;
let retail: EmulatorHandle;
let energy: EmulatorHandle;
const env = { USERSYNC_TOKEN_RETAIL: "retail-token", USERSYNC_TOKEN_ENERGY: "energy-token" };
const run = (args: string[]): Promise<CliResult> => runCli(args, { cwd: dir, env });

async function configure(targets: Array<Record<string, unknown>>, source: Record<string, unknown> = {}) {
  const urls: Record<string, string> = { retail: retail.url, energy: energy.url };
  await writeFile(
    join(dir, "usersync.yaml"),
    stringify({
      source: { desired: "people.yaml", ...source },
      policy: { mode: "full" },
      targets: targets.map((t) => ({ baseUrl: urls[t["name"] as string], ...t })),
    }),
  );
}
const requests = (): number => retail.requestLog().length + energy.requestLog().length;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-select-"));
  retail = await startEmulator({ port: 0, tokens: { "retail-token": "admin" } });
  energy = await startEmulator({ port: 0, tokens: { "energy-token": "admin" } });
  await writeFile(join(dir, "people.yaml"), stringify(people));
  await writeFile(join(dir, "people.csv"), "email,tenant\nann@example.com,retail\ncy@example.com,energy\n");
});
beforeEach(() => {
  retail.resetLog();
  energy.resetLog();
});
afterAll(async () => {
  await retail?.close();
  await energy?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("a target's select names what the source read", () => {
  it("a group typo is exit 4 with the nearest name, and no organization is asked anything", async () => {
    await configure([
      { name: "retail", select: { groups: ["bu-retial"] } },
      { name: "energy", select: { groups: ["bu-energy"] } },
    ]);
    for (const args of [
      ["apply", "--all-targets", "--yes"],
      ["plan", "--target", "retail"],
    ]) {
      const r = await run(args);
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toContain("targets[0] (retail).select.groups: bu-retial matches no group");
      expect(r.stderr).toContain("did you mean bu-retail?");
    }
    expect(requests()).toBe(0);
    // The other target alone runs: its select is fine, and the typo is not its run's.
    const other = await run(["plan", "--target", "energy"]);
    expect(other.code, other.stderr).toBe(0);
  }, 90_000);

  it("a column or a value nobody has is exit 4 with the nearest one", async () => {
    const csv = { desired: "people.csv" };
    await configure(
      [
        { name: "retail", select: { column: { name: "tenant", value: "retial" } } },
        { name: "energy", select: { column: { name: "tennant", value: "energy" } } },
      ],
      csv,
    );
    const r = await run(["plan", "--all-targets"]);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('nobody\'s tenant is \\"retial\\"; did you mean retail?');
    expect(r.stderr).toContain("no person the source read has a column tennant; did you mean tenant?");
    expect(requests()).toBe(0);
  }, 90_000);

  it("a select that gives nobody is exit 4 unless the target says allowEmptySlice", async () => {
    await configure([
      { name: "retail", select: { groups: ["bu-retail"] } },
      { name: "energy", select: { groups: ["bu-closed"] } },
    ]);
    const empty = await run(["plan", "--all-targets"]);
    expect(empty.code, empty.stderr).toBe(4);
    expect(empty.stderr).toContain("targets[1] (energy).select: gives nobody of the 3 people");
    expect(empty.stderr).toContain("allowEmptySlice: true");
    expect(requests()).toBe(0);
    await configure([
      { name: "retail", select: { groups: ["bu-retail"] } },
      { name: "energy", select: { groups: ["bu-closed"] }, allowEmptySlice: true },
    ]);
    const allowed = await run(["plan", "--all-targets"]);
    expect(allowed.code, allowed.stderr).toBe(0);
  }, 90_000);
});

describe("minUsers and the summary of plan --all-targets", () => {
  it("minUsers counts each target's slice; a target's own overrides the shared one", async () => {
    // 3 people in the source, 2 in retail's slice, 1 in energy's.
    await configure(
      [
        { name: "retail", select: { groups: ["bu-retail"] } },
        { name: "energy", select: { groups: ["bu-energy"] }, minUsers: 1 },
      ],
      { minUsers: 3 },
    );
    const r = await run(["plan", "--all-targets"]);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toMatch(/retail\s+exit 4/);
    expect(r.stdout).toMatch(/energy\s+exit 0/);
    expect(r.stderr).toContain("target retail's slice of");
    expect(r.stderr).toContain("gave 2 user(s), fewer than source.minUsers (3)");
    expect(retail.requestLog()).toHaveLength(0);
  }, 90_000);

  it("says changes planned for a plan with steps, exit 0 without --detailed-exitcode", async () => {
    await configure([
      { name: "retail", select: { groups: ["bu-retail"] } },
      { name: "energy", select: { groups: ["bu-energy"] } },
    ]);
    const r = await run(["plan", "--all-targets"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/retail\s+exit 0 {2}changes planned/);
    expect(r.stdout).toMatch(/energy\s+exit 0 {2}changes planned/);
    expect(r.stdout).not.toMatch(/no changes/);
  }, 90_000);
});
