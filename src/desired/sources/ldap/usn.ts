/**
 * Active Directory's changes by `uSNChanged`, as Microsoft documents it ("Polling for Changes
 * Using USNChanged" and "Example Code to Retrieve Changes Using USNChanged", Win32 AD DS docs):
 *
 * - a domain controller stamps every object it writes with a `uSNChanged` larger than any it gave
 *   before; the counter is the controller's own (not replicated);
 * - before a whole read, read the rootDSE's `highestCommittedUSN` and keep it with the read;
 * - a later read rereads `highestCommittedUSN` (H) first, then searches the entries of interest
 *   with `uSNChanged >= kept + 1` (and, here, `<= H`: the window the next position starts
 *   after), paged; H is kept for the next run;
 * - it must be the same controller (the rootDSE's `dsServiceName`, the DN of its NTDS Settings
 *   object) and one not restored from a backup (that object's `invocationId`, which a restore
 *   changes): otherwise a whole read.
 *
 * Deletions are seen by the DN listings every changes-only read makes (changes.ts), or, with
 * `source.ldap.showDeleted`, by the objects written in the window searched with the Show Deleted
 * control and the DNs they name read again (tombstones.ts): no listing of the user search.
 */
import { DirectoryError, SourceUnavailableError } from "../../../errors.js";
import { fallback, type Position } from "../changes/feed.js";
import { accessLogReader } from "./accesslog.js";
import { positionKind, timestampReader, type ChangeReader } from "./changes.js";
import type { LdapConfig, LdapConnection } from "./client.js";
import { binaryText, normaliseDn, valuesOf } from "./template.js";
import { tombstoneUserChanges } from "./tombstones.js";

/** LDAP_CAP_ACTIVE_DIRECTORY_OID in the rootDSE's supportedCapabilities (MS-ADTS 3.1.1.3.4.3). */
export const AD_CAPABILITY = "1.2.840.113556.1.4.800";

export interface RootDse {
  capabilities: string[];
  highestCommittedUSN: string | undefined;
  dsServiceName: string | undefined;
}

/** The rootDSE's capabilities and change counter (an entry with an empty DN, read base-scope). */
export async function readRootDse(connection: LdapConnection): Promise<RootDse> {
  const entry = await connection.entry({
    dn: "",
    attributes: ["supportedCapabilities", "highestCommittedUSN", "dsServiceName"],
  });
  const values = entry === undefined ? new Map<string, (string | Buffer)[]>() : valuesOf(entry);
  const text = (name: string) =>
    (values.get(name.toLowerCase()) ?? []).filter((v): v is string => typeof v === "string");
  return {
    capabilities: text("supportedCapabilities"),
    highestCommittedUSN: text("highestCommittedUSN")[0],
    dsServiceName: text("dsServiceName")[0],
  };
}

/** The controller a read reaches, and its change counter read now. */
interface Controller {
  dsServiceName: string;
  invocationId: string;
  usn: bigint;
}

/** How the reader was chosen, for messages: `usn`, or `auto` on a server that says it is AD. */
type Chosen = { url: string; setting: "usn" | "auto" };

async function controller(connection: LdapConnection, chosen: Chosen, read?: RootDse): Promise<Controller> {
  const root = read ?? (await readRootDse(connection));
  const { highestCommittedUSN: usn, dsServiceName } = root;
  const how =
    chosen.setting === "usn"
      ? "is usn"
      : "is auto and the rootDSE says Active Directory (reading by uSNChanged)";
  const notAd = (what: string) =>
    new DirectoryError({
      message: `source.ldap.changesBy ${how} but the directory ${chosen.url} ${what}: reading changes by uSNChanged needs both. Set source.ldap.changesBy to timestamp for this server.`,
    });
  if (usn === undefined || !/^\d+$/.test(usn) || dsServiceName === undefined)
    throw notAd("gives no highestCommittedUSN and dsServiceName in its rootDSE");
  const ntds = await connection.entry({ dn: dsServiceName, attributes: ["invocationId"] });
  const id = ntds === undefined ? undefined : valuesOf(ntds).get("invocationid")?.[0];
  if (id === undefined) throw notAd(`gives no invocationId on ${dsServiceName} (its NTDS Settings object)`);
  const invocationId = typeof id === "string" ? id : binaryText("objectGUID", id);
  return { dsServiceName, invocationId: invocationId.toLowerCase(), usn: BigInt(usn) };
}

