/**
 * Data filters end to end through the built CLI (issues 29 and 37), the emulator's state checked
 * after EVERY write (not only at the end): nobody reaches a workspace (own grant, a group's, a
 * parent group's, a hierarchy grant) while a filter they must have there, or on a workspace above
 * it, is missing or says something that is neither its old nor its new condition.
 *
 * - `kill -9` at random moments: onboarding a team whose access comes with a filter and people
 *   with filters of their own; then, in full mode, movers to a team without access who drop their
 *   own filters, under a parent workspace's filter. The runs converge, a re-plan is empty, the
 *   filter made by hand is untouched.
 * - The four ways a filter leaked (issue 37):
 *   1. a mover to a team without access: their filter goes after the move, and it is no widening;
 *   2. people usersync may not touch (outside policy.scope, protected through their login's
 *      email) neither gain nor lose a filter, and the plan names them with the reason;
 *   3. filters in the file on a workspace usersync may grant, `dataFilters.workspaces` unset:
 *      exit 4 before any request, in `validate --config` too;
 *   4. a filter on a parent workspace guards the workspaces below: dropping it while the group
 *      keeps access on a child is a widening, held back (exit 3) until allowed.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { managedFilterId, renderMaql, MANAGED_TAG } from "../../src/data-filters.js";
import { startEmulator, type EmulatorSeed } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { filterLeaks, type RequiredFilters } from "../helpers/filter-invariant.js";
import { runCli, startCli, withTempDir } from "./run-cli.js";

// Each case runs the built CLI a few times on a shared machine.
vi.setConfig({ testTimeout: 240_000 });

const TOKEN = "filters-e2e-token";
const base = {
  USERSYNC_TOKEN: TOKEN,
  USERSYNC_PERMISSIONS_WORKSPACES: "all",
  USERSYNC_DATA_FILTERS_WORKSPACES: "all",
  USERSYNC_IDENTITY_PASSWORDS: "none",
  USERSYNC_EXECUTION_CONCURRENCY: "4",
};

const person = (id: string, email = `${id}@x.com`) => ({
  idp: { email, displayName: id, authenticationId: `auth-${id}` },
  mapping: (groups: string[]) => ({ id, authenticationId: `auth-${id}`, email, groups }),
});
const ownFilter = (ws: string, a: { user?: string; userGroup?: string }, values: string[]) => ({
  workspace: ws,
  id: managedFilterId(
    ws,
    a.user !== undefined ? { type: "user", id: a.user } : { type: "userGroup", id: a.userGroup! },
  ),
  maql: renderMaql("region", values),
  tags: [MANAGED_TAG],
  ...a,
});

/** An emulator whose state is checked after each write; `leaks` collects what broke the promise. */
async function watched(
  seed: EmulatorSeed,
  required: RequiredFilters,
): Promise<{ emu: EmulatorHandle; leaks: string[]; writes: () => number }> {
  const leaks: string[] = [];
  // onRequest runs only for requests, all sent once the emulator has started.
  const emu: EmulatorHandle = await startEmulator({
    port: 0,
    seed,
    tokens: { [TOKEN]: "admin" },
    onRequest: (e) => {
      if (e.method !== "GET")
        leaks.push(...filterLeaks(emu.state(), required).map((l) => `${e.method} ${e.url}: ${l}`));
    },
  });
  return { emu, leaks, writes: () => emu.requestLog().filter((e) => e.method !== "GET").length };
}

