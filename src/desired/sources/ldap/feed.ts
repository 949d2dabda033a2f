/**
 * LDAP's change feed (../changes/feed.ts): the whole read takes its position first (AD's
 * highestCommittedUSN: usn.ts; or the time it began, less a margin: changes.ts), then reads every
 * group and every user into a picture (picture.ts); a changes-only run searches by `uSNChanged`
 * or `modifyTimestamp` since the position and lists the DNs to see what left (changes.ts; on AD
 * with `showDeleted`, tombstones instead of the users' listing: tombstones.ts), or reads
 * OpenLDAP's access log (accesslog.ts). The reader is chosen once per run by
 * `source.ldap.changesBy` (usn.ts). The desired state is built from the picture (build.ts), after
 * a batch of changes only for the people it can have touched (a partial build, changes/partial.ts).
 */
import type { Config } from "../../../config/schema.js";
import { ConfigError } from "../../../errors.js";
import { sourceDigest } from "../changes/digest.js";
import { PICTURE_FORMAT_VERSION, type ChangeFeed, type WholeRead } from "../changes/feed.js";
import type { SourceContext } from "../contract.js";
import { buildLdapDesired } from "./build.js";
import { readLdapChanges, type ChangeReader } from "./changes.js";
import { openLdap, type LdapConfig, type LdapConnection } from "./client.js";
import { prunedGroups, readPictureGroups, readPicturePeople, USERS, USERS_RULE } from "./picture.js";
import { withNested } from "./in-chain-search.js";
import { chooseReader } from "./usn.js";

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Takes the position, then reads every group and user into a picture. */
export async function readLdapWhole(o: {
  config: LdapConfig;
  connection: LdapConnection;
  reader: ChangeReader;
  digest: string;
  now: number;
}): Promise<WholeRead> {
  const { config, connection } = o;
  const position = await o.reader.position(o.now);
  const found = config.groups.length > 0 ? await readPictureGroups(config, connection) : [];
  // inChain: each picked group keeps the groups below it, for the changes-only read (in-chain.ts).
  const nested =
    config.nested === "inChain" && found.length > 0 ? await withNested(config, connection, found) : undefined;
  const groups = nested?.groups ?? found;
  const { people, read } = await readPicturePeople(config, connection);
  const users = {
    id: USERS,
    name: `users under ${config.baseDn}`,
    rule: USERS_RULE,
    attributes: {},
    people: people.map((p) => p.id).sort(),
    groups: [],
  };
  return {
    picture: {
      formatVersion: PICTURE_FORMAT_VERSION,
      kind: "ldap",
      configDigest: o.digest,
      readAt: position.takenAt,
      groups: prunedGroups([...groups, users]),
      people: [...new Map(people.map((p) => [p.id, p])).values()].sort(byId),
    },
    position,
    reads: nested === undefined ? [read] : [read, nested.read],
  };
}

export function openLdapFeed(config: Config, ctx: SourceContext): ChangeFeed {
  const ldap = config.source.ldap;
  if (ldap === undefined)
    throw new ConfigError({
      message: "source.type is ldap but source.ldap is not set: see docs/ldap.md and config.example.yaml.",
    });
  const digest = sourceDigest(config);
  let connection: LdapConnection | undefined;
  let reader: ChangeReader | undefined;
  const connected = async () => (connection ??= await openLdap(ldap, ctx.env));
  const chosen = async () => (reader ??= await chooseReader(ldap, await connected()));
  return {
    kind: "ldap",
    configDigest: digest,
    readWhole: async () =>
      readLdapWhole({
        config: ldap,
        connection: await connected(),
        reader: await chosen(),
        digest,
        now: Date.now(),
      }),
    readChanges: async (since, picture) =>
      readLdapChanges({
        config: ldap,
        connection: await connected(),
        reader: await chosen(),
        since,
        picture,
        now: Date.now(),
      }),
    build: (input) => buildLdapDesired(ldap, input),
    partial: true,
    close: async () => {
      await connection?.close();
    },
  };
}
