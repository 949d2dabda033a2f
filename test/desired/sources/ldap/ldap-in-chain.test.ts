/**
 * Changes-only reads with `nested: inChain` (docs/ldap.md, "Changes-only runs") against the AD
 * stand-in over a real socket (test/helpers/fake-ad.ts, uSNChanged and LDAP_MATCHING_RULE_IN_CHAIN):
 * a group change is read without a whole read, through nested groups inside and outside
 * `groupBaseDn`, a nested group deleted, a picked group's own members, a person removed from a
 * nested group who still reaches the group another way, and an account re-enabled. Every step is
 * checked against the directory's own membership (worked out here from the fake's entries by
 * walking `member` at any depth, as the in-chain rule does) and against a whole read.
 */
import { Attribute, Change, type Client } from "ldapts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configSchema, type Config } from "../../../../src/config/schema.js";
import { applyChanges } from "../../../../src/desired/sources/changes/apply.js";
import type { Picture, Position } from "../../../../src/desired/sources/changes/feed.js";
import { readChangesOnly } from "../../../../src/desired/sources/changes/source.js";
import type { SourceResult } from "../../../../src/desired/sources/contract.js";
import { openLdapFeed } from "../../../../src/desired/sources/ldap/feed.js";
import { readLdapDesired } from "../../../../src/desired/sources/ldap/index.js";
import { createLogger } from "../../../../src/logging.js";
import {
  adGroup,
  adLdapSource,
  asAdAdmin,
  GROUPS_OU,
  STAFF_OU,
  userDn,
  userId,
} from "../../../helpers/ad-directory.js";
import { normDn, valuesOf, type AdEntry } from "../../../helpers/fake-ad-store.js";
import { AD_PASSWORD, AD_SUFFIX, startFakeAd, type FakeAd } from "../../../helpers/fake-ad.js";

const logger = createLogger({ level: "silent", format: "json" });
const env = { AD_PW: AD_PASSWORD };
const ctx = { env, logger, defaultIdentity: "builtin" as const };
const PICKED = ["All", "Analytics", "Sales"];
/** Outside groupBaseDn: nested groups the group search never finds. */
const ELSEWHERE_OU = `OU=Elsewhere,${AD_SUFFIX}`;
const group = (cn: string) => `CN=${cn},${GROUPS_OU}`;
const elsewhere = (cn: string) => `CN=${cn},${ELSEWHERE_OU}`;
const upn = (i: number) => `${userId(i)}@corp.example.com`;

function person(i: number, disabled = false): AdEntry {
  return {
    dn: userDn(i),
    attributes: {
      objectClass: ["top", "person", "organizationalPerson", "user"],
      cn: [`User ${userId(i)}`],
      sAMAccountName: [userId(i)],
      userPrincipalName: [upn(i)],
      userAccountControl: [disabled ? "514" : "512"],
    },
  };
}
const groupElsewhere = (cn: string, member: string[]): AdEntry => ({
  ...adGroup(cn, member),
  dn: elsewhere(cn),
});

// All > Analytics > Platform > Contractors (elsewhere); Analytics > Temps (elsewhere); All > Sales.
const DIRECTORY: AdEntry[] = [
  { dn: AD_SUFFIX, attributes: { objectClass: ["top", "domain"], dc: ["corp"] } },
  ...[STAFF_OU, GROUPS_OU, ELSEWHERE_OU].map((dn) => ({
    dn,
    attributes: { objectClass: ["top", "organizationalUnit"], ou: [dn.slice(3, dn.indexOf(","))] },
  })),
  ...[0, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => person(i)),
  person(1, true),
  adGroup("All", [group("Analytics"), group("Sales")]),
  adGroup("Analytics", [userDn(0), userDn(5), group("Platform"), elsewhere("Temps")]),
  adGroup("Platform", [userDn(1), userDn(2), elsewhere("Contractors")]),
  adGroup("Sales", [userDn(4)]),
  groupElsewhere("Contractors", [userDn(3), userDn(5)]),
  groupElsewhere("Temps", [userDn(6)]),
];