const HAND_MADE = {
  workspace: "sales",
  id: "hand-made",
  maql: '{label/region} = "X"',
  userGroup: "auditors",
};
const PEOPLE = 16;
/** Every fourth person has finance access with a filter of their own; in `moved`, they go to interns and drop it. */
function teams(moved: boolean): string {
  const people = Array.from({ length: PEOPLE }, (_, i) => {
    const mover = i % 4 === 0;
    const own = !mover
      ? ""
      : moved
        ? "    workspaces: {}\n    dataFilters: {}\n"
        : `    workspaces:\n      finance: [VIEW]\n    dataFilters:\n      finance: {label: cost_center, values: ["${i}"]}\n`;
    const group = mover && moved ? "interns" : i % 2 === 0 ? "sales-emea" : "sales";
    return `  - email: p${i}@x.com\n    id: p${i}\n    groups: [${group}]\n${own}`;
  }).join("");
  return `version: 1
groups:
  - id: auditors
  - id: interns
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
  - {email: admin@x.com, id: admin, groups: []}
${people}`;
}

/** The filters a run must keep whenever their holders reach: the old ones (none is a widening) and the new ones. */
function requiredFrom(emu: EmulatorHandle, moved: boolean): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (k: string, maql: string): void => void out.set(k, [...(out.get(k) ?? []), maql]);
  for (const f of emu.state().dataFilters ?? [])
    if (f.id !== HAND_MADE.id)
      add(`${f.workspace}|${f.user ? `user/${f.user}` : `userGroup/${f.userGroup}`}`, f.maql);
  add("sales|userGroup/sales", renderMaql("region", ["EMEA", "APAC"]));
  add("sales-emea|userGroup/sales-emea", renderMaql("region", ["EMEA"]));
  if (!moved)
    for (let i = 0; i < PEOPLE; i += 4) add(`finance|user/p${i}`, renderMaql("cost_center", [String(i)]));
  return out;
}

describe("data filters through the CLI, killed with SIGKILL at random moments", () => {
  it("never leave anyone with access and without their filter, onboarding then moving people", async () => {
    const required = new Map<string, string[]>();
    const { emu, leaks, writes } = await watched(
      {
        idpUsers: [admin.idp],
        mappings: [admin.mapping([])],
        groups: [{ id: "auditors" }],
        workspaces: [{ id: "sales" }, { id: "sales-emea", parent: "sales" }, { id: "finance" }],
        dataFilters: [HAND_MADE],
      },
      required,
    );
    try {
      await withTempDir(async (dir) => {
        const file = join(dir, "users.yaml");
        const args = ["--desired", file, "--base-url", emu.url];
        for (const moved of [false, true]) {
          await writeFile(file, teams(moved));
          // The movers' finance grants go (their own filters with them): no permission guard in the way.
          const env = {
            ...base,
            USERSYNC_POLICY_MODE: moved ? "full" : "incremental",
            USERSYNC_PERMISSIONS_MAX_REMOVALS: "100%",
          };
          required.clear();
          for (const [k, v] of requiredFrom(emu, moved)) required.set(k, v);
          // Slow writes a little, so a kill lands in the middle of the apply.
          emu.setFaults({ latencyMs: 4, jitterMs: 8 });
          let finished = false;
          for (let kill = 0; kill < 3 && !finished; kill++) {
            const before = writes();
            const { child, done } = startCli(["apply", "--yes", ...args], { env });
            const after = 1 + Math.floor(Math.random() * 12);
            const timer = setInterval(() => {
              if (writes() - before >= after) child.kill("SIGKILL");
            }, 2);
            const result = await done;
            clearInterval(timer);
            finished = result.code === 0;
            expect(leaks, `after kill ${kill}`).toEqual([]);
          }
          emu.setFaults({});
          // No widening: a mover's filter goes once the move has taken the access away.
          const last = await runCli(["apply", "--yes", ...args], { env });
          expect(last.code, last.stdout + last.stderr).toBe(0);
          expect(leaks).toEqual([]);
          const again = await runCli(["plan", "--detailed-exitcode", ...args], { env });
          expect(again.code, again.stdout).toBe(0);
        }
        const state = emu.state();
        expect(state.dataFilters).toContainEqual(HAND_MADE);
        expect(state.dataFilters?.some((f) => f.workspace === "finance")).toBe(false);
        expect(state.mappings.find((m) => m.id === "p0")?.groups).toEqual(["interns"]);
        expect(emu.requestLog().some((e) => e.url.includes("/layout/") && e.method === "PUT")).toBe(false);
      });
    } finally {
      await emu.close();
    }
  });
});

