/**
 * Active Directory's changes by `uSNChanged` (source.ldap.changesBy; Microsoft's "Polling for
 * Changes Using USNChanged") against the AD stand-in over a real socket (test/helpers/fake-ad.ts):
 * the first run reads whole and keeps the controller's highestCommittedUSN, dsServiceName and
 * invocationId; a disabled account, a membership change and a person added to a nested group are
 * read by uSNChanged and give what the directory holds; another controller, or one restored from a
 * backup, makes the run read whole and say why. Expected people and groups are worked out here
 * from the directory's own entries (the fake's store), not by the code under test.
 */
import { Attribute, Change, Client } from "ldapts";
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
  AD_ADMIN_DN,
  AD_ADMIN_PASSWORD,
  AD_PASSWORD,
  startFakeAd,
  type FakeAd,
} from "../../../helpers/fake-ad.js";
import { ntdsSettingsDn, normDn, valuesOf, type AdEntry } from "../../../helpers/fake-ad-store.js";
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
import { AD_SUFFIX } from "../../../helpers/fake-ad.js";

const logger = createLogger({ level: "silent", format: "json" });
const env = { AD_PW: AD_PASSWORD };
const ctx = { env, logger, defaultIdentity: "builtin" as const };
const PICKED = ["Analytics", "All"];
const group = (cn: string) => `CN=${cn},${GROUPS_OU}`;

const person = adPerson;

const DIRECTORY: AdEntry[] = [
  { dn: AD_SUFFIX, attributes: { objectClass: ["top", "domain"], dc: ["corp"] } },
  { dn: STAFF_OU, attributes: { objectClass: ["top", "organizationalUnit"], ou: ["Staff"] } },
  { dn: GROUPS_OU, attributes: { objectClass: ["top", "organizationalUnit"], ou: ["Groups"] } },
  ...[0, 1, 2, 3, 4, 5].map(person),
  adGroup("Analytics", [userDn(0), userDn(1), group("Platform")]),
  adGroup("Platform", [userDn(2)]),
  adGroup("All", [group("Analytics")]),
  adGroup("Elsewhere", [userDn(5)]),
];

/**
 * What the directory says, by its entries: every enabled user under OU=Staff (bit 2 of
 * userAccountControl clear), with the picked groups that reach them through `member`.
 */
