/**
 * AD's ranged attribute values against an AD stand-in over a real socket (test/helpers/fake-ad.ts):
 * a group with more members than MaxValRange comes as `member;range=0-499` and must be read in
 * full, never as an empty or short group (under `membership: exact` that would remove people).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectoryError } from "../../../../src/errors.js";
import { configSchema } from "../../../../src/config/schema.js";
import { readLdapDesired, type LdapConfig } from "../../../../src/desired/sources/ldap/index.js";
import {
  AD_BIND_DN,
  AD_PASSWORD,
  startFakeAd,
  type AdEntry,
  type FakeAd,
  type FakeAdOptions,
} from "../../../helpers/fake-ad.js";
import { adDirectory, adGroup, GROUPS_OU, STAFF_OU, userDn } from "../../../helpers/ad-directory.js";

const env = { AD_PW: AD_PASSWORD };

function adConfig(url: string, over: Partial<Record<string, unknown>> = {}): LdapConfig {
  return configSchema.parse({
    source: {
      type: "ldap",
      ldap: {
        url,
        bindDn: AD_BIND_DN,
        passwordEnv: "AD_PW",
        baseDn: STAFF_OU,
        groupBaseDn: GROUPS_OU,
        userFilter: "(objectClass=user)",
        groupFilter: "(objectClass=group)",
        attributes: { email: "{userPrincipalName}", id: "{sAMAccountName}" },
        lowerCase: ["email", "id"],
        groups: [{ cn: "*", parents: "directory" }],
        ...over,
      },
    },
  }).source.ldap!;
}

const read = (config: LdapConfig) => readLdapDesired({ config, env, defaultIdentity: "builtin" });
/** The DirectoryError a read ends in (the test fails if it ends otherwise). */
async function failure(config: LdapConfig): Promise<DirectoryError> {
  const err = await read(config).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DirectoryError);
  return err as DirectoryError;
}

describe("LDAP source: a group past AD's MaxValRange (500) comes in ranges", () => {
  let ad: FakeAd;
  beforeAll(async () => {
    ad = await startFakeAd({ entries: adDirectory({ users: 1205, big: 1200, small: 3 }), maxValRange: 500 });
  });
  afterAll(async () => {
    await ad?.close();
  });

  it("reads all 1,200 members of the big group; a group under the limit is unchanged", async () => {
    ad.requests.length = 0;
    const { state, problems } = await read(adConfig(ad.url));
    expect(problems).toEqual([]);
    expect(state.users).toHaveLength(1205);
    const inGroup = (id: string) => state.users.filter((u) => u.groups?.includes(id)).map((u) => u.id);
    expect(inGroup("all-staff")).toHaveLength(1200);
    expect(new Set(inGroup("all-staff")).size).toBe(1200);
    expect(state.users.find((u) => u.id === "u1204")!.groups).toEqual([]);
    expect(inGroup("small-team")).toEqual(["u0000", "u0001", "u0002"]);
    expect(state.users.find((u) => u.id === "u0000")!.groups).toEqual(["all-staff", "small-team"]);
    // The cost: one base-scope read per further range (500-999, then 1000-*), for that group only.
    const reads = ad.requests.filter((r) => r.scope === "base");
    expect(reads.map((r) => r.attributes)).toEqual([["member;range=500-*"], ["member;range=1000-*"]]);
  });
});

describe("LDAP source: ranged values with a MaxValRange of 3", () => {
  let servers: FakeAd[] = [];
  const start = async (options: Omit<FakeAdOptions, "entries"> & { entries?: AdEntry[] }) => {
    const ad = await startFakeAd({ entries: adDirectory({ users: 10, big: 8, small: 2 }), ...options });
    servers.push(ad);
    return ad;
  };
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers = [];
  });

  it("inChain: a group in more groups than the range limit keeps all its parents (ranged memberOf)", async () => {
    const entries: AdEntry[] = adDirectory({ users: 4, big: 4, small: 2 });
    const team = `CN=Team,${GROUPS_OU}`;
    entries.push(adGroup("Team", [userDn(0), userDn(1)]));
    for (let i = 1; i <= 5; i++) entries.push(adGroup(`Dept-${i}`, [team]));
    const ad = await start({ entries, maxValRange: 3 });
    const { state, problems } = await read(adConfig(ad.url, { nested: "inChain" }));
    expect(problems).toEqual([]);
    const depts = ["dept-1", "dept-2", "dept-3", "dept-4", "dept-5"];
    expect(state.groups.find((g) => g.id === "team")!.parents).toEqual(depts);
    expect(state.users.find((u) => u.id === "u0001")!.groups).toEqual([
      "all-staff",
      ...depts,
      "small-team",
      "team",
    ]);
    expect(ad.requests.filter((r) => r.scope === "base").map((r) => r.attributes)).toEqual([
      ["memberOf;range=3-*"],
    ]);
  });

  it("matches the range option in any case (MEMBER;RANGE=...)", async () => {
    const ad = await start({
      maxValRange: 3,
      tamper: (a) => ({ key: a.key.toUpperCase(), values: a.values }),
    });
    const { state } = await read(adConfig(ad.url));
    expect(state.users.filter((u) => u.groups?.includes("all-staff"))).toHaveLength(8);
  });

  it("a follow-up range with no values is a DirectoryError naming the group and the range", async () => {
    const ad = await start({ maxValRange: 3, tamper: (a) => (a.lo === 3 ? undefined : a) });
    const err = await failure(adConfig(ad.url));
    expect(err.message).toContain(`member;range=3-* of CN=All-Staff,${GROUPS_OU} has no values`);
    expect(err.message).toContain("Nothing was sent to the service");
  });

  it("a range that does not continue where the last one ended is a DirectoryError", async () => {
    const ad = await start({
      maxValRange: 3,
      tamper: (a) => (a.lo === 3 ? { key: "member;range=4-*", values: a.values.slice(1) } : a),
    });
    const err = await failure(adConfig(ad.url));
    expect(err.message).toContain(`CN=All-Staff,${GROUPS_OU}`);
    expect(err.message).toContain("is member;range=4-*, which does not continue at 3");
  });

  it("a first range that does not start at 0 is a DirectoryError", async () => {
    const ad = await start({
      maxValRange: 3,
      tamper: (a) => (a.lo === 0 ? { key: "member;range=1-3", values: a.values } : a),
    });
    const err = await failure(adConfig(ad.url));
    expect(err.message).toContain(
      `member of CN=All-Staff,${GROUPS_OU} is member;range=1-3, which does not continue at 0`,
    );
  });
});