interface PlanJson {
  steps: Array<{ id: string; kind: string; status: string; widening?: boolean; dependsOn: string[] }>;
  notices: Array<{ kind: string; target: string; message: string }>;
}

async function planJson(
  dir: string,
  args: string[],
  env: Record<string, string>,
): Promise<PlanJson & { code: number | null; out: string }> {
  const file = join(dir, `plan-${Math.random().toString(36).slice(2)}.json`);
  const r = await runCli(["plan", ...args, "--out", file], { env });
  return {
    ...(JSON.parse(await readFile(file, "utf8")) as PlanJson),
    code: r.code,
    out: r.stdout + r.stderr,
  };
}

const admin = person("admin");

describe("issue 37: a mover to a team without access", () => {
  it("loses the access first, then the filter, with no widening counted", async () => {
    const m1 = person("m1");
    const s1 = person("s1");
    const old = renderMaql("region", ["EMEA"]);
    const { emu, leaks } = await watched(
      {
        idpUsers: [admin.idp, m1.idp, s1.idp],
        mappings: [admin.mapping([]), m1.mapping(["sales"]), s1.mapping(["sales"])],
        groups: [{ id: "sales" }, { id: "interns" }],
        workspaces: [{ id: "ws-sales", permissions: [{ userGroup: "sales", permissions: ["VIEW"] }] }],
        dataFilters: [
          ownFilter("ws-sales", { user: "m1" }, ["EMEA"]),
          ownFilter("ws-sales", { user: "s1" }, ["APAC"]),
        ],
      },
      new Map([
        ["ws-sales|user/m1", [old]],
        ["ws-sales|user/s1", [renderMaql("region", ["APAC"])]],
      ]),
    );
    try {
      await withTempDir(async (dir) => {
        const file = join(dir, "users.yaml");
        await writeFile(
          file,
          `version: 1
groups:
  - id: sales
    workspaces: {ws-sales: [VIEW]}
  - id: interns
users:
  - {email: admin@x.com, id: admin, groups: []}
  - email: m1@x.com
    id: m1
    groups: [interns]
    dataFilters: {}
  - email: s1@x.com
    id: s1
    groups: [sales]
    dataFilters:
      ws-sales: {label: region, values: [APAC]}
`,
        );
        const env = { ...base, USERSYNC_POLICY_MODE: "full" };
        const args = ["--desired", file, "--base-url", emu.url];
        const p = await planJson(dir, args, env);
        const del = p.steps.find((s) => s.id === "deleteDataFilter:ws-sales/user/m1");
        expect(del, p.out).toMatchObject({ widening: false, status: "planned" });
        // It waits for the step that takes m1 out of sales (a bulk removeMembers or the mapping's update).
        expect(del!.dependsOn.some((d) => d === "removeMembers:sales" || d === "updateMapping:m1")).toBe(
          true,
        );
        const r = await runCli(["apply", "--yes", ...args], { env });
        expect(r.code, r.stderr).toBe(0);
        expect(leaks).toEqual([]);
        const s = emu.state();
        expect(s.mappings.find((m) => m.id === "m1")?.groups).toEqual(["interns"]);
        expect(s.dataFilters?.map((f) => f.user)).toEqual(["s1"]);
        const again = await runCli(["plan", "--detailed-exitcode", ...args], { env });
        expect(again.code, again.stdout).toBe(0);
      });
    } finally {
      await emu.close();
    }
  });
});

