/**
 * The directory behind the fake AD server (fake-ad.ts): its entries, and the change tracking of
 * the one domain controller that answers, as Microsoft documents it ("Polling for Changes Using
 * USNChanged", Win32 AD DS docs; MS-ADTS for the rootDSE):
 *
 * - every write (add, modify, delete) is one update: the controller's counter goes up by one, and
 *   the object written gets it as `uSNChanged` (an added one as `uSNCreated` too); the rootDSE's
 *   `highestCommittedUSN` is the counter;
 * - `uSNChanged` is not replicated: another controller (`failover`) numbers every object its own
 *   way, and has its own NTDS Settings object (the rootDSE's `dsServiceName`) and `invocationId`;
 * - a controller restored from a backup (`restore`) has the backup's objects and counter, and a
 *   new `invocationId`;
 * - `memberOf` is a back link computed from the groups' `member`: a membership change is a write
 *   of the group only, never of its members;
 * - every object has an `objectGUID` (given, or made at its add) and a `distinguishedName`;
 * - a deleted object becomes a tombstone in the same update (MS-ADTS 3.1.1.5.5.6.1): under
 *   `CN=Deleted Objects` with a delete-mangled RDN (`<rdn>\0ADEL:<guid>`), keeping objectClass,
 *   objectGUID, sAMAccountName, userAccountControl and uSNChanged, with `isDeleted: TRUE`,
 *   `lastKnownParent` (its parent's DN) and `msDS-LastKnownRDN` (its RDN's value); only a search
 *   with the Show Deleted control sees it (fake-ad.ts); the groups that listed it lose the link;
 * - a rename or move (modifyDN) is one update of the object; the groups that list it follow it
 *   (AD's links are to the object, not to its name).
 */
import { randomUUID } from "node:crypto";

export const AD_SUFFIX = "DC=corp,DC=example,DC=com";
export const AD_CONFIGURATION = `CN=Configuration,${AD_SUFFIX}`;
export const DELETED_OBJECTS = `CN=Deleted Objects,${AD_SUFFIX}`;
/** MS-ADTS 3.1.1.3.4.3: LDAP_CAP_ACTIVE_DIRECTORY_OID. */
export const AD_CAPABILITY = "1.2.840.113556.1.4.800";

export interface AdEntry {
  dn: string;
  attributes: Record<string, string[]>;
}

export const normDn = (dn: string): string =>
  dn
    .replace(/\s*([,=])\s*/g, "$1")
    .trim()
    .toLowerCase();

export function valuesOf(entry: AdEntry, name: string): string[] {
  const key = Object.keys(entry.attributes).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? [] : entry.attributes[key]!;
}

/** The DN of a controller's NTDS Settings object, as the rootDSE's dsServiceName names it. */
export const ntdsSettingsDn = (controller: string): string =>
  `CN=NTDS Settings,CN=${controller},CN=Servers,CN=Default-First-Site-Name,CN=Sites,${AD_CONFIGURATION}`;

export interface Backup {
  entries: AdEntry[];
  usn: number;
}

const copy = (e: AdEntry): AdEntry => ({
  dn: e.dn,
  attributes: Object.fromEntries(Object.entries(e.attributes).map(([k, v]) => [k, [...v]])),
});

function setValues(entry: AdEntry, name: string, values: string[]): void {
  const key = Object.keys(entry.attributes).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
  if (values.length === 0) delete entry.attributes[key];
  else entry.attributes[key] = values;
}

export class AdStore {
  /** The domain's objects as stored (no memberOf). */
  private stored: AdEntry[];
  /** The objects as read: memberOf added. */
  view: AdEntry[] = [];
  /** Deleted objects (tombstones), seen only with the Show Deleted control. */
  tombstones: AdEntry[] = [];
  /** The bind account may not see the Deleted Objects container (AD's default for non-admins). */
  hideDeleted = false;
  byDn = new Map<string, AdEntry>();
  usn: number;
  controller: string;
  invocationId = randomUUID();

  constructor(entries: AdEntry[], controller: string, firstUsn: number) {
    this.controller = controller;
    this.usn = firstUsn;
    this.stored = entries.map(copy);
    for (const e of this.stored) this.stamp(e, true);
    for (const e of this.stored)
      if (valuesOf(e, "objectGUID").length === 0) setValues(e, "objectGUID", [randomUUID()]);
    this.refresh();
  }

  /** One update: the counter up by one, the object stamped with it. */
  private stamp(entry: AdEntry, created: boolean): void {
    this.usn += 1;
    setValues(entry, "uSNChanged", [String(this.usn)]);
    if (created) setValues(entry, "uSNCreated", [String(this.usn)]);
  }

  /** Recomputes memberOf (AD's back link) and the index by DN. */
  private refresh(): void {
    this.view = this.stored.map((e) => ({
      dn: e.dn,
      attributes: { ...e.attributes, distinguishedName: [e.dn] },
    }));
    this.byDn = new Map(this.view.map((e) => [normDn(e.dn), e]));
    for (const group of this.view)
      for (const member of valuesOf(group, "member")) {
        const target = this.byDn.get(normDn(member));
        if (target) target.attributes.memberOf = [...(target.attributes.memberOf ?? []), group.dn];
      }
  }

  private find(dn: string): AdEntry | undefined {
    return this.stored.find((e) => normDn(e.dn) === normDn(dn));
  }

