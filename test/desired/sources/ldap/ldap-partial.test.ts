/**
 * LDAP's partial build (BuildInput.only, src/desired/sources/changes/partial.ts) against its whole
 * build, on pictures read whole over a real socket: slapd with `nested: member` (groups nested two
 * deep, a group picked by pattern, `parents: directory`, people in two groups, in none, and
 * disabled ones the user filter leaves out), the same with `nested: none`, the USERS pseudo-group
 * alone (no groups picked); a leaver through the run's own read (readWithChanges: built alone, the
 * digests kept those of a whole build) and a person moved after; and the
 * AD stand-in with `nested: inChain` (nested groups outside groupBaseDn, a disabled person). Each
 * person's record is the whole build's, line and groups included; the group sizes are the whole
 * read's (and a whole read's sizes are those of the reader that does not keep a picture).
 */
import { Attribute, Change, Client } from "ldapts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configSchema, type Config } from "../../../../src/config/schema.js";
import type { ChangeFeed, Picture, Position } from "../../../../src/desired/sources/changes/feed.js";
import { readWithChanges } from "../../../../src/desired/sources/changes/run.js";
import { desiredDigests } from "../../../../src/desired/sources/changes/touched.js";
import { generalizedTime } from "../../../../src/desired/sources/ldap/changes.js";
import { openLdapFeed } from "../../../../src/desired/sources/ldap/feed.js";
import { readLdapDesired } from "../../../../src/desired/sources/ldap/index.js";
import { USERS } from "../../../../src/desired/sources/ldap/picture.js";
import { createLogger } from "../../../../src/logging.js";
import type { KeptChanges } from "../../../../src/state/changes-file.js";
import { adGroup, adLdapSource, GROUPS_OU, STAFF_OU, userDn, userId } from "../../../helpers/ad-directory.js";
import { changed, expectPartialBuildsAgree, usingFeed } from "../../../helpers/change-feed.js";
import { AD_PASSWORD, AD_SUFFIX, startFakeAd, type AdEntry, type FakeAd } from "../../../helpers/fake-ad.js";
import {
  READER_PASSWORD,
  ROOT_DN,
  ROOT_PASSWORD,
  SUFFIX,
  slapdAvailable,
  slapdLdapSource,
  startSlapd,
  type Slapd,
} from "../../../helpers/slapd.js";

const logger = createLogger({ level: "silent", format: "json" });
const PEOPLE = 120;
const person = (i: number) => `uid=p${i},ou=people,${SUFFIX}`;
const group = (cn: string) => `cn=${cn},ou=groups,${SUFFIX}`;
const personLdif = (i: number) =>
  `dn: ${person(i)}\nobjectClass: inetOrgPerson\nuid: p${i}\ncn: p${i}\nsn: Example\nmail: p${i}@example.org\n` +
  (i % 17 === 0 ? "employeeType: disabled\n" : "");
const groupLdif = (cn: string, members: string[]) =>
  `dn: ${group(cn)}\nobjectClass: groupOfNames\ncn: ${cn}\n${members.map((m) => `member: ${m}\n`).join("")}`;
const people = (keep: (i: number) => boolean) =>
  Array.from({ length: PEOPLE }, (_, i) => i)
    .filter(keep)
    .map(person);

// All > Team-0 > Team-3 > Inner (unpicked); All > Team-1; Team-2 alone. People 100.. in no group.
const LDIF = [
  ...Array.from({ length: PEOPLE }, (_, i) => personLdif(i)),
  groupLdif("All", [group("Team-0"), group("Team-1"), person(7)]),
  groupLdif("Team-0", [...people((i) => i < 100 && i % 4 === 0), group("Team-3")]),
  groupLdif(
    "Team-1",
    people((i) => i < 100 && (i % 4 === 1 || i % 10 === 0)),
  ),
  groupLdif(
    "Team-2",
    people((i) => i < 100 && i % 4 === 2),
  ),
  groupLdif("Team-3", [...people((i) => i < 100 && i % 4 === 3), group("Inner")]),
  groupLdif(
    "Inner",
    people((i) => i >= 90 && i < 110),
  ),
].join("\n");