describe("issue 37: people usersync may not touch", () => {
  it("neither gain nor lose a filter, and the plan names them with the reason", async () => {
    const x = person("x");
    const y = person("y");
    const z = person("z", "boss@x.com");
    const yFilter = ownFilter("ws-fin", { user: "y" }, ["Y"]);
    const { emu, leaks } = await watched(
      {
        idpUsers: [admin.idp, x.idp, y.idp, z.idp],
        // x and y are mapped only in finance (outside policy.scope.groups: [sales]); z's login is boss@x.com.
        mappings: [
          admin.mapping([]),
          x.mapping(["finance"]),
          y.mapping(["finance"]),
          { id: "z", authenticationId: "auth-z", groups: ["sales"] },
        ],
        groups: [{ id: "sales" }, { id: "finance" }],
        workspaces: [
          {
            id: "ws-fin",
            permissions: [
              { userGroup: "finance", permissions: ["VIEW"] },
              { userGroup: "sales", permissions: ["VIEW"] },
            ],
          },
        ],
        dataFilters: [yFilter],
      },
      new Map([["ws-fin|user/y", [yFilter.maql]]]),
    );
    try {
      await withTempDir(async (dir) => {
        const file = join(dir, "users.yaml");
        const wants = (id: string, email: string) =>
          `  - email: ${email}\n    id: ${id}\n    groups: [sales]\n    dataFilters:\n      ws-fin: {label: region, values: [${id.toUpperCase()}2]}\n`;
        await writeFile(
          file,
          `version: 1\nusers:\n${wants("x", "x@x.com")}  - email: y@x.com\n    id: y\n    groups: [sales]\n    dataFilters: {}\n${wants("z", "z@x.com")}`,
        );
        const env = {
          ...base,
          USERSYNC_POLICY_MODE: "full",
          USERSYNC_POLICY_SCOPE_GROUPS: "sales",
          USERSYNC_POLICY_PROTECT: "boss@x.com",
          USERSYNC_POLICY_DELETIONS: "none",
        };
        const args = ["--desired", file, "--base-url", emu.url];
        const p = await planJson(dir, args, env);
        expect(p.steps.filter((s) => s.kind.endsWith("DataFilter")).map((s) => s.id)).toEqual([]);
        const said = (target: string) => p.notices.filter((n) => n.target === target).map((n) => n.message);
        expect(said("mapping:x")).toContain("outside policy.scope; its data filters are not planned");
        expect(said("mapping:y")).toContain("outside policy.scope; its data filters are not planned");
        expect(said("mapping:z")).toContain("protected by policy; its data filters are not planned");
        const before = emu.state().dataFilters;
        const r = await runCli(["apply", "--yes", ...args], { env });
        expect(r.code, r.stderr).toBe(0);
        expect(emu.state().dataFilters).toEqual(before);
        expect(leaks).toEqual([]);
      });
    } finally {
      await emu.close();
    }
  });
});

describe("issue 37: filters in the file, dataFilters.workspaces unset", () => {
  it("is refused before any request (exit 4), by apply and by validate --config", async () => {
    const { emu } = await watched(
      { mappings: [admin.mapping([])], workspaces: [{ id: "ws-fin" }, { id: "ws-hr" }] },
      new Map(),
    );
    try {
      await withTempDir(async (dir) => {
        const file = join(dir, "users.yaml");
        await writeFile(
          file,
          `version: 1
groups:
  - id: fin
    workspaces: {ws-fin: [VIEW]}
    dataFilters:
      ws-fin: {label: region, values: [EMEA]}
      ws-hr: {label: region, values: [EMEA]}
users:
  - {email: a@x.com, id: a, groups: [fin]}
`,
        );
        const config = join(dir, "usersync.yaml");
        await writeFile(config, "permissions:\n  workspaces: all\nidentity:\n  passwords: none\n");
        const env = { USERSYNC_TOKEN: TOKEN };
        const r = await runCli(
          ["apply", "--yes", "--config", config, "--desired", file, "--base-url", emu.url],
          { env },
        );
        expect(r.code, r.stderr).toBe(4);
        expect(r.stderr).toMatch(/ws-fin.*ws-hr/);
        expect(r.stderr).toContain("dataFilters.workspaces is not set");
        expect(emu.requestLog()).toEqual([]);
        const v = await runCli(["validate", "--config", config, file], { env });
        expect(v.code, v.stdout).toBe(4);
        expect(v.stdout).toContain("filters-not-managed");
        expect(v.stdout).toContain("dataFilters.workspaces");
      });
    } finally {
      await emu.close();
    }
  });
});

