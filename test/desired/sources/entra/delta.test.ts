/**
 * Entra's changes-only read (docs/entra.md, "Changes-only runs") against the Graph stand-in over a
 * real socket: the first run reads whole and keeps its picture and delta links; later runs read
 * Graph's delta query since them. What a changes-only run gives is held against what a whole read
 * of the same tenant gives (the contract: the same desired state); an expired token or a looping
 * page reads whole; a change page that fails after its retries is exit 5.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exitCodeFor } from "../../../../src/errors.js";
import { createLogger } from "../../../../src/logging.js";
import { readSource, type ReadSourceResult } from "../../../../src/desired/sources/index.js";
import type { Kept } from "../../../../src/desired/sources/changes/run.js";
import type { DesiredState } from "../../../../src/desired/types.js";
import { configSchema, type Config } from "../../../../src/config/schema.js";
import type { GraphStandIn } from "../../../../src/emulator/graph/server.js";
import { entraSettings, G, SECRET, startStandIn, U } from "../../../helpers/entra.js";

const logger = createLogger({ level: "silent", format: "json" });
const env = { USERSYNC_ENTRA_CLIENT_SECRET: SECRET };
let graph: GraphStandIn;
beforeEach(async () => {
  graph = await startStandIn();
});
afterEach(() => graph.close());

function config(mode: "off" | "changes" = "changes", extra: Record<string, unknown> = {}): Config {
  return configSchema.parse({
    source: { type: "entra", entra: entraSettings(graph.url, extra), changes: { mode } },
    state: { file: "/unused/state.json" },
  });
}

async function run(kept: Kept, c = config()): Promise<ReadSourceResult> {
  return readSource({
    config: c,
    ctx: { env, logger, defaultIdentity: "builtin" },
    changes: { kept, now: Date.now() },
  });
}
const whole = () => readSource({ config: config("off"), ctx: { env, logger, defaultIdentity: "builtin" } });

/** Who is in the desired state, leaver or not, in which groups: what a plan is made from. */
function people(s: DesiredState) {
  return Object.fromEntries(s.users.map((u) => [u.email, `${u.state} ${(u.groups ?? []).join(",")}`]));
}
function groups(s: DesiredState) {
  return s.groups.map((g) => `${g.id} <${(g.parents ?? []).join(",")}>`).sort();
}
/** Graph requests (not the token's): what a run costs the directory. */
function graphReads(from: number): string[] {
  return graph.requests
    .slice(from)
    .filter((r) => r.path.startsWith("/v1.0/"))
    .map((r) => r.path);
}

async function firstRun(): Promise<ReadSourceResult & { keep: NonNullable<ReadSourceResult["keep"]> }> {
  const first = await run({ unusable: "no changes file yet" });
  expect(first.evidence.read).toMatchObject({ source: "whole", reason: "no-picture" });
  expect(first.keep).toBeDefined();
  return first as never;
}

describe("Entra changes-only reads", () => {
  it("reads whole first, then only the delta query when nothing changed, to the same desired state", async () => {
    const first = await firstRun();
    const base = await whole();
    expect(people(first.state)).toEqual(people(base.state));
    expect(groups(first.state)).toEqual(groups(base.state));
    const from = graph.requests.length;
    const next = await run(first.keep);
    expect(next.evidence.read).toMatchObject({ source: "changes", changes: 0 });
    expect(graphReads(from).sort()).toEqual(["/v1.0/groups/delta", "/v1.0/users/delta"]);
    expect(people(next.state)).toEqual(people(base.state));
  });

  it("a user disabled in a nested group becomes a leaver, from the users delta alone", async () => {
    const first = await firstRun();
    graph.changes.updateUser(U.ken, { accountEnabled: false });
    const from = graph.requests.length;
    const next = await run(first.keep);
    expect(next.evidence.read).toMatchObject({ source: "changes", changes: 1 });
    expect(graphReads(from)).toHaveLength(2);
    expect(people(next.state)["ken@contoso.com"]).toMatch(/^absent/);
    expect(people(next.state)).toEqual(people((await whole()).state));
  });

  it("a person added to a nested group reaches every picked group above it", async () => {
    const first = await firstRun();
    graph.changes.addUser({
      id: "1a000000-0000-4000-8000-000000000009",
      userPrincipalName: "zoe@contoso.onmicrosoft.com",
      mail: "zoe@contoso.com",
      displayName: "Zoe",
      accountEnabled: true,
      userType: "Member",
    });
    graph.changes.addMember(G.platform, "1a000000-0000-4000-8000-000000000009");
    const next = await run(first.keep);
    expect(next.evidence.read).toMatchObject({ source: "changes" });
    const zoe = people(next.state)["zoe@contoso.com"];
    // Platform is nested in Analytics Team, which is nested in All Staff: both picked.
    expect(zoe).toMatch(/^present /);
    expect(zoe!.split(" ")[1]!.split(",")).toHaveLength(2);
    expect(people(next.state)).toEqual(people((await whole()).state));
    // And removed again: gone from both.
    graph.changes.removeMember(G.platform, "1a000000-0000-4000-8000-000000000009");
    const after = await run(next.keep!);
    expect(people(after.state)["zoe@contoso.com"]).toBeUndefined();
    expect(people(after.state)).toEqual(people((await whole()).state));
  });

  it("a deleted user leaves; a kept picture carries over from run to run", async () => {
    const first = await firstRun();
    graph.changes.deleteUser(U.ada);
    const next = await run(first.keep);
    expect(people(next.state)["ada@contoso.com"]).toBeUndefined();
    expect(people(next.state)).toEqual(people((await whole()).state));
  });

  it("an expired delta token reads whole (410 syncStateNotFound), and says so", async () => {
    const first = await firstRun();
    graph.changes.expire();
    graph.changes.updateUser(U.ada, { accountEnabled: false });
    const next = await run(first.keep);
    expect(next.evidence.read).toMatchObject({ source: "whole", reason: "position-expired" });
    expect(next.evidence.read?.detail).toMatch(/410 syncStateNotFound/);
    expect(people(next.state)["ada@contoso.com"]).toMatch(/^absent/);
  });

  it("a delta page that loops reads whole (broken-page)", async () => {
    const first = await firstRun();
    graph.faults.push({ kind: "loop", path: "/groups/delta" });
    const next = await run(first.keep);
    expect(next.evidence.read).toMatchObject({ source: "whole", reason: "broken-page" });
  });

  it("a delta page that fails after its retries is exit 5", async () => {
    const first = await firstRun();
    graph.faults.push({ kind: "status", status: 500, path: "/users/delta", times: Infinity });
    let code = 0;
    try {
      await run(first.keep);
    } catch (err) {
      code = exitCodeFor(err);
    }
    expect(code).toBe(5);
  }, 30_000);

  it("another config's picture, or the full reconcile due, reads whole", async () => {
    const first = await firstRun();
    const other = await run(first.keep, config("changes", { includeGuests: true }));
    expect(other.evidence.read).toMatchObject({ source: "whole", reason: "config-changed" });
    const old = { ...first.keep, fullAt: "2000-01-01T00:00:00.000Z" };
    const due = await run(old);
    expect(due.evidence.read).toMatchObject({ source: "whole", reason: "full-reconcile" });
  });
});
