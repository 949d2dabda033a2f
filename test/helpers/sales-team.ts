/**
 * The sales team the `deletions: revoke` e2e files share (revoke-access: people who sign in
 * through the organization's identity provider; revoke-builtin: people with a built-in login):
 * jane, ann and bob in `sales` (jane in `analysts` too), `sales` with VIEW on `sales-emea`, jane
 * with a direct VIEW+EXPORT there and a managed data filter (the emulator's seed); the built CLI's config and desired
 * state in a temporary folder; what a person still holds, read from the emulator's state.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { managedFilterId, MANAGED_TAG, renderMaql } from "../../src/data-filters.js";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorOptions, EmulatorSeed } from "../../src/emulator/types.js";
import { runCli, type CliResult } from "../e2e/run-cli.js";

export const TEAM = ["jane", "ann", "bob"] as const;
const TEAM_GROUPS: Record<(typeof TEAM)[number], string[]> = {
  jane: ["sales", "analysts"],
  ann: ["sales"],
  bob: ["sales"],
};

const SEED: EmulatorSeed = {
  groups: [{ id: "sales" }, { id: "analysts" }],
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
};

/** What a revoked leaver holds (docs/configuration.md "What revoke does"): their mapping, nothing else. */
export const REVOKED = { login: false, mapped: true, groups: [], grants: [], filters: [], tokens: [] };

export interface SalesTeam {
  emulator: EmulatorHandle;
  /** The built CLI with the team's config and token. */
  cli(...args: string[]): Promise<CliResult>;
  /** Writes the desired state: the team's groups and these people (bob with a filter of his own). */
  people(users: Array<Record<string, unknown> & { id: string }>): Promise<void>;
  /** What a person holds: login, mapping, groups, direct grants, filters, API tokens. */
  accessOf(id: string): {
    login: boolean;
    mapped: boolean;
    groups: string[] | undefined;
    grants: unknown[];
    filters: string[];
    tokens: string[];
  };
  close(): Promise<void>;
}

/**
 * The emulator seeded with the team (each mapped with `authenticationId` `<authPrefix><id>`, plus
 * `seed`), and a config with the team's permissions and filters scope, a credentials file in the
 * temporary folder, and the `config` keys.
 */
export async function startSalesTeam(o: {
  token: string;
  authPrefix: string;
  seed: EmulatorSeed;
  signIn?: EmulatorOptions["signIn"];
  config: Record<string, unknown>;
}): Promise<SalesTeam> {
  const dir = await mkdtemp(join(tmpdir(), "usersync-sales-team-"));
  const emulator = await startEmulator({
    port: 0,
    tokens: { [o.token]: "admin" },
    ...(o.signIn ? { signIn: o.signIn } : {}),
    seed: {
      ...SEED,
      mappings: TEAM.map((id) => ({
        id,
        email: `${id}@example.com`,
        authenticationId: `${o.authPrefix}${id}`,
        groups: TEAM_GROUPS[id],
      })),
      ...o.seed,
    },
  });
  const config = join(dir, "usersync.yaml");
  await writeFile(
    config,
    stringify({
      target: { baseUrl: emulator.url },
      source: { desired: join(dir, "people.yaml") },
      ...o.config,
      permissions: { workspaces: ["sales-*"] },
      dataFilters: { workspaces: ["sales-*"] },
      output: { credentialsFile: join(dir, "credentials.csv") },
      execution: { requestsPerSecond: 10_000 },
      logging: { level: "warn", format: "json" },
    }),
  );
  return {
    emulator,
    cli: (...args) => runCli([...args, "--config", config], { env: { USERSYNC_TOKEN: o.token } }),
    people: (users) => writeFile(join(dir, "people.yaml"), stringify(desiredState(users))),
    accessOf: (id) => {
      const s = emulator.state();
      return {
        login: s.idpUsers.some((u) => u.email === `${id}@example.com`),
        mapped: s.mappings.some((m) => m.id === id),
        groups: s.mappings.find((m) => m.id === id)?.groups,
        grants: (s.workspaces ?? []).flatMap((w) => (w.permissions ?? []).filter((p) => p.user === id)),
        filters: (s.dataFilters ?? []).filter((f) => f.user === id).map((f) => f.id),
        tokens: (s.apiTokens ?? []).filter((t) => t.user === id).map((t) => t.id),
      };
    },
    close: async () => {
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function desiredState(users: Array<Record<string, unknown> & { id: string }>): unknown {
  return {
    version: 1,
    groups: [{ id: "sales", workspaces: { "sales-emea": ["VIEW"] } }, { id: "analysts" }],
    users: users.map((u) => ({
      email: `${u.id}@example.com`,
      ...u,
      ...(u.id === "bob" ? { dataFilters: { "sales-emea": { label: "region", values: ["EMEA"] } } } : {}),
    })),
  };
}
