/**
 * The built CLI with an Active Directory source whose big group comes ranged (the AD stand-in,
 * MaxValRange 500) and the emulator: 1,200 people already in `all-staff` stay there under
 * `membership: exact`, and the plan adds exactly the people the emulator lacks; a server that
 * breaks off the ranges stops the run with exit 4 before any request to the service.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { adDirectory, GROUPS_OU, STAFF_OU, userId } from "../helpers/ad-directory.js";
import { AD_BIND_DN, AD_PASSWORD, startFakeAd, type FakeAd } from "../helpers/fake-ad.js";
import { runCli, withTempDir } from "./run-cli.js";

const TOKEN = "ad-range-e2e-token-4f1";
const USERS = 1205;
const BIG = 1200;
/** People in the directory's All-Staff whom the service does not have in all-staff yet. */
const MISSING = [17, 600, 1199];

let ad: FakeAd;
let broken: FakeAd;
let emulator: EmulatorHandle;
beforeAll(async () => {
  const entries = adDirectory({ users: USERS, big: BIG, small: 3 });
  ad = await startFakeAd({ entries, maxValRange: 500 });
  broken = await startFakeAd({ entries, maxValRange: 500, tamper: (a) => (a.lo === 1000 ? undefined : a) });
  const mappings = Array.from({ length: USERS }, (_, i) => ({
    id: userId(i),
    authenticationId: userId(i),
    email: `${userId(i)}@corp.example.com`,
    groups: [...(i < BIG && !MISSING.includes(i) ? ["all-staff"] : []), ...(i < 3 ? ["small-team"] : [])],
  }));
  const groups = [
    { id: "all-staff", name: "All-Staff", parents: [] },
    { id: "small-team", name: "Small-Team", parents: [] },
  ];
  emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, seed: { mappings, groups } });
});
afterAll(async () => {
  await emulator?.close();
  await ad?.close();
  await broken?.close();
});

async function writeConfig(dir: string, url: string): Promise<string> {
  const file = join(dir, "usersync.yaml");
  const ldap = {
    url,
    bindDn: AD_BIND_DN,
    baseDn: STAFF_OU,
    groupBaseDn: GROUPS_OU,
    userFilter: "(objectClass=user)",
    groupFilter: "(objectClass=group)",
    attributes: {
      email: "{userPrincipalName}",
      id: "{sAMAccountName}",
      authenticationId: "{sAMAccountName}",
    },
    lowerCase: ["email", "id"],
    groups: [{ cn: "*", parents: "directory" }],
  };
  const config = {
    target: { baseUrl: emulator.url, allowInsecureHttp: true },
    source: { type: "ldap", ldap },
    identity: { default: "external" },
    policy: { mode: "full", membership: "exact", deletions: "remove", maxDeletes: 5 },
    logging: { format: "json", level: "warn" },
  };
  await writeFile(file, stringify(config));
  return file;
}

const env = { USERSYNC_TOKEN: TOKEN, USERSYNC_LDAP_PASSWORD: AD_PASSWORD };

describe("usersync with an AD source whose group of 1,200 comes in ranges of 500", () => {
  it("plans only the members the service lacks: nobody leaves all-staff", async () => {
    await withTempDir(async (dir) => {
      const config = await writeConfig(dir, ad.url);
      const r = await runCli(["plan", "--config", config, "--format", "json"], { env });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const plan = JSON.parse(r.stdout) as { summary: { people: Record<string, number> }; steps: unknown[] };
      expect(plan.summary.people).toMatchObject({ add: 0, change: MISSING.length, revoke: 0, remove: 0 });
      const changed = JSON.stringify(plan.steps);
      for (const i of MISSING) expect(changed).toContain(userId(i));
      expect(ad.requests.filter((q) => q.scope === "base")).toHaveLength(2);
    });
  }, 60_000);

  it("a range the server breaks off stops the run with exit 4, naming the group; nothing is sent", async () => {
    await withTempDir(async (dir) => {
      const config = await writeConfig(dir, broken.url);
      emulator.resetLog();
      const r = await runCli(["apply", "--config", config, "--yes"], { env });
      expect(r.code).toBe(4);
      expect(r.stderr).toContain(`member;range=1000-* of CN=All-Staff,${GROUPS_OU} has no values`);
      expect(emulator.requestLog()).toEqual([]);
    });
  }, 60_000);
});