  /** The Deleted Objects container (itself a deleted object: Show Deleted finds it). */
  deletedObjects(): AdEntry {
    return {
      dn: DELETED_OBJECTS,
      attributes: {
        objectClass: ["top", "container"],
        isDeleted: ["TRUE"],
        distinguishedName: [DELETED_OBJECTS],
      },
    };
  }

  /** The NTDS Settings object of the controller that answers (in the configuration NC). */
  ntdsSettings(): AdEntry {
    return {
      dn: ntdsSettingsDn(this.controller),
      attributes: {
        objectClass: ["top", "applicationSettings", "nTDSDSA"],
        invocationId: [this.invocationId],
      },
    };
  }

  add(dn: string, attributes: Record<string, string[]>): "exists" | "ok" {
    if (this.find(dn)) return "exists";
    const entry = copy({ dn, attributes });
    if (valuesOf(entry, "objectGUID").length === 0) setValues(entry, "objectGUID", [randomUUID()]);
    this.stored.push(entry);
    this.stamp(entry, true);
    this.refresh();
    return "ok";
  }

  modify(dn: string, changes: { operation: string; type: string; values: string[] }[]): "missing" | "ok" {
    const entry = this.find(dn);
    if (!entry) return "missing";
    for (const c of changes) {
      const now = valuesOf(entry, c.type);
      const lower = new Set(c.values.map((v) => v.toLowerCase()));
      if (c.operation === "replace") setValues(entry, c.type, c.values);
      else if (c.operation === "add") setValues(entry, c.type, [...now, ...c.values]);
      else
        setValues(entry, c.type, c.values.length === 0 ? [] : now.filter((v) => !lower.has(v.toLowerCase())));
    }
    this.stamp(entry, false);
    this.refresh();
    return "ok";
  }

  /** The groups listing `dn` as a member list `to` instead (none: the member is dropped). */
  private relinkMembers(dn: string, to: string | undefined): void {
    for (const group of this.stored) {
      const members = valuesOf(group, "member");
      if (!members.some((m) => normDn(m) === normDn(dn))) continue;
      const others = members.filter((m) => normDn(m) !== normDn(dn));
      setValues(
        group,
        "member",
        to === undefined ? others : members.map((m) => (normDn(m) === normDn(dn) ? to : m)),
      );
    }
  }

  delete(dn: string): "missing" | "ok" {
    const entry = this.find(dn);
    if (!entry) return "missing";
    this.stored = this.stored.filter((e) => e !== entry);
    this.relinkMembers(dn, undefined);
    // The tombstone's update.
    this.tombstones.push(tombstoneOf(entry));
    this.stamp(this.tombstones.at(-1)!, false);
    this.refresh();
    return "ok";
  }

  /** modifyDN: a new RDN and/or parent; the groups listing it follow. */
  rename(dn: string, newDn: string): "missing" | "exists" | "ok" {
    const entry = this.find(dn);
    if (!entry) return "missing";
    if (this.find(newDn)) return "exists";
    entry.dn = newDn;
    this.relinkMembers(dn, newDn);
    this.stamp(entry, false);
    this.refresh();
    return "ok";
  }

  backup(): Backup {
    return { entries: this.stored.map(copy), usn: this.usn };
  }

  /** The controller restored from a backup: its objects and counter, and a new invocationId. */
  restore(backup: Backup): void {
    this.stored = backup.entries.map(copy);
    this.usn = backup.usn;
    this.invocationId = randomUUID();
    this.refresh();
  }

  /** Another controller answers: the same objects, numbered by its own counter from `firstUsn`. */
  failover(controller: string, firstUsn: number): void {
    this.controller = controller;
    this.invocationId = randomUUID();
    this.usn = firstUsn;
    for (const e of this.stored) this.stamp(e, true);
    this.refresh();
  }
}

/** What deleting an object leaves: MS-ADTS 3.1.1.5.5.6.1's tombstone (the attributes kept). */
function tombstoneOf(entry: AdEntry): AdEntry {
  const [rdn, parent] = entry.dn.split(/,(.*)/s) as [string, string];
  const [type, value] = rdn.split(/=(.*)/s) as [string, string];
  const guid = valuesOf(entry, "objectGUID")[0]!;
  const kept = ["objectClass", "objectGUID", "sAMAccountName", "userAccountControl"];
  const attributes: Record<string, string[]> = {};
  for (const name of kept)
    if (valuesOf(entry, name).length > 0) attributes[name] = [...valuesOf(entry, name)];
  const dn = `${type}=${value}\\0ADEL:${guid},${DELETED_OBJECTS}`;
  return {
    dn,
    attributes: {
      ...attributes,
      isDeleted: ["TRUE"],
      lastKnownParent: [parent],
      "msDS-LastKnownRDN": [value],
      distinguishedName: [dn],
    },
  };
}

/** A GUID's 16 bytes as AD sends them (the first three parts little-endian). */
export function guidBytes(guid: string): Buffer {
  const h = guid.replace(/-/g, "");
  const le = (s: string) => Buffer.from(s, "hex").reverse();
  return Buffer.concat([
    le(h.slice(0, 8)),
    le(h.slice(8, 12)),
    le(h.slice(12, 16)),
    Buffer.from(h.slice(16), "hex"),
  ]);
}