describe.skipIf(!slapdAvailable())("LDAP's partial build agrees with its whole build (slapd)", () => {
  let slapd: Slapd;
  beforeAll(async () => {
    slapd = await startSlapd(LDIF);
  }, 60_000);
  afterAll(async () => {
    await slapd?.remove();
  });

  const env = { USERSYNC_LDAP_PASSWORD: READER_PASSWORD };
  const ctx = { env, logger, defaultIdentity: "builtin" as const };
  const config = (extra: Record<string, unknown>): Config =>
    configSchema.parse({
      source: {
        type: "ldap",
        ldap: slapdLdapSource(slapd.url, {
          groups: [
            { cn: "All", parents: [] },
            { cn: "Team-*", parents: "directory" },
          ],
          ...extra,
        }),
      },
    });
  /** The whole read's picture; its whole build's group sizes are the direct reader's. */
  async function agree(c: Config, feed: ChangeFeed): Promise<Picture> {
    const { picture } = await feed.readWhole();
    const direct = await readLdapDesired({ config: c.source.ldap!, env, defaultIdentity: "builtin" });
    const whole = feed.build({ picture, ctx, reads: [] });
    expect(whole.problems).toEqual([]);
    expect(whole.evidence.groupSizes).toEqual(direct.evidence.groupSizes);
    for (const seed of [1, 2, 3]) expectPartialBuildsAgree(feed, picture, ctx, seed);
    return picture;
  }

  it("nested: member, and nested: none: groups nested two deep, people in two groups and in none", async () => {
    const c = config({});
    await usingFeed(openLdapFeed(c, ctx), async (feed) => {
      expect(feed.partial).toBe(true);
      const picture = await agree(c, feed);
      const sizes = feed.build({ picture, ctx, reads: [] }).evidence.groupSizes;
      // Team-0 holds Team-3 and Inner at any depth: 25 + 25 + 10 more (100..109), less disabled.
      expect(sizes["ldap:team-0"]).toBeGreaterThan(sizes["ldap:team-3"]!);
      expect(sizes["ldap:team-2"]).toBeGreaterThan(0);
    });
    const flat = config({ nested: "none" });
    await usingFeed(openLdapFeed(flat, ctx), async (feed) => void (await agree(flat, feed)));
  }, 60_000);

  it("the USERS pseudo-group alone (no groups picked): every person the user filter finds", async () => {
    const c = config({ groups: [] });
    await usingFeed(openLdapFeed(c, ctx), async (feed) => {
      const picture = await agree(c, feed);
      const users = picture.groups.find((g) => g.id === USERS)!.people;
      expect(users.length).toBe(PEOPLE - Math.ceil(PEOPLE / 17));
      // A part that builds nobody still reads the directory as not empty: no empty-directory error.
      const none = feed.build({ picture, ctx, reads: [], only: new Set() });
      expect(none.problems).toEqual([]);
    });
  }, 60_000);

  it("a leaver through the run's own read (readWithChanges): built alone; then a person moved", async () => {
    const c = config({});
    const wait = () => new Promise((r) => setTimeout(r, 1100));
    const positionNow = (): Position => ({
      kind: "ldap",
      streams: { modifyTimestamp: generalizedTime(Date.now()) },
      takenAt: new Date().toISOString(),
    });
    const write = async (...changes: [string, "add" | "delete", string, string][]) => {
      const client = new Client({ url: slapd.url });
      await client.bind(ROOT_DN, ROOT_PASSWORD);
      try {
        for (const [dn, operation, type, value] of changes)
          await client.modify(
            dn,
            new Change({ operation, modification: new Attribute({ type, values: [value] }) }),
          );
      } finally {
        await client.unbind();
      }
    };
    const allowed = { maxPeople: 1_000, usable: () => true };
    await usingFeed(openLdapFeed(c, ctx), async (feed) => {
      const first = await readWithChanges({
        feed,
        choice: { read: "whole", reason: "no-picture", detail: "first", full: true },
        ctx,
        now: Date.now(),
        version: "v1",
        partial: allowed,
      });
      const people = first.result.state.users.length;
      await wait();
      // The kept position at this second, not the whole read's (which reaches 5 minutes back).
      const kept: KeptChanges = { ...first.next, position: positionNow(), managedUsers: people };
      await wait();
      await write([person(5), "add", "employeeType", "disabled"]);
      const read = await readWithChanges({
        feed,
        choice: { read: "changes", kept },
        ctx,
        now: Date.now(),
        version: "v1",
        partial: allowed,
      });
      expect(read.how.source).toBe("changes");
      // The id is derived from the email (no id mapped): "@" becomes "_".
      expect(read.touched).toEqual(["p5_example.org"]);
      // Built alone: the leaver is gone, so nobody's record is in the partial state.
      expect(read.partial).toEqual({ users: people - 1, present: people - 1 });
      expect(read.result.state.users).toEqual([]);
      const whole = feed.build({ picture: read.next.picture, ctx, reads: [] });
      const direct = await readLdapDesired({ config: c.source.ldap!, env, defaultIdentity: "builtin" });
      expect(read.result.state.groups).toEqual(whole.state.groups);
      expect(read.result.evidence.groupSizes).toEqual(direct.evidence.groupSizes);
      expect(read.result.problems).toEqual([]);
      const digests = desiredDigests(whole.state);
      expect(new Map(read.next.digests.users)).toEqual(new Map(digests.users));
      expect(read.next.digests.groups).toBe(digests.groups);

      // A person moved between groups (present, so the run builds whole): the parts still agree.
      const since = positionNow();
      await wait();
      await write(
        [group("Team-2"), "delete", "member", person(6)],
        [group("Team-3"), "add", "member", person(6)],
      );
      const { picture } = await changed(feed, since, read.next.picture);
      const after = await readLdapDesired({ config: c.source.ldap!, env, defaultIdentity: "builtin" });
      expect(feed.build({ picture, ctx, reads: [] }).evidence.groupSizes).toEqual(after.evidence.groupSizes);
      for (const seed of [4, 5]) expectPartialBuildsAgree(feed, picture, ctx, seed);
    });
  }, 60_000);
});

