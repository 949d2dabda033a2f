/**
 * LDAP's change feed against a real slapd: the changes since a position (modifyTimestamp, and
 * DN listings for what left), applied to the picture, give exactly what a whole read of the
 * directory gives afterwards (a leaver filtered out, a membership removed, a person added to a
 * nested group reaching every group above it); a position it cannot read and a newly picked
 * group fall back to a whole read; `changesBy: auto` reads by modifyTimestamp here (slapd is not
 * AD) and `usn` is refused; a directory gone mid-run is exit 5.
 */
import { Attribute, Change, Client } from "ldapts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exitCodeFor } from "../../../../src/errors.js";
import { configSchema, type Config } from "../../../../src/config/schema.js";
import { createLogger } from "../../../../src/logging.js";
import { applyChanges } from "../../../../src/desired/sources/changes/apply.js";
import type { Position } from "../../../../src/desired/sources/changes/feed.js";
import { readLdapDesired } from "../../../../src/desired/sources/ldap/index.js";
import { openLdapFeed } from "../../../../src/desired/sources/ldap/feed.js";
import { readChangesOnly } from "../../../../src/desired/sources/changes/source.js";
import { generalizedTime } from "../../../../src/desired/sources/ldap/changes.js";
import { USERS } from "../../../../src/desired/sources/ldap/picture.js";
import type { SourceResult } from "../../../../src/desired/sources/contract.js";
import {
  READER_PASSWORD,
  ROOT_DN,
  ROOT_PASSWORD,
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
  ...["ada", "grace", "linus", "ken", "solo"].map(personLdif),
  groupLdif("Analytics", [person("ada"), person("grace"), person("linus"), group("Platform")]),
  groupLdif("Platform", [person("ken")]),
  groupLdif("All", [group("Analytics")]),
  groupLdif("Elsewhere", [person("solo")]),
].join("\n");

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A position at this second (no margin): what changes after it is the batch. */
const positionNow = (): Position => ({
  kind: "ldap",
  streams: { modifyTimestamp: generalizedTime(Date.now()) },
  takenAt: new Date().toISOString(),
});

