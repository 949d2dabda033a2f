/**
 * Active Directory's people who left, without a DN listing (`source.ldap.showDeleted`, with the
 * `uSNChanged` reader; docs/ldap.md, "Active Directory without listings"). One search of the
 * domain (the trailing `DC=` RDNs of `baseDn`) for every object written in the window, with the
 * Show Deleted control (1.2.840.113556.1.4.417, Microsoft's "Retrieving Deleted Objects"), so a
 * deleted object is found as its tombstone: MS-ADTS 3.1.1.5.5.6.1 keeps its `objectGUID` and
 * `uSNChanged`, and sets `lastKnownParent` and `msDS-LastKnownRDN`, so its DN before the delete is
 * `<rdn type>=<msDS-LastKnownRDN>,<lastKnownParent>`. A renamed or moved object is a write of it,
 * found at its new DN; the picture keeps every person's `objectGUID`, so the DN it had is known.
 *
 * Every DN so named (old and new) under `baseDn` is read again with `userFilter`, restricted to
 * those DNs by `distinguishedName`: found -> changed or new; a person of the picture not found ->
 * gone (deleted, moved or renamed away, or no longer matching the filter: a disabled account).
 * The groups are read as the `uSNChanged` reader reads them (changes.ts: a search by
 * `uSNChanged` and a listing of the group DNs, one page for a few hundred groups).
 */
import { DirectoryError, SourceUnavailableError } from "../../../errors.js";
import type { DirectoryChange } from "../changes/feed.js";
import type { UserChangesInput } from "./changes.js";
import { namingContext } from "./in-chain-search.js";
import { peopleAt, personChanges, under } from "./log-touched.js";
import { binaryText, normaliseDn, valuesOf } from "./template.js";

/** The Show Deleted control's OID (LDAP_SERVER_SHOW_DELETED_OID). */
export const SHOW_DELETED = "1.2.840.113556.1.4.417";
const CHANGED_ATTRIBUTES = ["objectGUID", "isDeleted", "msDS-LastKnownRDN", "lastKnownParent"];

/** RFC 4514's escapes of an attribute value in a DN. */
export function escapeDnValue(value: string): string {
  return value
    .replace(/[\\,+"<>;=]/g, (c) => `\\${c}`)
    .replace(/^[ #]/, (c) => `\\${c}`)
    .replace(/ $/, "\\ ");
}

/** The DN a changed object had or has: a tombstone's from its last known RDN and parent. */
function dnsOf(dn: string, values: ReturnType<typeof valuesOf>): { guid: string | undefined; dn?: string } {
  const first = (name: string) => values.get(name.toLowerCase())?.[0];
  const raw = first("objectGUID");
  const guid = raw === undefined ? undefined : typeof raw === "string" ? raw : binaryText("objectGUID", raw);
  if (String(first("isDeleted") ?? "").toUpperCase() !== "TRUE") return { guid, dn };
  const rdn = first("msDS-LastKnownRDN");
  const parent = first("lastKnownParent");
  const type = /^\s*([^=]+)=/.exec(dn)?.[1]?.trim() ?? "CN";
  if (typeof rdn !== "string" || typeof parent !== "string") return { guid };
  return { guid, dn: `${type}=${escapeDnValue(rdn)},${parent}` };
}

/**
 * Whether this account sees deleted objects: the Deleted Objects container, read with the
 * control. Without it a deleted person would go unseen, so the run stops (exit 4) instead.
 */
async function deletedObjectsSeen(o: UserChangesInput, domain: string): Promise<void> {
  const dn = `CN=Deleted Objects,${domain}`;
  const stop = (why: string) =>
    new DirectoryError({
      message: `source.ldap.showDeleted is true but ${why}: this bind account cannot see deleted objects, so a deleted person would go unseen. Grant it the right to list ${dn} and read its objects, or unset source.ldap.showDeleted (the run then lists DNs). Nothing was sent to the service.`,
    });
  let entry;
  try {
    entry = await o.connection.entry({ dn, attributes: ["1.1"], showDeleted: true });
  } catch (err) {
    if (err instanceof SourceUnavailableError) throw err;
    throw stop(
      `the directory ${o.config.url} refused a read of ${dn} with the Show Deleted control (${(err as Error).message})`,
    );
  }
  if (entry === undefined) throw stop(`the directory ${o.config.url} gave no entry ${dn}`);
}

/** ChangeReader.users with `showDeleted`: the people's changes from the objects written. */
export async function tombstoneUserChanges(o: UserChangesInput): Promise<DirectoryChange[]> {
  const { config, connection, users } = o;
  const base = namingContext(config.baseDn);
  await deletedObjectsSeen(o, base);
  const byGuid = new Map<string, string>();
  for (const p of o.picture.people) {
    const guid = (p.attributes["objectguid"] as string[] | undefined)?.[0];
    if (guid !== undefined) byGuid.set(guid.toLowerCase(), p.id);
  }
  const named = new Map<string, string>();
  const filter = `(&${o.clause})`;
  let pages = 0;
  let read = 0;
  for await (const page of connection.pages({
    base,
    filter,
    attributes: CHANGED_ATTRIBUTES,
    showDeleted: true,
  })) {
    pages += 1;
    for (const entry of page) {
      read += 1;
      const { guid, dn } = dnsOf(entry.dn, valuesOf(entry));
      if (dn !== undefined) named.set(normaliseDn(dn), dn);
      const kept = guid === undefined ? undefined : byGuid.get(guid.toLowerCase());
      if (kept !== undefined) named.set(kept, kept);
    }
  }
  o.reads.push({
    what: `objects written under ${base} (${filter}, deleted ones too)`,
    announced: "unknown",
    pages,
    read,
  });
  const userBase = normaliseDn(config.baseDn);
  const dns = [...named].filter(([id]) => under(id, userBase)).map(([, dn]) => dn);
  const people = await peopleAt({ ...o, dnAttribute: "distinguishedName" }, dns);
  return personChanges(people, users, named.keys());
}
