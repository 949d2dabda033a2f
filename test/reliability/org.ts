/**
 * Shared pieces of the reliability suite: generated organizations and desired files, the config
 * the CLI runs with, and the checks every scenario ends with (converged, no duplicates, nobody's
 * password unknown). The CLI itself is run with `test/e2e/run-cli.ts`.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";
import type { EmulatorSeed, EmulatorState } from "../../src/emulator/types.js";

export const TOKEN = "reliability-token-8c41e07d";
export const GROUPS = ["g1", "g2", "g3"];
/** Always in the organization, never in a desired file: the caller, protected by design. */
export const ADMIN = { email: "admin@reliability.example", id: "admin", authenticationId: "auth-admin" };

export interface TestUser {
  email: string;
  id: string;
  displayName: string;
  groups: string[];
}

/** `count` users `<prefix>0001@<domain>` …, spread over the groups. */
export function makeUsers(count: number, o: { prefix?: string; domain?: string } = {}): TestUser[] {
  const prefix = o.prefix ?? "u";
  const domain = o.domain ?? "reliability.example";
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(4, "0");
    return {
      email: `${prefix}${n}@${domain}`,
      id: `${prefix}${n}`,
      displayName: `User ${prefix}${n}`,
      groups: [GROUPS[i % GROUPS.length]!],
    };
  });
}

/** The groups and the admin, plus `users` fully provisioned (credentials and mapping). */
export function seedOf(users: readonly TestUser[] = []): EmulatorSeed {
  return {
    groups: GROUPS.map((id) => ({ id, name: `Group ${id}`, parents: [] })),
    idpUsers: [
      { email: ADMIN.email, displayName: "Admin", authenticationId: ADMIN.authenticationId },
      ...users.map((u) => ({ email: u.email, displayName: u.displayName, authenticationId: `auth-${u.id}` })),
    ],
    mappings: [
      { id: ADMIN.id, authenticationId: ADMIN.authenticationId, email: ADMIN.email, groups: ["g1"] },
      ...users.map((u) => ({ id: u.id, authenticationId: `auth-${u.id}`, email: u.email, groups: u.groups })),
    ],
  };
}

/** A YAML desired-state file declaring the groups (so no group reference depends on the service). */
export async function writeDesired(
  file: string,
  users: readonly TestUser[],
  extra: Record<string, unknown> = {},
): Promise<void> {
  const doc = {
    version: 1,
    ...extra,
    groups: GROUPS.map((id) => ({ id, name: `Group ${id}` })),
    users: users.map((u) => ({ email: u.email, id: u.id, displayName: u.displayName, groups: u.groups })),
  };
  await writeFile(file, stringify(doc));
}

/**
 * A config file for the CLI. The client-side rate limit is lifted (the emulator has none unless a
 * test asks for it) so runs are bounded by latency and concurrency, not by the default 50/s.
 */
export async function writeConfig(
  dir: string,
  config: {
    policy?: Record<string, unknown>;
    execution?: Record<string, unknown>;
    logging?: Record<string, unknown>;
    identity?: Record<string, unknown>;
  } = {},
): Promise<string> {
  const file = join(dir, "usersync.yaml");
  const doc = {
    ...config,
    execution: { concurrency: 16, requestsPerSecond: 10_000, ...config.execution },
    logging: { level: "warn", format: "json", ...config.logging },
  };
  await writeFile(file, stringify(doc));
  return file;
}

export const cliEnv = (): Record<string, string> => ({ USERSYNC_TOKEN: TOKEN });

/**
 * Everything wrong between the emulator's state and `users` (empty = converged): every user has
 * credentials and a mapping with the right authenticationId and groups; no email or
 * authenticationId is held twice; nothing else was created.
 */
export function divergence(
  state: EmulatorState,
  users: readonly TestUser[],
  o: { extraIdp?: number; extraMappings?: number } = {},
): string[] {
  const out: string[] = [];
  const idpByEmail = new Map<string, EmulatorState["idpUsers"][number]>();
  for (const u of state.idpUsers) {
    const key = u.email.toLowerCase();
    if (idpByEmail.has(key)) out.push(`duplicate IdP user ${u.email}`);
    idpByEmail.set(key, u);
  }
  const byAuth = new Map<string, string>();
  for (const m of state.mappings) {
    if (m.authenticationId === undefined) continue;
    const other = byAuth.get(m.authenticationId);
    if (other !== undefined)
      out.push(`mappings ${other} and ${m.id} share authenticationId ${m.authenticationId}`);
    byAuth.set(m.authenticationId, m.id);
  }
  const mappingById = new Map(state.mappings.map((m) => [m.id, m]));
  for (const u of users) {
    const idp = idpByEmail.get(u.email.toLowerCase());
    const m = mappingById.get(u.id);
    if (!idp) out.push(`${u.email}: no credentials`);
    else if (idp.displayName !== u.displayName) out.push(`${u.email}: displayName ${idp.displayName}`);
    if (!m) out.push(`${u.id}: no mapping`);
    else {
      if (idp && m.authenticationId !== idp.authenticationId)
        out.push(`${u.id}: authenticationId ${String(m.authenticationId)} is not ${idp.authenticationId}`);
      if (m.groups.join(",") !== u.groups.join(",")) out.push(`${u.id}: groups ${m.groups.join(",")}`);
    }
  }
  const idpExpected = users.length + (o.extraIdp ?? 1);
  const mappingsExpected = users.length + (o.extraMappings ?? 1);
  if (state.idpUsers.length !== idpExpected)
    out.push(`${state.idpUsers.length} IdP users, expected ${idpExpected}`);
  if (state.mappings.length !== mappingsExpected)
    out.push(`${state.mappings.length} mappings, expected ${mappingsExpected}`);
  return out;
}

/** The credentials file as lower-case email -> newest password (the header line skipped). */
export async function readCredentials(file: string): Promise<Map<string, string>> {
  let text = "";
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const out = new Map<string, string>();
  for (const line of text.split("\n").slice(1)) {
    if (line === "") continue;
    const [email, password] = line.split(",");
    if (email !== undefined && password !== undefined) out.set(email.toLowerCase(), password);
  }
  return out;
}

/**
 * "Nobody's password is unknown": every IdP user the tool created (not in the seed) has a line in
 * the credentials file, and the newest line is the password the service stored.
 */
export function unknownPasswords(
  state: EmulatorState,
  credentials: ReadonlyMap<string, string>,
  seeded: ReadonlySet<string>,
): string[] {
  const out: string[] = [];
  for (const u of state.idpUsers) {
    const key = u.email.toLowerCase();
    if (seeded.has(key)) continue;
    const line = credentials.get(key);
    if (line === undefined) out.push(`${u.email}: created, but no line in the credentials file`);
    else if (u.password !== line) out.push(`${u.email}: the newest line is not the stored password`);
  }
  return out;
}
