/**
 * What the changes-only tests through the built CLI share (test/e2e/changes-*.test.ts, issue 48):
 * an emulator whose organization an admin has set up (workspaces, grants and data filters held by
 * user groups, one group nested in another), the config of a frequent run
 * (`source.changes.mode: changes`, `fullEvery: 0`), the changes file kept beside the state, a
 * mapping made by hand, and what a person reaches on the emulator's store, worked out from the
 * store and the service's rules (shared/spec/access-rules.md), never from usersync's code.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import { expectedAccess } from "../e2e/review-expected.js";
import type {
  EmulatorHandle,
  EmulatorSignIn,
  EmulatorState,
  SeedWorkspace,
} from "../../src/emulator/types.js";

/**
 * The organization as its admin set it up: `platform` (a directory group usersync manages the
 * members of) nested in `everyone` (a group of the admin's); `everyone` holds VIEW on `demo` and
 * every workspace below it and a filter there, `platform` ANALYZE on `demo-eu` and a filter there.
 * usersync manages neither grants nor filters in these tests: a leaver loses them by leaving the
 * groups, and a changes-only run lists only the people it touches.
 */
export const ORGANIZATION = {
  workspaces: [
    { id: "demo", name: "Demo", permissions: [{ userGroup: "everyone", hierarchy: ["VIEW"] }] },
    {
      id: "demo-eu",
      name: "Demo EU",
      parent: "demo",
      permissions: [{ userGroup: "platform", permissions: ["ANALYZE"] }],
    },
  ] satisfies SeedWorkspace[],
  groups: [
    { id: "everyone", name: "Everyone" },
    { id: "platform", name: "Platform", parents: ["everyone"] },
  ],
  dataFilters: [
    { workspace: "demo", id: "everyone-emea", maql: '{label/region} = "EMEA"', userGroup: "everyone" },
    { workspace: "demo-eu", id: "platform-team", maql: '{label/team} = "platform"', userGroup: "platform" },
  ],
};

/** The emulator with that organization, `token` an admin's. */
export function startOrganization(token: string, signIn?: EmulatorSignIn): Promise<EmulatorHandle> {
  return startEmulator({
    port: 0,
    tokens: { [token]: "admin" },
    seed: ORGANIZATION,
    ...(signIn ? { signIn } : {}),
  });
}

export interface Reach {
  /** The groups the person is in, and every group above them (R3). */
  groups: string[];
  /** The workspaces they can view: their own grants (R1), a group's (R3), hierarchy grants (R2)... */
  workspaces: string[];
  /** The data filters that apply to them: their own and their groups' (R11, R13), anywhere. */
  filters: string[];
}

/**
 * What the mapping `userId` reaches on the emulator's store: the workspaces as the access review's
 * expected answer works them out (test/e2e/review-expected.ts, from the rules alone), its groups
 * and every filter it or one of its groups holds, on any workspace.
 */
export function reachOf(s: EmulatorState, userId: string): Reach {
  const mapping = s.mappings.find((m) => m.id === userId);
  const parents = new Map(s.groups.map((g) => [g.id, g.parents ?? []]));
  const groups = new Set<string>();
  const walk = (g: string): void => {
    if (groups.has(g)) return;
    groups.add(g);
    for (const p of parents.get(g) ?? []) walk(p);
  };
  for (const g of mapping?.groups ?? []) walk(g);
  const holds = (x: { user?: string; userGroup?: string }) =>
    mapping !== undefined && (x.user === userId || (x.userGroup !== undefined && groups.has(x.userGroup)));
  const workspaces = [...expectedAccess(s).rows]
    .filter(([key, row]) => key.startsWith(`${userId}|`) && row.reaches)
    .map(([key]) => key.slice(userId.length + 1));
  const filters = (s.dataFilters ?? []).filter(holds).map((f) => f.id);
  return { groups: [...groups].sort(), workspaces: workspaces.sort(), filters: filters.sort() };
}

export const NOTHING: Reach = { groups: [], workspaces: [], filters: [] };