function expected(entries: AdEntry[]): [string, string[]][] {
  const byDn = new Map(entries.map((e) => [normDn(e.dn), e]));
  const reaches = (groupDn: string, dn: string, seen = new Set<string>()): boolean => {
    if (seen.has(groupDn)) return false;
    seen.add(groupDn);
    const members = valuesOf(byDn.get(groupDn)!, "member").map(normDn);
    return members.includes(dn) || members.some((m) => byDn.has(m) && reaches(m, dn, seen));
  };
  return entries
    .filter(
      (e) => normDn(e.dn).endsWith(`,${normDn(STAFF_OU)}`) && valuesOf(e, "objectClass").includes("user"),
    )
    .filter((e) => (Number(valuesOf(e, "userAccountControl")[0] ?? "0") & 2) === 0)
    .map((e): [string, string[]] => [
      valuesOf(e, "userPrincipalName")[0]!,
      PICKED.filter((cn) => reaches(normDn(group(cn)), normDn(e.dn)))
        .map((cn) => cn.toLowerCase())
        .sort(),
    ])
    .sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

describe("LDAP changes only by AD's uSNChanged, against the AD stand-in", () => {
  let ad: FakeAd;
  beforeAll(async () => {
    ad = await startFakeAd({ entries: DIRECTORY, maxValRange: 500 });
  });
  afterAll(async () => {
    await ad?.close();
  });

  const config = (over: Record<string, unknown> = {}): Config =>
    configSchema.parse({
      source: {
        type: "ldap",
        ldap: adLdapSource(ad.url, {
          groups: [{ cn: "Analytics" }, { cn: "All", parents: [] }],
          ...over,
        }),
      },
    });
  const shape = (r: SourceResult) => ({
    problems: r.problems.map((p) => p.message),
    users: r.state.users.map((u): [string, string[]] => [u.email, [...(u.groups ?? [])].sort()]).sort(),
  });
  const whole = async (c: Config) =>
    shape(await readLdapDesired({ config: c.source.ldap!, env, defaultIdentity: "builtin" }));
  const asAdmin = (fn: (c: Client) => Promise<unknown>) => asAdAdmin(ad.url, fn);
  const replace = (type: string, values: string[]) =>
    new Change({ operation: "replace", modification: new Attribute({ type, values }) });
  const memberChange = (operation: "add" | "delete", dn: string) =>
    new Change({ operation, modification: new Attribute({ type: "member", values: [dn] }) });
  /** The controller as the directory knows it: what a USN position must hold. */
  const controllerNow = () => ({
    uSNChanged: String(ad.store.usn),
    dsServiceName: ntdsSettingsDn(ad.store.controller),
    invocationId: ad.store.invocationId,
  });
  /** Changes read and applied, built; fails the test on a fallback. */
  async function changesSince(c: Config, since: Position, picture: Picture) {
    const feed = openLdapFeed(c, ctx);
    try {
      const batch = await feed.readChanges(since, picture);
      if (batch.kind !== "changes") throw new Error(`fell back: ${batch.reason}: ${batch.detail}`);
      const applied = applyChanges(picture, batch.changes, new Date().toISOString());
      if (!("picture" in applied)) throw new Error(`fell back: ${applied.detail}`);
      return {
        batch,
        picture: applied.picture,
        result: feed.build({ picture: applied.picture, ctx, reads: batch.reads }),
      };
    } finally {
      await feed.close();
    }
  }
  async function readWhole(c: Config) {
    const feed = openLdapFeed(c, ctx);
    try {
      const read = await feed.readWhole();
      return { ...read, result: feed.build({ picture: read.picture, ctx, reads: read.reads }) };
    } finally {
      await feed.close();
    }
  }

  let kept: { position: Position; picture: Picture };

  it("the first run reads whole and keeps the controller's highestCommittedUSN, dsServiceName and invocationId", async () => {
    const c = config();
    const first = await readWhole(c);
    expect(first.position.kind).toBe("ldap");
    expect(first.position.streams).toEqual(controllerNow());
    expect(shape(first.result)).toEqual({ problems: [], users: expected(ad.store.view) });
    expect(shape(first.result)).toEqual(await whole(c));
    kept = first;
  });

  it("a disabled account and a membership removal are read by uSNChanged (from the kept USN + 1 to the new highestCommittedUSN)", async () => {
    const c = config();
    const from = BigInt(kept.position.streams["uSNChanged"]!) + 1n;
    await asAdmin(async (client) => {
      await client.modify(userDn(1), replace("userAccountControl", ["514"]));
      await client.modify(group("Analytics"), memberChange("delete", userDn(0)));
    });
    const to = String(ad.store.usn);
    ad.requests.length = 0;
    const got = await changesSince(c, kept.position, kept.picture);
    const filters = ad.requests.map((r) => r.filter);
    expect(filters.filter((f) => f.includes(`(uSNChanged>=${from})(uSNChanged<=${to})`))).toHaveLength(2);
    expect(filters.some((f) => f.includes("modifyTimestamp"))).toBe(false);
    expect(got.batch.position.streams).toEqual(controllerNow());
    const users = expected(ad.store.view);
    expect(users.map((u) => u[0])).not.toContain(`${userId(1)}@corp.example.com`);
    expect(users).toContainEqual([`${userId(0)}@corp.example.com`, []]);
    expect(shape(got.result)).toEqual({ problems: [], users });
    expect(shape(got.result)).toEqual(await whole(c));
    kept = { position: got.batch.position, picture: got.picture };

    // Nothing written since: the counter has not moved, so no search at all.
    ad.requests.length = 0;
    const quiet = await changesSince(c, kept.position, kept.picture);
    expect(quiet.batch.changes).toEqual([]);
    expect(ad.requests.filter((r) => r.scope === "sub")).toEqual([]);
    // changesBy auto: the rootDSE read that finds AD is the one the window counts from (read once),
    // then the controller's NTDS Settings object: two small reads in all.
    expect(ad.requests.map((r) => r.base)).toEqual(["", ntdsSettingsDn(ad.store.controller)]);
  });

  it("a person added to a nested group reaches the people of every group above it", async () => {
    const c = config();
    await asAdmin(async (client) => {
      const newcomer = person(6);
      await client.add(newcomer.dn, newcomer.attributes);
      await client.modify(group("Platform"), memberChange("add", userDn(6)));
    });
    const got = await changesSince(c, kept.position, kept.picture);
    const users = expected(ad.store.view);
    expect(users).toContainEqual([`${userId(6)}@corp.example.com`, ["all", "analytics"]]);
    expect(shape(got.result)).toEqual({ problems: [], users });
    expect(shape(got.result)).toEqual(await whole(c));
    kept = { position: got.batch.position, picture: got.picture };
  });

  it("another controller, or the same one restored from a backup: a whole read, saying why", async () => {
    const c = config();
    const fallbackOf = async (since: Position, picture: Picture) => {
      const feed = openLdapFeed(c, ctx);
      try {
        return await feed.readChanges(since, picture);
      } finally {
        await feed.close();
      }
    };
    // The same name now answered by DC2, whose counter is past DC1's: only its name tells.
    ad.store.failover("DC2", ad.store.usn + 50_000);
    const moved = await fallbackOf(kept.position, kept.picture);
    expect(moved).toMatchObject({ kind: "fallback", reason: "position-unknown" });
    expect(moved.kind === "fallback" && moved.detail).toContain(
      `another domain controller answered: the kept position is uSNChanged ${kept.position.streams["uSNChanged"]} of ${ntdsSettingsDn("DC1")}, this run reached ${ntdsSettingsDn("DC2")}`,
    );

    // Through the run: the whole read it falls back to keeps DC2's position.
    const run = configSchema.parse({
      source: { ...c.source, changes: { mode: "changes", fullEvery: "7d" } },
    });
    // Digests of nobody: this run reads whole (another controller), which does not ask them.
    const digests = { users: new Map<string, string>(), groups: "" };
    const keptFile = {
      picture: kept.picture,
      position: kept.position,
      digests,
      fullAt: new Date().toISOString(),
    };
    const second = await readChangesOnly(run, ctx, { kept: keptFile, now: Date.now() });
    expect(second?.evidence.read).toMatchObject({ source: "whole", reason: "position-unknown" });
    expect(second!.keep.position.streams).toEqual(controllerNow());
    expect(shape(second!).users).toEqual(expected(ad.store.view));

    // DC2 restored from a backup taken before a change: its counter goes back, its invocationId is new.
    const backup = ad.store.backup();
    const before = second!.keep.position.streams["invocationId"];
    await asAdmin((client) => client.modify(userDn(3), replace("userAccountControl", ["514"])));
    const third = await readChangesOnly(run, ctx, { kept: second!.keep, now: Date.now() });
    expect(third?.evidence.read).toMatchObject({ source: "changes" });
    expect(shape(third!).users.map((u) => u[0])).not.toContain(`${userId(3)}@corp.example.com`);
    ad.store.restore(backup);
    // Writes after the restore take its counter past the kept position: the same numbers, other changes.
    await asAdmin(async (client) => {
      await client.modify(userDn(4), replace("userAccountControl", ["514"]));
      await client.modify(group("Elsewhere"), replace("description", ["restored"]));
      await client.modify(group("Elsewhere"), replace("description", ["restored, twice"]));
    });
    expect(BigInt(ad.store.usn)).toBeGreaterThan(BigInt(third!.keep.position.streams["uSNChanged"]!));
    const restored = await fallbackOf(third!.keep.position, third!.keep.picture);
    expect(restored).toMatchObject({ kind: "fallback", reason: "position-unknown" });
    expect(restored.kind === "fallback" && restored.detail).toContain(
      `the domain controller ${ntdsSettingsDn("DC2")} has a new invocationId (${before} -> ${ad.store.invocationId}): it was restored from a backup`,
    );
    // The restored controller has u0003 enabled again, and u0004 disabled: the whole read says so.
    const fourth = await readChangesOnly(run, ctx, { kept: third!.keep, now: Date.now() });
    expect(fourth?.evidence.read).toMatchObject({ source: "whole", reason: "position-unknown" });
    expect(shape(fourth!).users).toEqual(expected(ad.store.view));
    expect(shape(fourth!).users.map((u) => u[0])).toContain(`${userId(3)}@corp.example.com`);
    expect(shape(fourth!).users.map((u) => u[0])).not.toContain(`${userId(4)}@corp.example.com`);
  });

  it("changesBy: timestamp on AD keeps a modifyTimestamp; the reader is in the config's digest", async () => {
    const byTime = config({ changesBy: "timestamp" });
    const first = await readWhole(byTime);
    expect(Object.keys(first.position.streams)).toEqual(["modifyTimestamp"]);
    const digests = new Set(
      (["auto", "usn", "timestamp"] as const).map(
        (by) => openLdapFeed(config({ changesBy: by }), ctx).configDigest,
      ),
    );
    expect(digests.size).toBe(3);
    // A USN position given to the timestamp reader (or the other way round) is never read as its own.
    const feed = openLdapFeed(byTime, ctx);
    try {
      const odd = await feed.readChanges(kept.position, kept.picture);
      expect(odd).toMatchObject({ kind: "fallback", reason: "position-unknown" });
    } finally {
      await feed.close();
    }
    const usnFeed = openLdapFeed(config({ changesBy: "usn" }), ctx);
    try {
      const odd = await usnFeed.readChanges(first.position, first.picture);
      expect(odd).toMatchObject({ kind: "fallback", reason: "position-unknown" });
      expect(odd.kind === "fallback" && odd.detail).toMatch(
        /not an Active Directory uSNChanged \(it is modifyTimestamp\)/,
      );
    } finally {
      await usnFeed.close();
    }
  });
});

describe("the AD stand-in keeps uSNChanged as Microsoft documents it", () => {
  it("each write is one update of the controller's counter, stamped on the object written (a group's, not its member's)", async () => {
    const ad = await startFakeAd({ entries: DIRECTORY, maxValRange: 500 });
    const client = new Client({ url: ad.url });
    try {
      // The rootDSE answers before a bind, as AD's does.
      const root = async () =>
        (await client.search("", { scope: "base", attributes: ["highestCommittedUSN", "dsServiceName"] }))
          .searchEntries[0]!;
      const usnOf = async (dn: string) =>
        Number(
          (await client.search(dn, { scope: "base", attributes: ["uSNChanged"] })).searchEntries[0]![
            "uSNChanged"
          ],
        );
      const before = Number((await root())["highestCommittedUSN"]);
      expect((await root())["dsServiceName"]).toBe(ntdsSettingsDn("DC1"));
      await client.bind(AD_ADMIN_DN, AD_ADMIN_PASSWORD);
      const member = await usnOf(userDn(3));
      await client.modify(
        group("Elsewhere"),
        new Change({
          operation: "add",
          modification: new Attribute({ type: "member", values: [userDn(3)] }),
        }),
      );
      expect(Number((await root())["highestCommittedUSN"])).toBe(before + 1);
      expect(await usnOf(group("Elsewhere"))).toBe(before + 1);
      expect(await usnOf(userDn(3))).toBe(member);
      const { searchEntries } = await client.search(ntdsSettingsDn("DC1"), {
        scope: "base",
        attributes: ["invocationId"],
        explicitBufferAttributes: ["invocationId"],
      });
      expect((searchEntries[0]!["invocationId"] as Buffer).length).toBe(16);
    } finally {
      await client.unbind();
      await ad.close();
    }
  });
});
