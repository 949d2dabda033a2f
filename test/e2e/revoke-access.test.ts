/**
 * `deletions: revoke` for people who sign in through the organization's OIDC provider, through
 * the built CLI against the emulator (docs/configuration.md, "What revoke does"): a leaver keeps
 * no group, no managed direct grant and no managed data filter after apply, their mapping stays,
 * a second plan is empty, `maxDeletes` holds the revoke back (exit 3) with nothing of it sent,
 * and a person who comes back gets their access back.
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

const TOKEN = "revoke-token";
let dir: string;
let emulator: EmulatorHandle;

const sso = (id: string, groups: string[]) => ({
  id,
  email: `${id}@example.com`,
  authenticationId: `sub-${id}`,
  groups,
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-revoke-access-"));
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    // Everyone signs in through the organization's OIDC provider: no built-in logins.
    signIn: { oauthIssuerLocation: "https://login.example.com/" },
    seed: {
      groups: [{ id: "sales" }, { id: "analysts" }],
      mappings: [sso("jane", ["sales", "analysts"]), sso("ann", ["sales"]), sso("bob", ["sales"])],
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
    },
  });
  await writeFile(
    join(dir, "usersync.yaml"),
    stringify({
      target: { baseUrl: emulator.url },
      source: { desired: join(dir, "people.yaml") },
      identity: { default: "external" },
      policy: { mode: "full", maxDeletes: 1 },
      permissions: { workspaces: ["sales-*"] },
      dataFilters: { workspaces: ["sales-*"] },
      execution: { requestsPerSecond: 10_000 },
      logging: { level: "warn", format: "json" },
    }),
  );
});
afterAll(async () => {
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The desired state: the team (with its grant and a filter of bob's) and the people named. */
async function people(names: Record<string, string[]>): Promise<void> {
  await writeFile(
    join(dir, "people.yaml"),
    stringify({
      version: 1,
      groups: [{ id: "sales", workspaces: { "sales-emea": ["VIEW"] } }, { id: "analysts" }],
      users: Object.entries(names).map(([id, groups]) => ({
        email: `${id}@example.com`,
        id,
        authenticationId: `sub-${id}`,
        groups,
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
    mapped: s.mappings.some((m) => m.id === id),
    groups: s.mappings.find((m) => m.id === id)?.groups,
    grants: (s.workspaces ?? []).flatMap((w) => (w.permissions ?? []).filter((p) => p.user === id)),
    filters: (s.dataFilters ?? []).filter((f) => f.user === id).map((f) => f.id),
  };
}

describe("a leaver who signs in through the identity provider (deletions: revoke)", () => {
  it("over maxDeletes the revoke is held back whole: exit 3, nothing of it sent", async () => {
    await people({ bob: ["sales"] }); // jane and ann both left; maxDeletes is 1
    const before = { jane: accessOf("jane"), ann: accessOf("ann") };
    const r = await cli("apply", "--yes");
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/user jane: revoke: access revoked \(signs in through the identity provider/);
    expect(r.stdout).toMatch(/2 people to revoke or remove, 1 allowed/);
    expect(r.stdout).not.toMatch(/revoked\)/); // nobody is said to be done
    expect(accessOf("jane")).toEqual(before.jane);
    expect(accessOf("ann")).toEqual(before.ann);
    expect(accessOf("jane").filters).toHaveLength(1);
  }, 120_000);

  it("within the limit: no group, grant or filter left, the mapping stays; a second plan is empty", async () => {
    await people({ bob: ["sales"], ann: ["sales"] });
    const plan = await cli("plan");
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/People\s+1 to revoke/);
    const r = await cli("apply", "--yes");
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(accessOf("jane")).toEqual({ mapped: true, groups: [], grants: [], filters: [] });
    // Bob's filter was made; the team's grant stays.
    expect(accessOf("bob").filters).toHaveLength(1);
    const again = await cli("plan", "--detailed-exitcode");
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toMatch(/No changes/);
    // The access review sees her with no access left (her login is at the identity provider).
    const review = await cli("review", "--format", "json");
    expect(review.code, review.stderr).toBe(0);
    const snapshot = JSON.parse(review.stdout) as {
      people: Array<Record<string, unknown>>;
      rows: Array<{ person: string }>;
    };
    expect(snapshot.people.find((p) => p["id"] === "jane")).toMatchObject({ login: "external" });
    // No row: no workspace reached, no organization permission held.
    expect(snapshot.rows.filter((r) => r.person === "jane")).toEqual([]);
  }, 120_000);

  it("a person who comes back gets their access back", async () => {
    await people({ bob: ["sales"], ann: ["sales"], jane: ["sales"] });
    const r = await cli("apply", "--yes");
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(accessOf("jane").groups).toEqual(["sales"]);
    expect((await cli("plan", "--detailed-exitcode")).code).toBe(0);
  }, 120_000);
});