describe.skipIf(!slapdAvailable())("LDAP changes only (modifyTimestamp) against slapd", () => {
  let slapd: Slapd;
  beforeAll(async () => {
    slapd = await startSlapd(LDIF);
  }, 60_000);
  afterAll(async () => {
    await slapd?.remove();
  });

  const asRoot = async (fn: (c: Client) => Promise<void>) => {
    const client = new Client({ url: slapd.url });
    await client.bind(ROOT_DN, ROOT_PASSWORD);
    try {
      await fn(client);
    } finally {
      await client.unbind();
    }
  };
  const config = (groups: unknown[] = [{ cn: "Analytics" }, { cn: "All", parents: [] }]): Config =>
    configSchema.parse({
      source: {
        type: "ldap",
        ldap: slapdLdapSource(slapd.url, { groups }),
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

  it("a leaver, a membership removal and a person added to a nested group: applied, as a whole read", async () => {
    const c = config();
    const feed = openLdapFeed(c, ctx);
    try {
      const first = await feed.readWhole();
      expect(shape(feed.build({ picture: first.picture, ctx, reads: first.reads }))).toEqual(await whole(c));
      await wait(1100);
      const since = positionNow();
      await wait(1100);
      await asRoot(async (client) => {
        // The leaver: disabled, so the user search no longer finds them.
        await client.modify(
          person("linus"),
          new Change({
            operation: "add",
            modification: new Attribute({ type: "employeeType", values: ["disabled"] }),
          }),
        );
        await client.modify(
          group("Analytics"),
          new Change({
            operation: "delete",
            modification: new Attribute({ type: "member", values: [person("grace")] }),
          }),
        );
        await client.add(person("newbie"), {
          objectClass: "inetOrgPerson",
          uid: "newbie",
          cn: "newbie",
          sn: "Example",
          mail: "newbie@example.org",
        });
        await client.modify(
          group("Platform"),
          new Change({
            operation: "add",
            modification: new Attribute({ type: "member", values: [person("newbie")] }),
          }),
        );
      });
      const batch = await feed.readChanges(since, first.picture);
      expect(batch.kind).toBe("changes");
      if (batch.kind !== "changes") return;
      const kinds = batch.changes.map((ch) =>
        ch.type === "group-read"
          ? `group-read ${ch.group.id}`
          : `${ch.type} ${"member" in ch ? ch.member : ""}`,
      );
      expect(kinds.sort()).toEqual(
        [
          `member-removed ${person("linus")}`,
          `member-added ${person("newbie")}`,
          `group-read ${group("analytics").toLowerCase()}`,
          `group-read ${group("platform").toLowerCase()}`,
        ].sort(),
      );
      const applied = applyChanges(first.picture, batch.changes, new Date().toISOString());
      if (!("picture" in applied)) throw new Error(`fell back: ${applied.detail}`);
      const after = shape(feed.build({ picture: applied.picture, ctx, reads: batch.reads }));
      expect(after).toEqual(await whole(c));
      expect(after.users).toContainEqual(["newbie@example.org", ["all", "analytics"]]);
      expect(after.users.map((u) => u[0])).not.toContain("linus@example.org");
      expect(after.users).toContainEqual(["grace@example.org", []]);
      expect(applied.picture.groups.find((g) => g.id === USERS)?.people).toContain(person("solo"));

      // Nothing changed since the position: an empty batch.
      await wait(1100);
      const quiet = await feed.readChanges(positionNow(), applied.picture);
      expect(quiet.kind === "changes" && quiet.changes).toEqual([]);
    } finally {
      await feed.close();
    }
  }, 60_000);

  it("a position it cannot read, and a group a rule newly picks, fall back to a whole read", async () => {
    const c = config([{ cn: "Analytics" }, { cn: "Team-*" }]);
    const feed = openLdapFeed(c, ctx);
    try {
      const first = await feed.readWhole();
      const odd = await feed.readChanges({ ...first.position, streams: { usn: "12" } }, first.picture);
      expect(odd).toMatchObject({ kind: "fallback", reason: "position-unknown" });
      const future = await feed.readChanges(
        { ...first.position, streams: { modifyTimestamp: generalizedTime(Date.now() + 86_400_000) } },
        first.picture,
      );
      expect(future).toMatchObject({ kind: "fallback", reason: "position-unknown" });
      const since = positionNow();
      await wait(1100);
      await asRoot((client) =>
        client.add(group("Team-new"), { objectClass: "groupOfNames", cn: "Team-new", member: person("ada") }),
      );
      const batch = await feed.readChanges(since, first.picture);
      expect(batch).toMatchObject({ kind: "fallback", reason: "groups-changed" });
      expect(batch.kind === "fallback" && batch.detail).toMatch(
        /cn=Team-new,ou=groups,dc=example,dc=org is now picked by source.ldap.groups\[1\]/,
      );
    } finally {
      await feed.close();
    }
  }, 60_000);

  it("through the run (readChangesOnly): a whole read first, then the changes; a leaver is gone", async () => {
    const base = config();
    const c = configSchema.parse({
      source: { ...base.source, changes: { mode: "changes", fullEvery: "7d" } },
    });
    const first = await readChangesOnly(c, ctx, { kept: { unusable: "no file yet" }, now: Date.now() });
    expect(first?.evidence.read).toMatchObject({ source: "whole", reason: "no-picture" });
    await asRoot((client) =>
      client.modify(
        person("ken"),
        new Change({
          operation: "add",
          modification: new Attribute({ type: "employeeType", values: ["disabled"] }),
        }),
      ),
    );
    const second = await readChangesOnly(c, ctx, { kept: first!.keep, now: Date.now() });
    expect(second?.evidence.read).toMatchObject({ source: "changes" });
    expect(second!.state.users.map((u) => u.email)).not.toContain("ken@example.org");
    expect(shape(second!)).toEqual(await whole(c));
  }, 60_000);

  it("changesBy auto on slapd (no AD capability in its rootDSE) reads by modifyTimestamp; usn is a config error (exit 4)", async () => {
    const auto = openLdapFeed(config(), ctx);
    try {
      expect(config().source.ldap!.changesBy).toBe("auto");
      const first = await auto.readWhole();
      expect(Object.keys(first.position.streams)).toEqual(["modifyTimestamp"]);
      const quiet = await auto.readChanges(first.position, first.picture);
      expect(quiet.kind).toBe("changes");
    } finally {
      await auto.close();
    }
    const base = config();
    const usn = configSchema.parse({
      source: { ...base.source, ldap: { ...base.source.ldap, changesBy: "usn" } },
    });
    const feed = openLdapFeed(usn, ctx);
    try {
      const err = await feed.readWhole().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(exitCodeFor(err)).toBe(4);
      expect((err as Error).message).toMatch(
        /source.ldap.changesBy is usn but the directory .* gives no highestCommittedUSN and dsServiceName in its rootDSE.*Set source.ldap.changesBy to timestamp/,
      );
    } finally {
      await feed.close();
    }
  }, 60_000);

  it("the directory gone in the middle of a changes-only read: exit 5", async () => {
    const feed = openLdapFeed(config(), ctx);
    try {
      const first = await feed.readWhole();
      await slapd.stop();
      let code = 0;
      try {
        await feed.readChanges(first.position, first.picture);
      } catch (err) {
        code = exitCodeFor(err);
      }
      expect(code).toBe(5);
    } finally {
      await feed.close();
      await slapd.start();
    }
  }, 60_000);
});
