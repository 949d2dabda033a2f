/**
 * `source.ldap.changesBy: accesslog` against a real slapd with slapo-accesslog: one search of the
 * log since the position and the DNs it names read again, no DN listing; the changes applied to
 * the picture give exactly what a whole read gives afterwards (a leaver deleted, a leaver filtered
 * out, a person moved out of the base, a membership removed, a group newly nested). A log with no
 * write to anchor on, a purged position and an `ou` moved into the base read whole; a log the account cannot read
 * is exit 4 with the fix named.
 */
import { Attribute, Change, Client } from "ldapts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exitCodeFor } from "../../../../src/errors.js";
import { configSchema, type Config } from "../../../../src/config/schema.js";
import { createLogger } from "../../../../src/logging.js";
import { applyChanges } from "../../../../src/desired/sources/changes/apply.js";
import type { ChangeBatch, Picture } from "../../../../src/desired/sources/changes/feed.js";
import { readLdapDesired } from "../../../../src/desired/sources/ldap/index.js";
import { openLdapFeed } from "../../../../src/desired/sources/ldap/feed.js";
import type { SourceResult } from "../../../../src/desired/sources/contract.js";
import {
  LOG_BASE,
  LOG_ROOT_DN,
  READER_PASSWORD,
  ROOT_DN,
  ROOT_PASSWORD,
  SUFFIX,
  groupDn,
  groupLdif,
  personDn,
  personLdif,
  slapdAvailable,
  slapdLdapSource,
  startSlapd,
  type Slapd,
} from "../../../helpers/slapd.js";

const logger = createLogger({ level: "silent", format: "json" });
const person = personDn;
const group = groupDn;

const LDIF = [
  ...["ada", "grace", "linus", "ken", "solo", "mover"].map(personLdif),
  `dn: ou=former,${SUFFIX}\nobjectClass: organizationalUnit\nou: former\n`,
  groupLdif("Analytics", [person("ada"), person("grace"), person("linus"), group("Platform")]),
  groupLdif("Platform", [person("ken"), person("mover")]),
  groupLdif("All", [group("Analytics")]),
  groupLdif("Sub", [person("solo")]),
].join("\n");

const add = (type: string, values: string[]) =>
  new Change({ operation: "add", modification: new Attribute({ type, values }) });
const remove = (type: string, values: string[]) =>
  new Change({ operation: "delete", modification: new Attribute({ type, values }) });