/** A mapping made by hand in the organization, in groups usersync manages. */
export async function handMadeMapping(
  emulator: EmulatorHandle,
  token: string,
  o: { id: string; email: string; groups: string[] },
): Promise<void> {
  const res = await fetch(`${emulator.url}/api/v1/entities/users`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/vnd.gooddata.api+json" },
    body: JSON.stringify({
      data: {
        id: o.id,
        type: "user",
        attributes: { authenticationId: `${o.id}-login`, email: o.email },
        relationships: { userGroups: { data: o.groups.map((id) => ({ id, type: "userGroup" })) } },
      },
    }),
  });
  expect(res.status).toBe(201);
}

/** Writes the frequent run's config (`usersync.yaml` in `dir`): the source given, changes on. */
export async function writeChangesConfig(
  dir: string,
  o: { emulator: EmulatorHandle; source: Record<string, unknown>; extra?: Record<string, unknown> },
): Promise<string> {
  const file = join(dir, "usersync.yaml");
  const { changes, ...source } = o.source;
  await writeFile(
    file,
    stringify({
      target: { baseUrl: o.emulator.url, allowInsecureHttp: true },
      source: { ...source, changes: { mode: "changes", fullEvery: 0, ...(changes as object | undefined) } },
      policy: { deletions: "revoke", maxDeletes: "50%" },
      state: { file: join(dir, "state.json") },
      execution: { requestsPerSecond: 10_000 },
      logging: { format: "json" },
      ...o.extra,
    }),
  );
  return file;
}

/** The changes file beside `dir/state.json`, as text (to compare) and parsed. */
export async function readChangesFile(dir: string): Promise<{
  text: string;
  kept: {
    formatVersion: number;
    position: { streams: Record<string, string>; takenAt: string };
    digests: { groups: string; users: string[] };
  };
}> {
  const text = await readFile(join(dir, "state.changes.json"), "utf8");
  return { text, kept: JSON.parse(text) as never };
}

/** Rewrites the kept position (an expired or unknown one, as a test needs). */
export async function setPosition(
  dir: string,
  position: { streams?: Record<string, string>; takenAt?: string },
): Promise<void> {
  const { kept } = await readChangesFile(dir);
  const next = { ...kept, position: { ...kept.position, ...position } };
  await writeFile(join(dir, "state.changes.json"), JSON.stringify(next));
}

/** The writes the service was asked for since the last resetLog (a failed read must make none). */
export function serviceWrites(emulator: EmulatorHandle): string[] {
  return emulator
    .requestLog()
    .filter((r) => r.method !== "GET")
    .map((r) => `${r.method} ${r.url}`);
}

/** A directory's part in the scenario every changes-only file runs (`changesScenario`). */
export interface ScenarioDirectory {
  /** The frequent run's config, written in `dir`. */
  config(dir: string): Promise<string>;
  /** The service's token and any secret the source needs, as the CLI's environment. */
  env: Record<string, string>;
  /** The leaver: in `platform` (nested in the admin's `everyone`) and in `analytics_team`. */
  leaver: string;
  /** A person in `analytics_team` only: the change a broken feed must not write. */
  other: string;
  /** Disables (suspends, filters out) a person in the directory, by email. */
  disable(email: string): Promise<void>;
  /** What the leaver's run is expected to ask the directory: `mark()` gives what was asked after it (`pathsAskedAfter`). */
  feed?: { mark(): () => string[]; expected: string[] };
  /** Breaks the change feed (a fault at the stand-in) and mends it. */
  breakFeed(): Promise<void>;
  mendFeed(): Promise<void>;
  /** The stderr of a run whose feed is broken names it. */
  broken: RegExp;
  /** Makes the kept position one the directory no longer knows; the reason the run then gives. */
  expire: { run(dir: string): Promise<void>; reason: string };
  /** Checks of its own after the first run (the changes file's streams...). */
  afterFirst?(dir: string): Promise<void>;
}

/**
 * The scenario (issue 48, "done when"), five runs of the built CLI: a whole first run; a leaver
 * disabled in the directory loses every workspace and filter on a changes-only run that lists
 * only them, while a mapping made by hand is left; the full reconcile (`mode: whole`) catches it;
 * a broken feed is exit 5 with nothing written; a position the directory no longer knows is a
 * whole read. Hands back the config and `reach` (by email) for a file's own cases after it.
 */
