/**
 * The recipes of docs/ldap.md, as written there: a slapd started from the page's `slapd.conf` and
 * `directory.ldif`, the local test directory's `usersync-ldap.yaml` applied through the built CLI
 * against it and the emulator, the OpenLDAP recipe (`openldap.yaml`, its connection pointed at the
 * test server) reading every person, the `pwdAccountLockedTime` filter the page warns about
 * matching nobody on a slapd without ppolicy, and the Active Directory recipe a valid config.
 */
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { loadConfig } from "../../src/config/index.js";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { moduleDir, slapdAvailable, startSlapd, type Slapd } from "../helpers/slapd.js";
import { ROOT, runCli, withTempDir } from "./run-cli.js";

const DOC = readFileSync(join(ROOT, "docs/ldap.md"), "utf8");
/** The fenced block whose info string names `file` (```yaml openldap.yaml). */
function block(file: string): string {
  const m = new RegExp("```\\w+ " + file.replace(/\./g, "\\.") + "\\n([\\s\\S]*?)```").exec(DOC);
  if (!m?.[1]) throw new Error(`docs/ldap.md has no block named ${file}`);
  return m[1];
}

const TOKEN = "ldap-recipes-token-41c";
const env = { USERSYNC_TOKEN: TOKEN, USERSYNC_LDAP_PASSWORD: "usersync-secret" };
const available = slapdAvailable();

let slapd: Slapd;
let emulator: EmulatorHandle;
beforeAll(async () => {
  if (!available) return;
  const modules = moduleDir();
  // The page's server folder is /tmp/usersync-ldap and its modules are where Debian has them.
  const conf = (dir: string): string =>
    block("slapd.conf")
      .replaceAll("/tmp/usersync-ldap", dir)
      .replace("modulepath /usr/lib/ldap", modules ? `modulepath ${modules}` : "")
      .replace("moduleload back_mdb", modules ? "moduleload back_mdb" : "");
  slapd = await startSlapd(block("directory.ldif"), { conf, baseEntries: false });
  emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" } });
}, 60_000);
afterAll(async () => {
  await emulator?.close();
  await slapd?.remove();
});

type Config = { target?: Record<string, unknown>; source: { ldap: Record<string, unknown> } } & Record<
  string,
  unknown
>;

async function writeConfig(dir: string, config: Config): Promise<string> {
  const file = join(dir, "usersync.yaml");
  await writeFile(file, stringify(config));
  return file;
}

describe.skipIf(!available)("docs/ldap.md recipes against a real slapd", () => {
  it("the local test directory: validate counts it, apply (mode full by default) maps everyone into nested groups", async () => {
    await withTempDir(async (dir) => {
      const config = parse(block("usersync-ldap.yaml")) as Config;
      expect(config.source.ldap["url"]).toBe("ldap://127.0.0.1:3890");
      config.source.ldap["url"] = slapd.url;
      config.target = { ...config.target, baseUrl: emulator.url };
      const file = await writeConfig(dir, config);
      const valid = await runCli(["validate", "--config", file], { env });
      expect(valid.code, valid.stdout + valid.stderr).toBe(0);
      expect(valid.stdout).toContain("3 user(s), 3 group(s)");
      const apply = await runCli(["apply", "--config", file, "--yes"], { env });
      expect(apply.code, apply.stderr).toBe(0);
      expect(apply.stdout).toContain("Mode full");
      // Everyone but the token's owner (admin), whom the emulator maps at start.
      const people = emulator.state().mappings.filter((m) => m.id !== "admin");
      const groups = Object.fromEntries(people.map((m) => [m.id, [...m.groups].sort()]));
      expect(groups).toEqual({
        ada: ["all-staff", "analytics"],
        grace: ["all-staff", "analytics"],
        linus: ["all-staff", "platform"],
      });
      const again = await runCli(["plan", "--config", file, "--detailed-exitcode"], { env });
      expect(again.code).toBe(0);
    });
  }, 60_000);

  it("the OpenLDAP recipe reads every person; the ppolicy filter it warns about matches nobody here", async () => {
    await withTempDir(async (dir) => {
      const config = parse(block("openldap.yaml")) as Config;
      // Only the connection is this test's: no TLS on the test server.
      Object.assign(config.source.ldap, { url: slapd.url, startTls: false });
      delete config.source.ldap["caFile"];
      config.target = { baseUrl: emulator.url };
      config["state"] = { file: join(dir, "state.json") };
      const file = await writeConfig(dir, config);
      const valid = await runCli(["validate", "--config", file], { env });
      expect(valid.code, valid.stdout + valid.stderr).toBe(0);
      expect(valid.stdout).toContain("3 user(s), 3 group(s)");
      const plan = await runCli(["plan", "--config", file, "--format", "json"], { env });
      expect(plan.code, plan.stderr).toBe(0);
      expect(JSON.parse(plan.stdout)).toMatchObject({ mode: "full", grace: { revokeAfter: "72h" } });

      config.source.ldap["userFilter"] = "(&(objectClass=inetOrgPerson)(!(pwdAccountLockedTime=*)))";
      const locked = await runCli(["validate", "--config", await writeConfig(dir, config)], { env });
      expect(locked.code).toBe(4);
      expect(locked.stdout + locked.stderr).toContain("empty-directory");
    });
  }, 60_000);

  it("the Active Directory recipe is a valid config", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "usersync.yaml");
      await writeFile(file, block("active-directory.yaml"));
      const config = await loadConfig({ file, env: {}, cwd: dir });
      expect(config.source.ldap?.nested).toBe("inChain");
      expect(config.policy.mode).toBe("full");
    });
  });
});