describe.skipIf(!slapdAvailable())("LDAP changes only by the access log against slapd", () => {
  let slapd: Slapd;
  beforeAll(async () => {
    slapd = await startSlapd(LDIF, { accessLog: true });
  }, 60_000);
  afterAll(async () => {
    await slapd?.remove();
  });

  const as = async (dn: string, fn: (c: Client) => Promise<unknown>) => {
    const client = new Client({ url: slapd.url });
    await client.bind(dn, ROOT_PASSWORD);
    try {
      await fn(client);
    } finally {
      await client.unbind();
    }
  };
  const asRoot = (fn: (c: Client) => Promise<unknown>) => as(ROOT_DN, fn);
  const config = (ldap: Record<string, unknown> = {}): Config =>
    configSchema.parse({
      source: {
        type: "ldap",
        ldap: slapdLdapSource(slapd.url, {
          groups: [{ cn: "Analytics" }, { cn: "All", parents: [] }],
          changesBy: "accesslog",
          ...ldap,
        }),
      },
    });
  const env = { USERSYNC_LDAP_PASSWORD: READER_PASSWORD };
  const ctx = { env, logger, defaultIdentity: "builtin" as const };
  const shape = (r: SourceResult) => ({
    problems: r.problems.map((p) => p.message),
    users: r.state.users.map((u) => [u.email, [...(u.groups ?? [])].sort()]).sort(),
    groups: r.state.groups.map((g) => [g.id, g.name, g.parents ?? []]).sort(),
  });
  const whole = async (c: Config) =>
    shape(await readLdapDesired({ config: c.source.ldap!, env, defaultIdentity: "builtin" }));
  const applied = (picture: Picture, batch: ChangeBatch): Picture => {
    if (batch.kind !== "changes") throw new Error(`fell back: ${batch.detail}`);
    const out = applyChanges(picture, batch.changes, new Date().toISOString());
    if (!("picture" in out)) throw new Error(`fell back: ${out.detail}`);
    return out.picture;
  };

  it("a log with no write yet reads whole; then leavers deleted, filtered out and moved, a rename, a membership and a nesting: as a whole read, no listing", async () => {
    const c = config();
    const feed = openLdapFeed(c, ctx);
    try {
      // slapadd writes no log: nothing to anchor on, so the next run reads whole.
      const empty = await feed.readWhole();
      expect(empty.position.streams).toEqual({ reqStart: "", seen: "", accessLog: LOG_BASE });
      const again = await feed.readChanges(empty.position, empty.picture);
      expect(again).toMatchObject({ kind: "fallback", reason: "position-expired" });
      expect(again.kind === "fallback" && again.detail).toMatch(
        /held no write when the last whole read began/,
      );

      await asRoot((client) => client.modify(person("solo"), [add("description", ["a first write"])]));
      const first = await feed.readWhole();
      expect(first.position.streams["reqStart"]).toMatch(/^\d{14}\.\d{6}Z$/);
      expect(shape(feed.build({ picture: first.picture, ctx, reads: first.reads }))).toEqual(await whole(c));

      const quiet = await feed.readChanges(first.position, first.picture);
      expect(quiet).toMatchObject({ kind: "changes", changes: [] });
      // Nothing changed: one search of the log, nothing else.
      expect(quiet.kind === "changes" && quiet.reads.map((r) => r.what)).toEqual([
        expect.stringMatching(/^access log cn=accesslog/),
      ]);

      await asRoot(async (client) => {
        await client.del(person("ada")); // a leaver deleted
        await client.modify(person("linus"), [add("employeeType", ["disabled"])]); // filtered out
        await client.modifyDN(person("mover"), `uid=mover,ou=former,${SUFFIX}`); // moved out of the base
        await client.modifyDN(person("ken"), "uid=kenneth"); // renamed in the base
        await client.modify(group("Analytics"), [remove("member", [person("grace")])]);
        await client.add(person("newbie"), {
          objectClass: "inetOrgPerson",
          uid: "newbie",
          cn: "newbie",
          sn: "N",
          mail: "newbie@example.org",
        });
        await client.modify(group("Platform"), [add("member", [person("newbie"), group("Sub")])]); // Sub newly nested
      });
      const batch = await feed.readChanges(first.position, first.picture);
      expect(batch.kind).toBe("changes");
      if (batch.kind !== "changes") return;
      expect(batch.reads.map((r) => r.what).join("\n")).not.toMatch(/^DNs under/m);
      const kinds = batch.changes.map((ch) =>
        ch.type === "group-read"
          ? `group-read ${ch.group.id}`
          : `${ch.type} ${"member" in ch ? ch.member : ""}`,
      );
      expect(kinds).toEqual(
        expect.arrayContaining([
          `member-removed ${person("ada")}`,
          `member-removed ${person("linus")}`,
          `member-removed ${person("mover")}`,
          `member-removed ${person("ken")}`,
          `member-added ${person("kenneth")}`,
          `member-added ${person("newbie")}`,
          `group-read ${group("analytics").toLowerCase()}`,
          `group-read ${group("platform").toLowerCase()}`,
          `group-read ${group("sub").toLowerCase()}`,
        ]),
      );
      const picture = applied(first.picture, batch);
      const after = shape(feed.build({ picture, ctx, reads: batch.reads }));
      expect(after).toEqual(await whole(c));
      expect(after.users).toContainEqual(["solo@example.org", ["all", "analytics"]]);
      expect(after.users.map((u) => u[0])).not.toEqual(expect.arrayContaining(["ada@example.org"]));
      expect(batch.position.streams["reqStart"]! > first.position.streams["reqStart"]!).toBe(true);

      // The position moved on: nothing since it; the writes of its overlap are not read again.
      expect(batch.position.streams["seen"]!.split(" ")).toHaveLength(7);
      const next = await feed.readChanges(batch.position, picture);
      expect(next).toMatchObject({ kind: "changes", changes: [] });
      // A write logged late (a long write is stamped when it began) is read when the overlap has
      // not seen it: here, every write since the first position.
      const late = { ...batch.position.streams, seen: first.position.streams["reqStart"]! };
      const replay = await feed.readChanges({ ...batch.position, streams: late }, picture);
      expect(replay.kind === "changes" && replay.changes.map((ch) => ch.type)).toContain("person-upserted");
    } finally {
      await feed.close();
    }
  }, 60_000);

  it("a purged position, an ou moved into the base and a renamed picked group read whole", async () => {
    const c = config();
    const feed = openLdapFeed(c, ctx);
    try {
      await asRoot((client) => client.modify(person("grace"), [add("description", ["anchor"])]));
      const first = await feed.readWhole();
      const anchor = first.position.streams["reqStart"]!;
      await asRoot((client) => client.modify(person("grace"), [add("description", ["later"])]));

      // An ou moved into the base moves the entries below it without a log entry of their own.
      await asRoot((client) => client.modifyDN(`ou=former,${SUFFIX}`, `ou=former,ou=people,${SUFFIX}`));
      const moved = await feed.readChanges(first.position, first.picture);
      expect(moved).toMatchObject({ kind: "fallback", reason: "groups-changed" });
      expect(moved.kind === "fallback" && moved.detail).toMatch(
        /ou=former,dc=example,dc=org renamed or moved/,
      );

      // A picked group renamed: gone under its DN, so the run reads whole (applyChanges).
      const second = await feed.readWhole();
      await asRoot((client) => client.modifyDN(group("Analytics"), "cn=Analytics2"));
      const renamed = await feed.readChanges(second.position, second.picture);
      expect(renamed.kind).toBe("changes");
      const out = applyChanges(second.picture, renamed.kind === "changes" ? renamed.changes : [], "now");
      expect(out).toMatchObject({ fallback: "groups-changed" });
      await asRoot(async (client) => {
        await client.modifyDN(group("Analytics2"), "cn=Analytics");
        await client.modifyDN(`ou=former,ou=people,${SUFFIX}`, `ou=former,${SUFFIX}`);
      });

      // logpurge deletes the oldest entries: the position's entry gone reads whole.
      await as(LOG_ROOT_DN, (client) => client.del(`reqStart=${anchor},${LOG_BASE}`));
      const purged = await feed.readChanges(first.position, first.picture);
      expect(purged).toMatchObject({ kind: "fallback", reason: "position-expired" });
      expect(purged.kind === "fallback" && purged.detail).toMatch(`no longer holds reqStart=${anchor}`);
    } finally {
      await feed.close();
    }
  }, 60_000);

  it("a log the account cannot read, or no log at accessLogBase: exit 4 naming the fix", async () => {
    for (const c of [config({ bindDn: undefined }), config({ accessLogBase: "cn=nolog" })]) {
      const feed = openLdapFeed(c, ctx);
      try {
        const err = await feed.readWhole().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(exitCodeFor(err)).toBe(4);
        expect((err as Error).message).toMatch(
          /source.ldap.changesBy is accesslog and the access log cn=(accesslog|nolog) cannot be read.*give the bind account read access/,
        );
      } finally {
        await feed.close();
      }
    }
  }, 60_000);
});
