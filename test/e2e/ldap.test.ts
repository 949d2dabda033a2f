/**
 * The built CLI with `source.type: ldap` against a real slapd (1,500 people in nested groups,
 * sizelimit 500) and the emulator: apply maps everyone into the right groups, a re-plan is
 * empty, a leaver, a mover and a new hire in the directory are exactly what the next run does;
 * a directory that answers nothing stops a `full` run with exit 4 and no request to the service,
 * a directory that is down with exit 5.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Attribute, Change, Client } from "ldapts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { directoryLdif, groupDn, GROUPS, PEOPLE, personDn, teamOf } from "../helpers/directory-ldif.js";
import {
  READER_DN,
  READER_PASSWORD,
  ROOT_DN,
  ROOT_PASSWORD,
  slapdAvailable,
  startSlapd,
  type Slapd,
} from "../helpers/slapd.js";
import { runCli, withTempDir } from "./run-cli.js";

const COUNT = 1500;
const TOKEN = "ldap-e2e-token-8c2";
const available = slapdAvailable();

let slapd: Slapd;
let emulator: EmulatorHandle;
beforeAll(async () => {
  if (!available) return;
  slapd = await startSlapd(directoryLdif(COUNT));
  emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" } });
}, 60_000);
afterAll(async () => {
  await emulator?.close();
  await slapd?.remove();
});

const env = (password = READER_PASSWORD) => ({ USERSYNC_TOKEN: TOKEN, USERSYNC_LDAP_PASSWORD: password });

async function writeConfig(dir: string, ldap: Record<string, unknown> = {}): Promise<string> {
  const file = join(dir, "usersync.yaml");
  const config = {
    target: { baseUrl: emulator.url, allowInsecureHttp: true },
    source: {
      type: "ldap",
      ldap: {
        url: slapd.url,
        bindDn: READER_DN,
        baseDn: PEOPLE,
        groupBaseDn: GROUPS,
        attributes: {
          email: "{mail}",
          id: "{uid}",
          authenticationId: "{uid}",
          firstname: "{givenName}",
          lastname: "{sn}",
        },
        lowerCase: ["email"],
        groups: [{ dn: `*,${GROUPS}`, parents: "directory" }],
        ...ldap,
      },
    },
    identity: { default: "external" },
    policy: { mode: "full", deletions: "remove", maxDeletes: 5 },
    execution: { requestsPerSecond: 10_000, concurrency: 16 },
    logging: { format: "json", level: "warn" },
  };
  await writeFile(file, stringify(config));
  return file;
}

function expectedGroups(i: number): string[] {
  const team = teamOf(i, COUNT);
  const groups = [
    "all-staff",
    team,
    ...(team === "sales" ? [] : ["engineering"]),
    ...(i === 0 ? ["contractors"] : []),
  ];
  return groups.sort();
}

const member = (operation: "add" | "delete", values: string[]): Change =>
  new Change({ operation, modification: new Attribute({ type: "member", values }) });

async function asRoot<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ url: slapd.url });
  await client.bind(ROOT_DN, ROOT_PASSWORD);
  try {
    return await fn(client);
  } finally {
    await client.unbind();
  }
}

describe.skipIf(!available)("usersync with an LDAP source (slapd + emulator)", () => {
  it("applies the directory, re-plans empty, then carries out exactly a leaver, a mover and a new hire", async () => {
    await withTempDir(async (dir) => {
      const config = await writeConfig(dir);
      const first = await runCli(["apply", "--config", config, "--yes"], { env: env() });
      expect(first.stderr).not.toMatch(/"level":50/);
      expect(first.code).toBe(0);
      const state = emulator.state();
      // The directory's people, and the token's owner (mapped by the emulator).
      expect(state.mappings.filter((m) => m.id !== "admin")).toHaveLength(COUNT);
      for (const i of [0, 1, 599, 600, 1049, 1050, 1499]) {
        const uid = personDn(i).slice(4, 11);
        expect(state.mappings.find((m) => m.id === uid)?.groups.sort(), uid).toEqual(expectedGroups(i));
      }
      const parents = Object.fromEntries(state.groups.map((g) => [g.id, g.parents]));
      expect(parents).toMatchObject({
        backend: ["engineering"],
        engineering: ["all-staff"],
        sales: ["all-staff"],
      });

      const again = await runCli(["plan", "--config", config, "--detailed-exitcode"], { env: env() });
      expect(again.code).toBe(0);

      // A leaver (p000005), a mover (p000010: backend -> sales), a new hire (p009999 in frontend).
      await asRoot(async (c) => {
        await c.del(personDn(5));
        await c.modify(groupDn("backend"), member("delete", [personDn(5), personDn(10)]));
        await c.modify(groupDn("sales"), member("add", [personDn(10)]));
        await c.add(personDn(9999), {
          objectClass: "inetOrgPerson",
          uid: "p009999",
          cn: "New Hire",
          givenName: "New",
          sn: "Hire",
          mail: "p009999@example.com",
        });
        await c.modify(groupDn("frontend"), member("add", [personDn(9999)]));
      });
      emulator.resetLog();
      const second = await runCli(["apply", "--config", config, "--yes"], { env: env() });
      expect(second.code).toBe(0);
      const writes = emulator.requestLog().filter((r) => r.method !== "GET");
      expect(writes.map((r) => `${r.method} ${decodeURIComponent(r.url.split("?")[0]!)}`).sort()).toEqual([
        "DELETE /api/v1/entities/users/p000005",
        "POST /api/v1/entities/users",
        "PUT /api/v1/entities/users/p000010",
      ]);
      const after = emulator.state();
      expect(after.mappings.filter((m) => m.id !== "admin")).toHaveLength(COUNT);
      expect(after.mappings.find((m) => m.id === "p000005")).toBeUndefined();
      expect(after.mappings.find((m) => m.id === "p000010")?.groups.sort()).toEqual(["all-staff", "sales"]);
      expect(after.mappings.find((m) => m.id === "p009999")?.groups.sort()).toEqual([
        "all-staff",
        "engineering",
        "frontend",
      ]);
      const settled = await runCli(["plan", "--config", config, "--detailed-exitcode"], { env: env() });
      expect(settled.code).toBe(0);
    });
  }, 120_000);

  it("validate and export --source ldap read the directory", async () => {
    await withTempDir(async (dir) => {
      const config = await writeConfig(dir);
      const valid = await runCli(["validate", "--config", config], { env: env() });
      expect(valid.stdout).toContain(`OK: ${slapd.url}/${PEOPLE}: ${COUNT} user(s)`);
      const short = await runCli(["validate", "--config", config], {
        env: { ...env(), USERSYNC_SOURCE_MIN_USERS: String(COUNT + 1) },
      });
      // A directory's short read is not proved whole: exit 5, as for an outage.
      expect(short.code).toBe(5);
      expect(short.stderr).toContain(`gave ${COUNT} user(s), fewer than source.minUsers (${COUNT + 1})`);
      const out = join(dir, "directory.yaml");
      const exported = await runCli(["export", "--config", config, "--source", "ldap", "--out", out], {
        env: env(),
      });
      expect(exported.code).toBe(0);
      const again = await runCli(["validate", out], { env: env() });
      expect(again.stdout).toContain(`${COUNT} user(s), 6 group(s)`);
    });
  }, 60_000);

  describe("a directory that answers nothing (exit 4), is down or short of minUsers (exit 5) stops a full run, no request to the service", () => {
    const cases: Array<[string, Record<string, unknown>, string?]> = [
      ["a filter matching nobody", { userFilter: "(uid=nobody-at-all)" }],
      ["a malformed filter", { userFilter: "(uid=broken" }],
      ["a wrong bind password", {}, "wrong-password-55q"],
      ["minUsers above what the directory has", {}],
    ];
    for (const [name, ldap, password] of cases)
      it(name, async () => {
        await withTempDir(async (dir) => {
          const config = await writeConfig(dir, ldap);
          const args = ["apply", "--config", config, "--yes"];
          const extra = name.startsWith("minUsers") ? { USERSYNC_SOURCE_MIN_USERS: "5000" } : {};
          emulator.resetLog();
          const r = await runCli(args, { env: { ...env(password), ...extra } });
          expect(r.code).toBe(name.startsWith("minUsers") ? 5 : 4);
          expect(emulator.requestLog()).toEqual([]);
          if (password) {
            expect(r.stderr).toMatch(
              /bind as cn=reader,dc=example,dc=org failed: invalid credentials \(LDAP result 49\)/,
            );
            expect(r.stderr + r.stdout).not.toContain(password);
          }
        });
      });

    it("slapd stopped: exit 5 (the source could not be read; a scheduler retries), not 4", async () => {
      await withTempDir(async (dir) => {
        const config = await writeConfig(dir);
        await slapd.stop();
        try {
          emulator.resetLog();
          const r = await runCli(["apply", "--config", config, "--yes"], { env: env() });
          expect(r.code).toBe(5);
          expect(r.stderr).toMatch(/ECONNREFUSED/);
          expect(r.stderr).toContain("The source could not be read now (exit 5)");
          expect(emulator.requestLog()).toEqual([]);
          const validate = await runCli(["validate", "--config", config], { env: env() });
          expect(validate.code).toBe(5);
        } finally {
          await slapd.start();
        }
      });
    });

    it("a percentage of the managed users: listed, then stopped before any write", async () => {
      await withTempDir(async (dir) => {
        const config = await writeConfig(dir, { userFilter: "(uid=p00000*)" });
        emulator.resetLog();
        const r = await runCli(["apply", "--config", config, "--yes"], {
          env: { ...env(), USERSYNC_SOURCE_MIN_USERS: "90%" },
        });
        expect(r.code).toBe(5);
        expect(r.stderr).toContain("fewer than source.minUsers (90% of");
        expect(emulator.requestLog().filter((q) => q.method !== "GET")).toEqual([]);
      });
    });
  });
});