export async function changesScenario(
  dir: string,
  emulator: EmulatorHandle,
  d: ScenarioDirectory,
  run: (
    args: string[],
    env: Record<string, string>,
  ) => Promise<{ code: number | null; stdout: string; stderr: string }>,
): Promise<{ config: string; reach: (email: string) => Reach }> {
  const config = await d.config(dir);
  const token = d.env["USERSYNC_TOKEN"]!;
  const apply = (extra: Record<string, string> = {}) =>
    run(["apply", "--config", config, "--yes"], { ...d.env, ...extra });
  const idOf = (email: string) => emulator.state().mappings.find((m) => m.email === email)?.id ?? email;
  const reach = (email: string) => reachOf(emulator.state(), idOf(email));

  const first = await apply();
  expect(first.code, first.stderr).toBe(0);
  expect(first.stdout).toMatch(/Read whole \(no-picture: no changes file yet\)/);
  expect(reach(d.leaver)).toEqual({
    groups: ["analytics_team", "everyone", "platform"],
    workspaces: ["demo", "demo-eu"],
    filters: ["everyone-emea", "platform-team"],
  });
  await d.afterFirst?.(dir);

  // The leaver is disabled in the directory; someone adds a mapping by hand to Platform.
  await d.disable(d.leaver);
  const intruder = "intruder@elsewhere.example";
  await handMadeMapping(emulator, token, { id: "intruder", email: intruder, groups: ["platform"] });
  const asked = d.feed?.mark();
  emulator.resetLog();
  const leaver = await apply();
  expect(leaver.code, leaver.stderr).toBe(0);
  expect(leaver.stdout).toMatch(/Read changes only: \d+ changes? since .*; listed 1 person on the service/);
  const reads = asked?.();
  if (reads) expect(reads).toEqual(d.feed!.expected);
  // The leaver's revoke and a targeted listing: a handful of requests (benchmarks.md has the figure at scale).
  const service = emulator.requestLog().length;
  console.log(`leaver run: ${reads?.length ?? "?"} directory reads, ${service} service requests`);
  expect(service).toBeLessThanOrEqual(12);
  expect(reach(d.leaver)).toEqual(NOTHING);
  // The changes-only run did not list the hand-made mapping: it still reaches both workspaces.
  expect(reach(intruder).workspaces).toEqual(["demo", "demo-eu"]);

  // The nightly full reconcile reads and lists whole, and catches it.
  const full = await apply({ USERSYNC_SOURCE_CHANGES_MODE: "whole" });
  expect(full.code, full.stderr).toBe(0);
  expect(full.stdout).toMatch(/Read whole \(asked: /);
  expect(reach(intruder)).toEqual(NOTHING);
  expect(reach(d.other)).toEqual({ groups: ["analytics_team"], workspaces: [], filters: [] });

  // Another leaver, and the feed fails after its retries: exit 5, nothing written.
  await d.disable(d.other);
  await d.breakFeed();
  const kept = await readChangesFile(dir);
  const state = await readFile(join(dir, "state.json"), "utf8");
  emulator.resetLog();
  const broken = await apply().finally(() => d.mendFeed());
  expect(broken.code, broken.stderr).toBe(5);
  expect(broken.stderr).toMatch(d.broken);
  expect(serviceWrites(emulator)).toEqual([]);
  expect((await readChangesFile(dir)).text).toBe(kept.text);
  expect(await readFile(join(dir, "state.json"), "utf8")).toBe(state);
  expect(reach(d.other).groups).toEqual(["analytics_team"]);

  // A position the directory no longer knows: a whole read, which sees the other leaver.
  await d.expire.run(dir);
  const expired = await apply();
  expect(expired.code, expired.stderr).toBe(0);
  expect(expired.stdout).toContain(`Read whole (${d.expire.reason}: `);
  expect(reach(d.other)).toEqual(NOTHING);
  return { config, reach };
}

/**
 * A `feed.mark` for a stand-in's request log (the array it appends to): the paths, without their
 * query, of the requests under `prefix` made after the mark.
 */
export function pathsAskedAfter(
  requests: ReadonlyArray<{ url: string }>,
  prefix: string,
): () => () => string[] {
  return () => {
    const at = requests.length;
    return () =>
      requests
        .slice(at)
        .filter((r) => r.url.startsWith(prefix))
        .map((r) => r.url.split("?")[0]!);
  };
}