describe("LDAP's partial build agrees with its whole build (nested: inChain, the AD stand-in)", () => {
  const ELSEWHERE_OU = `OU=Elsewhere,${AD_SUFFIX}`;
  const adGroupDn = (cn: string) => `CN=${cn},${GROUPS_OU}`;
  const elsewhere = (cn: string) => `CN=${cn},${ELSEWHERE_OU}`;
  const adPerson = (i: number): AdEntry => ({
    dn: userDn(i),
    attributes: {
      objectClass: ["top", "person", "organizationalPerson", "user"],
      cn: [`User ${userId(i)}`],
      sAMAccountName: [userId(i)],
      userPrincipalName: [`${userId(i)}@corp.example.com`],
      userAccountControl: [i % 13 === 0 ? "514" : "512"],
    },
  });
  const range = (keep: (i: number) => boolean) =>
    Array.from({ length: 80 }, (_, i) => i)
      .filter(keep)
      .map(userDn);
  // All > Analytics > Platform > Contractors (elsewhere); Analytics > Temps (elsewhere); All > Sales.
  const DIRECTORY: AdEntry[] = [
    { dn: AD_SUFFIX, attributes: { objectClass: ["top", "domain"], dc: ["corp"] } },
    ...[STAFF_OU, GROUPS_OU, ELSEWHERE_OU].map((dn) => ({
      dn,
      attributes: { objectClass: ["top", "organizationalUnit"], ou: [dn.slice(3, dn.indexOf(","))] },
    })),
    ...Array.from({ length: 80 }, (_, i) => adPerson(i)),
    adGroup("All", [adGroupDn("Analytics"), adGroupDn("Sales")]),
    adGroup("Analytics", [...range((i) => i % 5 === 0), adGroupDn("Platform"), elsewhere("Temps")]),
    adGroup("Platform", [...range((i) => i % 5 === 1), elsewhere("Contractors")]),
    adGroup(
      "Sales",
      range((i) => i % 5 === 2 || i % 7 === 0),
    ),
    {
      ...adGroup(
        "Contractors",
        range((i) => i % 5 === 3 && i < 60),
      ),
      dn: elsewhere("Contractors"),
    },
    {
      ...adGroup(
        "Temps",
        range((i) => i % 9 === 4),
      ),
      dn: elsewhere("Temps"),
    },
  ];
  let ad: FakeAd;
  beforeAll(async () => {
    ad = await startFakeAd({ entries: DIRECTORY, maxValRange: 500 });
  });
  afterAll(async () => {
    await ad?.close();
  });

  it("nested groups inside and outside groupBaseDn, parents from the directory, disabled people", async () => {
    const env = { AD_PW: AD_PASSWORD };
    const ctx = { env, logger, defaultIdentity: "builtin" as const };
    const config = configSchema.parse({
      source: {
        type: "ldap",
        ldap: adLdapSource(ad.url, {
          nested: "inChain",
          groups: ["All", "Analytics", "Sales"].map((cn) => ({ cn, parents: "directory" })),
        }),
      },
    });
    await usingFeed(openLdapFeed(config, ctx), async (feed) => {
      const { picture } = await feed.readWhole();
      const direct = await readLdapDesired({ config: config.source.ldap!, env, defaultIdentity: "builtin" });
      const whole = feed.build({ picture, ctx, reads: [] });
      expect(whole.problems).toEqual([]);
      expect(whole.evidence.groupSizes).toEqual(direct.evidence.groupSizes);
      expect(whole.evidence.groupSizes["ldap:all"]).toBeGreaterThan(whole.evidence.groupSizes["ldap:sales"]!);
      for (const seed of [1, 2, 3]) expectPartialBuildsAgree(feed, picture, ctx, seed);
    });
  }, 60_000);
});