describe("issue 37: a filter on a parent workspace", () => {
  const seed = (): EmulatorSeed => ({
    idpUsers: [admin.idp, person("e1").idp],
    mappings: [admin.mapping([]), person("e1").mapping(["emea"])],
    groups: [{ id: "emea" }],
    workspaces: [
      { id: "ws-sales" },
      {
        id: "ws-sales-emea",
        parent: "ws-sales",
        permissions: [{ userGroup: "emea", permissions: ["VIEW"] }],
      },
    ],
    dataFilters: [ownFilter("ws-sales", { userGroup: "emea" }, ["EMEA"])],
  });
  const desired = (o: { access: boolean; filter: string }) => `version: 1
groups:
  - id: emea
    workspaces: {${o.access ? "ws-sales-emea: [VIEW]" : ""}}
    dataFilters: {${o.filter}}
users:
  - {email: admin@x.com, id: admin, groups: []}
  - {email: e1@x.com, id: e1, groups: [emea]}
`;
  const old = renderMaql("region", ["EMEA"]);

  it("dropping or widening it while the group keeps access below is a widening, held back until allowed", async () => {
    const { emu, leaks } = await watched(seed(), new Map([["ws-sales|userGroup/emea", [old]]]));
    try {
      await withTempDir(async (dir) => {
        const file = join(dir, "users.yaml");
        const env = { ...base, USERSYNC_POLICY_MODE: "full" };
        const args = ["--desired", file, "--base-url", emu.url];
        await writeFile(
          file,
          desired({ access: true, filter: "ws-sales: {label: region, values: [EMEA, APAC]}" }),
        );
        const widened = await planJson(dir, args, env);
        expect(widened.steps.find((s) => s.kind === "updateDataFilter")).toMatchObject({
          widening: true,
          status: "heldBack",
        });
        await writeFile(file, desired({ access: true, filter: "" }));
        const held = await runCli(["apply", "--yes", ...args], { env });
        expect(held.code, held.stdout + held.stderr).toBe(3);
        expect(held.stdout).toContain("--allow-filter-widenings 1");
        expect(emu.state().dataFilters).toHaveLength(1);
        expect(leaks).toEqual([]);
        const allowed = await runCli(["apply", "--yes", "--allow-filter-widenings", "1", ...args], { env });
        expect(allowed.code, allowed.stderr).toBe(0);
        expect(emu.state().dataFilters ?? []).toEqual([]);
      });
    } finally {
      await emu.close();
    }
  });

  it("dropping it with the access below is no widening, and the access goes first", async () => {
    const { emu, leaks } = await watched(seed(), new Map([["ws-sales|userGroup/emea", [old]]]));
    try {
      await withTempDir(async (dir) => {
        const file = join(dir, "users.yaml");
        await writeFile(file, desired({ access: false, filter: "" }));
        const env = { ...base, USERSYNC_POLICY_MODE: "full" };
        const r = await runCli(["apply", "--yes", "--desired", file, "--base-url", emu.url], { env });
        expect(r.code, r.stdout + r.stderr).toBe(0);
        expect(emu.state().dataFilters ?? []).toEqual([]);
        expect(emu.state().workspaces?.find((w) => w.id === "ws-sales-emea")?.permissions ?? []).toEqual([]);
        expect(leaks).toEqual([]);
      });
    } finally {
      await emu.close();
    }
  });
});
