/**
 * Issue 31 with a directory as the shared source: two organizations take their people from one
 * AD (the fake AD server) by the groups its group rule produces. `apply --all-targets` reads the
 * directory once (the same searches as one organization's run, not twice) and each organization
 * gets its members only, without the other's group.
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

let ad: FakeAd;
const emulators: Record<"staff" | "team", EmulatorHandle> = {} as never;

beforeAll(async () => {
  // u0000..u0005 in All-Staff, u0000..u0001 in Small-Team too, u0006..u0007 in neither.
  ad = await startFakeAd({ entries: adDirectory({ users: 8, big: 6, small: 2 }), maxValRange: 500 });
  emulators.staff = await startEmulator({ port: 0, tokens: { "staff-token": "admin" } });
  emulators.team = await startEmulator({ port: 0, tokens: { "team-token": "admin" } });
});
afterAll(async () => {
  await emulators.staff?.close();
  await emulators.team?.close();
  await ad?.close();
});

async function writeConfig(dir: string): Promise<string> {
  const file = join(dir, "usersync.yaml");
  const ldap = {
    url: ad.url,
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
    source: { type: "ldap", ldap },
    identity: { default: "external" },
    logging: { format: "json", level: "warn" },
    targets: [
      { name: "staff", baseUrl: emulators.staff.url, select: { groups: ["all-staff"] } },
      { name: "team", baseUrl: emulators.team.url, select: { groups: ["small-team"] } },
    ],
  };
  await writeFile(file, stringify(config));
  return file;
}

const env = {
  USERSYNC_TOKEN_STAFF: "staff-token",
  USERSYNC_TOKEN_TEAM: "team-token",
  USERSYNC_LDAP_PASSWORD: AD_PASSWORD,
};

describe("targets over an LDAP source", () => {
  it("reads the directory once for all organizations and gives each its members", async () => {
    await withTempDir(async (dir) => {
      const config = await writeConfig(dir);
      const one = await runCli(["plan", "--config", config, "--target", "team"], { env });
      expect(one.code, one.stderr).toBe(0);
      const oneRead = ad.requests.length;
      const all = await runCli(["apply", "--config", config, "--all-targets", "--yes"], { env });
      expect(all.code, all.stderr).toBe(0);
      expect(ad.requests.length - oneRead).toBe(oneRead);
      const members = (e: EmulatorHandle) =>
        Object.fromEntries(
          e
            .state()
            .mappings.filter((m) => m.id !== "admin")
            .map((m) => [m.id, m.groups]),
        );
      expect(members(emulators.staff)).toEqual(
        Object.fromEntries([0, 1, 2, 3, 4, 5].map((i) => [userId(i), ["all-staff"]])),
      );
      expect(members(emulators.team)).toEqual(
        Object.fromEntries([0, 1].map((i) => [userId(i), ["small-team"]])),
      );
      expect(emulators.team.state().groups.map((g) => g.id)).toEqual(["small-team"]);
    });
  });
});
