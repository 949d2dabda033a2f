/**
 * `source.ldap.showDeleted` with AD's `uSNChanged` reader, against the AD stand-in over a real
 * socket (test/helpers/fake-ad.ts, with tombstones as MS-ADTS 3.1.1.5.5.6.1 describes them and the
 * Show Deleted control): the people who left are found without listing the user search's DNs: a
 * leaver deleted (its tombstone's msDS-LastKnownRDN and lastKnownParent), a leaver disabled (bit 2
 * of userAccountControl, which userFilter excludes), a person moved out of the base and one
 * renamed in it (by objectGUID); with a membership change, the result is what the directory holds.
 * Expected people are worked out from the stand-in's entries, not by the code under test.
 */
import { Attribute, Change, type Client } from "ldapts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configSchema, type Config } from "../../../../src/config/schema.js";
import { applyChanges } from "../../../../src/desired/sources/changes/apply.js";
import { exitCodeFor } from "../../../../src/errors.js";
import type { SourceResult } from "../../../../src/desired/sources/contract.js";
import { openLdapFeed } from "../../../../src/desired/sources/ldap/feed.js";
import { createLogger } from "../../../../src/logging.js";
import { AD_PASSWORD, AD_SUFFIX, startFakeAd, type FakeAd } from "../../../helpers/fake-ad.js";
import { normDn, valuesOf, type AdEntry } from "../../../helpers/fake-ad-store.js";
import {
  adGroup,
  adLdapSource,
  adPerson,
  asAdAdmin,
  GROUPS_OU,
  STAFF_OU,
  userDn,
  userId,
} from "../../../helpers/ad-directory.js";

const logger = createLogger({ level: "silent", format: "json" });
const env = { AD_PW: AD_PASSWORD };
const ctx = { env, logger, defaultIdentity: "builtin" as const };
const FORMER_OU = `OU=Former,${AD_SUFFIX}`;
const group = (cn: string) => `CN=${cn},${GROUPS_OU}`;
const person = adPerson;

const DIRECTORY: AdEntry[] = [
  { dn: AD_SUFFIX, attributes: { objectClass: ["top", "domain"], dc: ["corp"] } },
  ...[STAFF_OU, GROUPS_OU, FORMER_OU].map((dn) => ({
    dn,
    attributes: { objectClass: ["top", "organizationalUnit"], ou: [dn.slice(3, dn.indexOf(","))] },
  })),
  ...[0, 1, 2, 3, 4, 5].map(person),
  adGroup("Analytics", [userDn(0), userDn(1), userDn(2), userDn(3)]),
  adGroup("Platform", [userDn(4)]),
];

/** Every enabled user under OU=Staff, with the picked group (Analytics) when it lists them. */
function expected(entries: AdEntry[]): [string, string[]][] {
  const analytics = entries.find((e) => normDn(e.dn) === normDn(group("Analytics")))!;
  const members = new Set(valuesOf(analytics, "member").map(normDn));
  return entries
    .filter(
      (e) => normDn(e.dn).endsWith(`,${normDn(STAFF_OU)}`) && valuesOf(e, "objectClass").includes("user"),
    )
    .filter((e) => (Number(valuesOf(e, "userAccountControl")[0] ?? "0") & 2) === 0)
    .map((e): [string, string[]] => [
      valuesOf(e, "userPrincipalName")[0]!,
      members.has(normDn(e.dn)) ? ["analytics"] : [],
    ])
    .sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

describe("AD leavers by tombstones (showDeleted), no DN listing of the users", () => {
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
          groups: [{ cn: "Analytics" }],
          changesBy: "usn",
          showDeleted: true,
        }),
      },
    });
  const shape = (r: SourceResult) =>
    r.state.users.map((u): [string, string[]] => [u.email, [...(u.groups ?? [])].sort()]).sort();
  const asAdmin = (fn: (c: Client) => Promise<unknown>) => asAdAdmin(ad.url, fn);

  it("a leaver deleted, one disabled, one moved out of the base, one renamed, a membership added: as the directory holds", async () => {
    const c = config();
    const feed = openLdapFeed(c, ctx);
    try {
      const first = await feed.readWhole();
      expect(shape(feed.build({ picture: first.picture, ctx, reads: first.reads }))).toEqual(
        expected(ad.store.view),
      );
      expect(
        first.picture.people.every((p) => /^[0-9a-f-]{36}$/.test(String(p.attributes["objectguid"]))),
      ).toBe(true);
      await asAdmin(async (client) => {
        await client.del(userDn(0));
        await client.modify(
          userDn(1),
          new Change({
            operation: "replace",
            modification: new Attribute({ type: "userAccountControl", values: ["514"] }),
          }),
        );
        await client.modifyDN(userDn(2), `CN=User ${userId(2)},${FORMER_OU}`);
        await client.modifyDN(userDn(3), "CN=User Renamed");
        await client.modify(
          group("Analytics"),
          new Change({
            operation: "add",
            modification: new Attribute({ type: "member", values: [userDn(5)] }),
          }),
        );
      });
      expect(ad.store.tombstones.map((t) => valuesOf(t, "msDS-LastKnownRDN")[0])).toEqual([
        `User ${userId(0)}`,
      ]);
      ad.requests.length = 0;
      const batch = await feed.readChanges(first.position, first.picture);
      if (batch.kind !== "changes") throw new Error(`fell back: ${batch.detail}`);
      // No listing of the user search: the users are searched by the DNs named only.
      const staff = ad.requests.filter((r) => normDn(r.base) === normDn(STAFF_OU)).map((r) => r.filter);
      expect(staff).toHaveLength(1);
      expect(staff[0]).toMatch(/distinguishedName=/);
      expect(ad.requests.filter((r) => normDn(r.base) === normDn(AD_SUFFIX))).toHaveLength(1);
      // The rootDSE, the NTDS Settings object, the Deleted Objects container, the objects written,
      // the users by DN, the groups by uSNChanged and the groups' DNs: 7, whatever the size.
      expect(ad.requests).toHaveLength(7);
      const applied = applyChanges(first.picture, batch.changes, new Date().toISOString());
      if (!("picture" in applied)) throw new Error(`fell back: ${applied.detail}`);
      const after = shape(feed.build({ picture: applied.picture, ctx, reads: batch.reads }));
      expect(after).toEqual(expected(ad.store.view));
      expect(after.map((u) => u[0])).not.toContain(`${userId(0)}@corp.example.com`);
      expect(after.map((u) => u[0])).not.toContain(`${userId(1)}@corp.example.com`);
      expect(after.map((u) => u[0])).not.toContain(`${userId(2)}@corp.example.com`);
      expect(after).toContainEqual([`${userId(3)}@corp.example.com`, ["analytics"]]);
      expect(after).toContainEqual([`${userId(5)}@corp.example.com`, ["analytics"]]);
    } finally {
      await feed.close();
    }
  });

  it("an account that cannot see deleted objects: exit 4 naming the fix, not a deletion gone unseen", async () => {
    const feed = openLdapFeed(config(), ctx);
    try {
      const first = await feed.readWhole();
      await asAdmin((client) => client.del(userDn(4)));
      ad.store.hideDeleted = true;
      const err = await feed.readChanges(first.position, first.picture).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(exitCodeFor(err)).toBe(4);
      expect((err as Error).message).toMatch(
        /source.ldap.showDeleted is true but .*CN=Deleted Objects,DC=corp,DC=example,DC=com.*Grant it the right to list/,
      );
    } finally {
      ad.store.hideDeleted = false;
      await feed.close();
    }
  });
});
