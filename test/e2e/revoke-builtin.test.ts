/**
 * `deletions: revoke` means no access, for a person with a built-in login too (issue 49, item 4;
 * docs/configuration.md "What revoke does"), through the built CLI against the emulator: over
 * `maxDeletes` nothing of the revoke is sent (exit 3); within it the leaver ends with no login, no
 * group, no managed grant, no managed filter and no API token, and their mapping stays; a person
 * who stays keeps their tokens; a returner gets their access back.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { managedFilterId, MANAGED_TAG, renderMaql } from "../../src/data-filters.js";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { runCli } from "./run-cli.js";

const TOKEN = "revoke-builtin-token";
let dir: string;
let emulator: EmulatorHandle;

const login = (id: string) => ({
  email: `${id}@example.com`,
  displayName: id,
  authenticationId: `auth-${id}`,
});
const mapped = (id: string, groups: string[]) => ({
  id,
  email: `${id}@example.com`,
  authenticationId: `auth-${id}`,
  groups,
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-revoke-builtin-"));
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    seed: {
      groups: [{ id: "sales" }, { id: "analysts" }],
      idpUsers: ["jane", "ann", "bob"].map(login),
      mappings: [mapped("jane", ["sales", "analysts"]), mapped("ann", ["sales"]), mapped("bob", ["sales"])],
      workspaces: [
        {
          id: "sales-emea",
          permissions: [
            { userGroup: "sales", permissions: ["VIEW"] },
            { user: "jane", permissions: ["VIEW", "EXPORT"] },
          ],
        },
      ],
      dataFilters: [
        {
          workspace: "sales-emea",
          id: managedFilterId("sales-emea", { type: "user", id: "jane" }),
          maql: renderMaql("region", ["EMEA"]),
          tags: [MANAGED_TAG],
          user: "jane",
        },
      ],
      apiTokens: [
        { user: "jane", id: "jane-laptop" },
        { user: "jane", id: "jane-ci" },
        { user: "bob", id: "bob-script" },
      ],
    },
  });
  await writeFile(
    join(dir, "usersync.yaml"),
    stringify({
      target: { baseUrl: emulator.url },
      source: { desired: join(dir, "people.yaml") },
      policy: { mode: "full", maxDeletes: 1, deletions: "revoke" },
      permissions: { workspaces: ["sales-*"] },
      dataFilters: { workspaces: ["sales-*"] },
      output: { credentialsFile: join(dir, "credentials.csv") },
      execution: { requestsPerSecond: 10_000 },
      logging: { level: "warn", format: "json" },
    }),
  );
});
afterAll(async () => {
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The desired state: each person's groups, or `absent` for a row marked `state: absent`. */
async function people(names: Record<string, string[] | "absent">): Promise<void> {
  await writeFile(
    join(dir, "people.yaml"),
    stringify({
      version: 1,
      groups: [{ id: "sales", workspaces: { "sales-emea": ["VIEW"] } }, { id: "analysts" }],
      users: Object.entries(names).map(([id, groups]) => ({
        email: `${id}@example.com`,
        id,
        displayName: id,
        ...(groups === "absent" ? { state: "absent" } : { groups }),
        ...(id === "bob" ? { dataFilters: { "sales-emea": { label: "region", values: ["EMEA"] } } } : {}),
      })),
    }),
  );
}

const cli = (...args: string[]) =>
  runCli([...args, "--config", join(dir, "usersync.yaml")], { env: { USERSYNC_TOKEN: TOKEN } });

function accessOf(id: string) {
  const s = emulator.state();
  return {
    login: s.idpUsers.some((u) => u.email === `${id}@example.com`),
    mapped: s.mappings.some((m) => m.id === id),
    groups: s.mappings.find((m) => m.id === id)?.groups,
    grants: (s.workspaces ?? []).flatMap((w) => (w.permissions ?? []).filter((p) => p.user === id)),
    filters: (s.dataFilters ?? []).filter((f) => f.user === id).map((f) => f.id),
    tokens: (s.apiTokens ?? []).filter((t) => t.user === id).map((t) => t.id),
  };
}

describe("a leaver with a built-in login (deletions: revoke)", () => {
  it("over maxDeletes: exit 3, and nothing of either revoke is sent", async () => {
    await people({ bob: ["sales"], jane: "absent", ann: "absent" }); // both left; maxDeletes is 1
    const before = { jane: accessOf("jane"), ann: accessOf("ann") };
    emulator.resetLog();
    const r = await cli("apply", "--yes");
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/2 people to revoke or remove, 1 allowed/);
    expect(emulator.requestLog().filter((e) => e.method === "DELETE")).toEqual([]);
    expect(accessOf("jane")).toEqual(before.jane);
    expect(accessOf("ann")).toEqual(before.ann);
    // The review lists a leaver's tokens (ids, never a value) and flags them; nobody else's is listed.
    const review = await cli("review", "--format", "json");
    expect(review.code, review.stderr).toBe(0);
    const parsed = JSON.parse(review.stdout) as {
      people: Array<{ id?: string; apiTokens?: string[] }>;
      findings: Array<{ kind: string; person: string; detail: string }>;
    };
    expect(parsed.people.find((p) => p.id === "jane")?.apiTokens).toEqual(["jane-ci", "jane-laptop"]);
    expect(parsed.people.find((p) => p.id === "ann")?.apiTokens).toEqual([]);
    expect(parsed.people.find((p) => p.id === "bob")?.apiTokens).toBeUndefined();
    const flagged = parsed.findings.filter((f) => f.kind === "leaverApiTokens");
    expect(flagged.map((f) => f.person)).toEqual(["jane"]);
    expect(flagged[0]?.detail).toMatch(/still has 2 API token\(s\) \(jane-ci, jane-laptop\)/);
  }, 120_000);

  it("within the limit: no login, group, grant, filter or API token left; the mapping stays", async () => {
    await people({ bob: ["sales"], ann: ["sales"] });
    const plan = await cli("plan");
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/People\s+1 to revoke/);
    expect(plan.stdout).toContain("jane-laptop");
    const r = await cli("apply", "--yes");
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(accessOf("jane")).toEqual({
      login: false,
      mapped: true,
      groups: [],
      grants: [],
      filters: [],
      tokens: [],
    });
    // Bob stays, and so does his token; the team's grant stays.
    expect(accessOf("bob").tokens).toEqual(["bob-script"]);
    const again = await cli("plan", "--detailed-exitcode");
    expect(again.code, again.stdout).toBe(0);
  }, 120_000);

  it("a person who comes back gets a login and their access back", async () => {
    await people({ bob: ["sales"], ann: ["sales"], jane: ["sales"] });
    const r = await cli("apply", "--yes");
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(accessOf("jane")).toMatchObject({ login: true, mapped: true, groups: ["sales"] });
    expect((await cli("plan", "--detailed-exitcode")).code).toBe(0);
  }, 120_000);
});