/** Every enabled user under OU=Staff with the picked groups that hold them at any depth. */
function expected(entries: AdEntry[]): [string, string[]][] {
  const byDn = new Map(entries.map((e) => [normDn(e.dn), e]));
  const holds = (groupDn: string, dn: string, seen = new Set<string>()): boolean => {
    if (seen.has(groupDn) || !byDn.has(groupDn)) return false;
    seen.add(groupDn);
    const members = valuesOf(byDn.get(groupDn)!, "member").map(normDn);
    return members.includes(dn) || members.some((m) => holds(m, dn, seen));
  };
  return entries
    .filter((e) => normDn(e.dn).endsWith(`,${normDn(STAFF_OU)}`))
    .filter((e) => (Number(valuesOf(e, "userAccountControl")[0] ?? "0") & 2) === 0)
    .map((e): [string, string[]] => [
      valuesOf(e, "userPrincipalName")[0]!,
      PICKED.filter((cn) => holds(normDn(group(cn)), normDn(e.dn))).map((cn) => cn.toLowerCase()),
    ])
    .sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

describe("LDAP changes only with nested: inChain, against the AD stand-in", () => {
  let ad: FakeAd;
  beforeAll(async () => {
    ad = await startFakeAd({ entries: DIRECTORY, maxValRange: 500 });
  });
  afterAll(async () => {
    await ad?.close();
  });

  const config = (): Config =>
    configSchema.parse({
      source: {
        type: "ldap",
        ldap: adLdapSource(ad.url, {
          nested: "inChain",
          groups: PICKED.map((cn) => ({ cn, parents: "directory" })),
        }),
      },
    });
  const shape = (r: SourceResult) => ({
    problems: r.problems.map((p) => p.message),
    users: r.state.users.map((u): [string, string[]] => [u.email, [...(u.groups ?? [])].sort()]).sort(),
    parents: r.state.groups.map((g) => [g.id, [...(g.parents ?? [])]]),
  });
  const asAdmin = (fn: (c: Client) => Promise<unknown>) => asAdAdmin(ad.url, fn);
  const member = (operation: "add" | "delete", groupDn: string, dn: string) => (c: Client) =>
    c.modify(
      groupDn,
      new Change({ operation, modification: new Attribute({ type: "member", values: [dn] }) }),
    );
  const uac = (value: string) =>
    new Change({
      operation: "replace",
      modification: new Attribute({ type: "userAccountControl", values: [value] }),
    });
  async function readWhole() {
    const feed = openLdapFeed(config(), ctx);
    try {
      const read = await feed.readWhole();
      return { ...read, result: feed.build({ picture: read.picture, ctx, reads: read.reads }) };
    } finally {
      await feed.close();
    }
  }
  async function readChanges(since: Position, picture: Picture) {
    const feed = openLdapFeed(config(), ctx);
    try {
      return await feed.readChanges(since, picture);
    } finally {
      await feed.close();
    }
  }

  let kept: { position: Position; picture: Picture };
  /** The people searches a read made: `(memberOf:<in chain>:=<group>)` under OU=Staff, by group cn. */
  const peopleRead = () =>
    ad.requests
      .filter((r) => r.base === STAFF_OU && r.filter.includes("1.2.840.113556.1.4.1941"))
      .map((r) => /CN=([^,]+),OU=Groups/i.exec(r.filter)?.[1])
      .sort();

  /** Changes read and applied: the result equals the directory's membership and a whole read's. */
  async function step(): Promise<SourceResult> {
    ad.requests.length = 0;
    const batch = await readChanges(kept.position, kept.picture);
    if (batch.kind !== "changes") throw new Error(`fell back: ${batch.reason}: ${batch.detail}`);
    const applied = applyChanges(kept.picture, batch.changes, new Date().toISOString());
    if (!("picture" in applied)) throw new Error(`fell back: ${applied.detail}`);
    const feed = openLdapFeed(config(), ctx);
    const result = feed.build({ picture: applied.picture, ctx, reads: batch.reads });
    const requests = [...ad.requests];
    const whole = await readWhole();
    const direct = await readLdapDesired({ config: config().source.ldap!, env, defaultIdentity: "builtin" });
    expect(shape(result).users).toEqual(expected(ad.store.view));
    expect(shape(result)).toEqual(shape(whole.result));
    expect(shape(result)).toEqual(shape(direct));
    // The picture is the one a whole read keeps: nesting, the groups below each picked one, people.
    expect(applied.picture.groups).toEqual(whole.picture.groups);
    kept = { position: batch.position, picture: applied.picture };
    ad.requests.splice(0, ad.requests.length, ...requests);
    return result;
  }
  const groupsOf = (r: SourceResult, i: number) => r.state.users.find((u) => u.email === upn(i))?.groups;

  it("the first run reads whole and keeps, on each picked group, the groups below it", async () => {
    const first = await readWhole();
    expect(shape(first.result).users).toEqual(expected(ad.store.view));
    const analytics = first.picture.groups.find((g) => g.id === normDn(group("Analytics")))!;
    expect(analytics.attributes["@nested"]).toEqual(
      [group("Platform"), elsewhere("Contractors"), elsewhere("Temps")].map(normDn).sort(),
    );
    kept = first;
  });

  it("a person added to a nested group reaches the people of every picked group above it, at a handful of searches", async () => {
    await asAdmin(member("add", group("Platform"), userDn(9)));
    const got = await step();
    expect(groupsOf(got, 9)).toEqual(["all", "analytics"]);
    // Only the picked groups above Platform are read again; Sales is not.
    expect(peopleRead()).toEqual(["All", "Analytics"]);
    expect(ad.requests.filter((r) => r.scope === "sub").length).toBeLessThanOrEqual(7);
  });

  it("a nested group outside groupBaseDn changed: a person added reaches, one removed leaves", async () => {
    await asAdmin(async (c) => {
      await member("add", elsewhere("Contractors"), userDn(8))(c);
      await member("delete", elsewhere("Contractors"), userDn(3))(c);
    });
    const got = await step();
    expect(groupsOf(got, 8)).toEqual(["all", "analytics"]);
    expect(groupsOf(got, 3)).toEqual([]);
    expect(peopleRead()).toEqual(["All", "Analytics"]);
  });

  it("a person removed from a nested group who still reaches the picked group another way stays", async () => {
    await asAdmin(member("delete", elsewhere("Contractors"), userDn(5)));
    const got = await step();
    expect(groupsOf(got, 5)).toEqual(["all", "analytics"]);
  });

  it("a nested group deleted (no picked group is written): its people leave the groups above it", async () => {
    const before = ad.store.usn;
    await asAdmin((c) => c.del(elsewhere("Temps")));
    const analytics = ad.store.byDn.get(normDn(group("Analytics")))!;
    expect(Number(valuesOf(analytics, "uSNChanged")[0])).toBeLessThanOrEqual(before);
    const got = await step();
    expect(groupsOf(got, 6)).toEqual([]);
    expect(peopleRead()).toEqual(["All", "Analytics"]);
  });

  it("a picked group's own members: added and removed; a leaver disabled in a nested group", async () => {
    await asAdmin(async (c) => {
      await member("add", group("Sales"), userDn(7))(c);
      await member("delete", group("Analytics"), userDn(0))(c);
      await c.modify(userDn(2), uac("514"));
    });
    const got = await step();
    expect(groupsOf(got, 7)).toEqual(["all", "sales"]);
    expect(groupsOf(got, 0)).toEqual([]);
    expect(groupsOf(got, 2)).toBeUndefined();
  });

  it("a leaver disabled in a nested group, no group written: no group's people read again", async () => {
    await asAdmin((c) => c.modify(userDn(9), uac("514")));
    const got = await step();
    expect(groupsOf(got, 9)).toBeUndefined();
    expect(peopleRead()).toEqual([]);
  });

  it("a group nested since, from outside groupBaseDn, and an account re-enabled in a nested group", async () => {
    await asAdmin(async (c) => {
      await c.add(elsewhere("Interns"), {
        objectClass: ["top", "group"],
        cn: "Interns",
        member: [userDn(6)],
      });
      await member("add", group("Sales"), elsewhere("Interns"))(c);
      await c.modify(userDn(1), uac("512"));
    });
    const got = await step();
    expect(groupsOf(got, 6)).toEqual(["all", "sales"]);
    expect(groupsOf(got, 1)).toEqual(["all", "analytics"]);
    // Analytics is read again only because it holds a person new to the user search.
    expect(peopleRead()).toEqual(["All", "Analytics", "Sales"]);
  });

  it("nothing written: no search; a picture kept without the nested groups: a whole read, saying why", async () => {
    ad.requests.length = 0;
    const quiet = await readChanges(kept.position, kept.picture);
    expect(quiet).toMatchObject({ kind: "changes", changes: [] });
    expect(ad.requests.filter((r) => r.scope === "sub")).toEqual([]);

    await asAdmin(member("add", group("Sales"), userDn(2)));
    const old = {
      ...kept.picture,
      groups: kept.picture.groups.map((g) => {
        const { ["@nested"]: _, ...attributes } = g.attributes;
        return { ...g, attributes };
      }),
    };
    const batch = await readChanges(kept.position, old);
    expect(batch).toMatchObject({ kind: "fallback", reason: "no-picture" });
    expect(batch.kind === "fallback" && batch.detail).toMatch(/no nested groups of CN=All/);
  });

  it("through the run: a nested group's change is read as changes, and the plan's evidence says so", async () => {
    const run = configSchema.parse({
      source: { ...config().source, changes: { mode: "changes", fullEvery: "7d" } },
    });
    const first = await readChangesOnly(run, ctx, { kept: { unusable: "none kept yet" }, now: Date.now() });
    expect(first?.evidence.read).toMatchObject({ source: "whole", reason: "no-picture" });
    await asAdmin(member("add", elsewhere("Contractors"), userDn(0)));
    const second = await readChangesOnly(run, ctx, { kept: first!.keep, now: Date.now() });
    expect(second?.evidence.read).toMatchObject({ source: "changes" });
    expect(shape(second!).users).toEqual(expected(ad.store.view));
    expect(second!.state.users.find((u) => u.email === upn(0))?.groups).toEqual(["all", "analytics"]);
  });
});
