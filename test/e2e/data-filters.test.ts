/**
 * Data filters end to end through the built CLI (issue 29): onboard a team whose access comes
 * with a filter, and people with filters of their own, killing the apply with SIGKILL at random
 * moments. After every kill the emulator's state is checked: nobody reaches a workspace (own
 * grant, a group's, a parent group's) without every filter the desired state gives them there.
 * The runs then converge, a re-plan is empty, and the filter made by hand is untouched.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator, type EmulatorSeed } from "../../src/emulator/index.js";
import type { EmulatorState } from "../../src/emulator/types.js";
import { runCli, startCli, withTempDir } from "./run-cli.js";

const TOKEN = "filters-e2e-token";
const env = {
  USERSYNC_TOKEN: TOKEN,
  USERSYNC_PERMISSIONS_WORKSPACES: "all",
  USERSYNC_DATA_FILTERS_WORKSPACES: "all",
  USERSYNC_IDENTITY_PASSWORDS: "none",
  USERSYNC_EXECUTION_CONCURRENCY: "4",
};

const HAND_MADE = {
  workspace: "sales",
  id: "hand-made",
  maql: '{label/region} = "X"',
  userGroup: "auditors",
};
const seed: EmulatorSeed = {
  mappings: [{ id: "admin", groups: [] }],
  groups: [{ id: "auditors" }],
  workspaces: [{ id: "sales" }, { id: "sales-emea", parent: "sales" }, { id: "finance" }],
  dataFilters: [HAND_MADE],
};

const PEOPLE = 16;
const DESIRED = `version: 1
groups:
  - id: sales
    workspaces:
      sales: [VIEW]
    dataFilters:
      sales: {label: region, values: [EMEA, APAC]}
  - id: sales-emea
    parents: [sales]
    workspaces:
      sales-emea: [VIEW]
    dataFilters:
      sales-emea: {label: region, values: [EMEA]}
users:
${Array.from({ length: PEOPLE }, (_, i) => {
  const own =
    i % 4 === 0
      ? `    workspaces:\n      finance: [VIEW]\n    dataFilters:\n      finance: {label: cost_center, values: ["${i}"]}\n`
      : "";
  return `  - email: p${i}@x.com\n    id: p${i}\n    groups: [${i % 2 === 0 ? "sales-emea" : "sales"}]\n${own}`;
}).join("")}`;

/** The filters the desired state wants, as `workspace|type/id`. */
const WANTED = new Set([
  "sales|userGroup/sales",
  "sales-emea|userGroup/sales-emea",
  ...Array.from({ length: PEOPLE }, (_, i) => i)
    .filter((i) => i % 4 === 0)
    .map((i) => `finance|user/p${i}`),
]);

/** Who reaches which workspace without a wanted filter, on the emulator's state. */
function unfiltered(s: EmulatorState): string[] {
  const parents = new Map(s.groups.map((g) => [g.id, g.parents]));
  const wsParent = new Map((s.workspaces ?? []).map((w) => [w.id, w.parent]));
  const grants = new Set<string>();
  for (const w of s.workspaces ?? [])
    for (const g of w.permissions ?? []) {
      const who = g.user !== undefined ? `user/${g.user}` : `userGroup/${g.userGroup}`;
      if ((g.permissions ?? []).length > 0) grants.add(`${w.id}|${who}`);
      // Hierarchy permissions reach every workspace below.
      if ((g.hierarchy ?? []).length > 0)
        for (const c of s.workspaces ?? [])
          for (let at = c.id as string | undefined; at; at = wsParent.get(at))
            if (at === w.id) grants.add(`${c.id}|${who}`);
    }
  const filters = new Set(
    (s.dataFilters ?? []).map(
      (f) => `${f.workspace}|${f.user !== undefined ? `user/${f.user}` : `userGroup/${f.userGroup}`}`,
    ),
  );
  const out: string[] = [];
  for (const m of s.mappings) {
    const groups = new Set<string>();
    const walk = (g: string): void => {
      if (groups.has(g)) return;
      groups.add(g);
      for (const p of parents.get(g) ?? []) walk(p);
    };
    for (const g of m.groups) walk(g);
    const holders = [`user/${m.id}`, ...[...groups].map((g) => `userGroup/${g}`)];
    for (const w of s.workspaces ?? []) {
      if (!holders.some((h) => grants.has(`${w.id}|${h}`))) continue;
      for (const h of holders)
        if (WANTED.has(`${w.id}|${h}`) && !filters.has(`${w.id}|${h}`))
          out.push(`${m.id} on ${w.id} without ${h}'s filter`);
    }
  }
  return out;
}

describe("data filters through the CLI", () => {
  it("killed with SIGKILL at random moments, never leaves anyone with access and without their filter", async () => {
    const emulator = await startEmulator({ port: 0, seed, tokens: { [TOKEN]: "admin" } });
    try {
      await withTempDir(async (dir) => {
        const file = join(dir, "users.yaml");
        await writeFile(file, DESIRED);
        const args = ["--desired", file, "--base-url", emulator.url];
        // Slow writes a little, so a kill lands in the middle of the apply.
        emulator.setFaults({ latencyMs: 4, jitterMs: 8 });
        let finished = false;
        for (let kill = 0; kill < 4 && !finished; kill++) {
          const writes = (): number => emulator.requestLog().filter((e) => e.method !== "GET").length;
          const before = writes();
          const { child, done } = startCli(["apply", "--yes", ...args], { env });
          const after = 1 + Math.floor(Math.random() * 12);
          const timer = setInterval(() => {
            if (writes() - before >= after) child.kill("SIGKILL");
          }, 2);
          const result = await done;
          clearInterval(timer);
          finished = result.code === 0;
          expect(unfiltered(emulator.state()), `after kill ${kill}`).toEqual([]);
        }
        emulator.setFaults({});
        const last = await runCli(["apply", "--yes", ...args], { env });
        expect(last.code, last.stderr).toBe(0);
        expect(unfiltered(emulator.state())).toEqual([]);
        const again = await runCli(["plan", "--detailed-exitcode", ...args], { env });
        expect(again.code, again.stdout).toBe(0);
        const state = emulator.state();
        expect(state.dataFilters).toContainEqual(HAND_MADE);
        expect(state.dataFilters?.length).toBe(WANTED.size + 1);
        expect(emulator.requestLog().some((e) => e.url.includes("/layout/") && e.method === "PUT")).toBe(
          false,
        );
      });
    } finally {
      await emulator.close();
    }
  });
});