function usnPosition(dc: Controller, now: number): Position {
  return {
    kind: "ldap",
    streams: { uSNChanged: String(dc.usn), dsServiceName: dc.dsServiceName, invocationId: dc.invocationId },
    takenAt: new Date(now).toISOString(),
  };
}

/** Why the kept position cannot be read on the controller reached now, if it cannot. */
function refused(since: Position, dc: Controller): string | undefined {
  const { uSNChanged: n, dsServiceName: name, invocationId: id } = since.streams;
  if (normaliseDn(name!) !== normaliseDn(dc.dsServiceName))
    return `another domain controller answered: the kept position is uSNChanged ${n} of ${name}, this run reached ${dc.dsServiceName}, and each controller counts uSNChanged its own way (point source.ldap.url at one controller)`;
  if (id!.toLowerCase() !== dc.invocationId)
    return `the domain controller ${dc.dsServiceName} has a new invocationId (${id} -> ${dc.invocationId}): it was restored from a backup, so its uSNChanged may count again from before the kept position ${n}`;
  if (dc.usn < BigInt(n!))
    return `the domain controller ${dc.dsServiceName} reports highestCommittedUSN ${dc.usn}, below the kept position ${n}`;
  return undefined;
}

/**
 * The reader by uSNChanged on one domain controller. `root`: the rootDSE `auto` has just read to
 * choose it, used by the first position or window instead of a second read (a change after it has
 * a higher number and is read next time).
 */
export function usnReader(
  connection: LdapConnection,
  chosen: Chosen,
  showDeleted = false,
  root?: RootDse,
): ChangeReader {
  let first = root;
  const reached = (): Promise<Controller> => {
    const read = first;
    first = undefined;
    return controller(connection, chosen, read);
  };
  return {
    by: "usn",
    ...(showDeleted ? { users: tombstoneUserChanges } : {}),
    position: async (now) => usnPosition(await reached(), now),
    async window(since, now) {
      const { uSNChanged: n, dsServiceName, invocationId } = since.streams;
      if (since.kind !== "ldap" || n === undefined || !/^\d+$/.test(n) || !dsServiceName || !invocationId)
        return fallback(
          "position-unknown",
          `the kept position is not an Active Directory uSNChanged (it is ${positionKind(since)}): source.ldap.changesBy reads by uSNChanged now`,
        );
      const dc = await reached();
      const why = refused(since, dc);
      if (why !== undefined) return fallback("position-unknown", why);
      return {
        clause: `(uSNChanged>=${BigInt(n) + 1n})(uSNChanged<=${dc.usn})`,
        position: usnPosition(dc, now),
        unchanged: dc.usn === BigInt(n),
      };
    },
  };
}

/**
 * The reader `source.ldap.changesBy` names; `auto`: by uSNChanged when the rootDSE advertises
 * Active Directory, by modifyTimestamp otherwise (a rootDSE this account cannot read included).
 */
export async function chooseReader(config: LdapConfig, connection: LdapConnection): Promise<ChangeReader> {
  if (config.changesBy === "timestamp") return timestampReader;
  if (config.changesBy === "accesslog") return accessLogReader(config, connection);
  const tombstones = config.showDeleted === true;
  if (config.changesBy === "usn")
    return usnReader(connection, { url: config.url, setting: "usn" }, tombstones);
  let root: RootDse | undefined;
  try {
    root = await readRootDse(connection);
  } catch (err) {
    if (err instanceof SourceUnavailableError) throw err;
  }
  return root?.capabilities.includes(AD_CAPABILITY)
    ? usnReader(connection, { url: config.url, setting: "auto" }, tombstones, root)
    : timestampReader;
}
