/**
 * An Active Directory stand-in for the LDAP tests, on 127.0.0.1 and port 0, built on ldapjs's
 * server (OpenLDAP has no ranged retrieval and no in-chain matching rule). What it does like AD:
 *
 * - a simple bind as one account; a search before it is refused (operationsError);
 * - paged subtree searches (RFC 2696) and base-scope reads, filters with &, |, !, =, presence and
 *   LDAP_MATCHING_RULE_IN_CHAIN on `memberOf` (the groups above an entry at any depth) and on
 *   `member` (the groups holding a value at any depth); `memberOf` is computed from the groups'
 *   `member`;
 * - ranged retrieval (MS-ADTS 3.1.1.3.1.3.3): a value list longer than `maxValRange` comes as
 *   `member;range=0-<max-1>` and no plain `member`; `member;range=<lo>-*` asks for the next part,
 *   which ends in `*` when it reaches the last value;
 * - filters `>=` and `<=` (numbers compared as numbers: uSNChanged) and the bit rules
 *   LDAP_MATCHING_RULE_BIT_AND / _OR (userAccountControl);
 * - the rootDSE (an empty base DN, base scope, readable before a bind as on AD):
 *   supportedCapabilities with AD's OID, highestCommittedUSN, dsServiceName and the naming
 *   contexts; the NTDS Settings object dsServiceName names, with the controller's invocationId
 *   (binary), in the configuration naming context, which a search of the domain does not reach;
 * - writes (add, modify, delete, modifyDN) bound as AD_ADMIN_DN, each one update of the
 *   controller's counter (fake-ad-store.ts: uSNChanged, tombstones, failover to another
 *   controller, restore from backup);
 * - the Show Deleted control (1.2.840.113556.1.4.417, "Retrieving Deleted Objects"): a search
 *   with it sees the tombstones too (under `CN=Deleted Objects`, so a search of the domain).
 *
 * `tamper` may rewrite or drop (undefined) a ranged answer, to play a broken server. Every request
 * is logged in `requests`.
 */
import type { Socket } from "node:net";
import ldap, { type LdapFilter, type LdapRequest, type LdapResponse } from "ldapjs";
import {
  AD_CAPABILITY,
  AD_CONFIGURATION,
  AD_SUFFIX,
  AdStore,
  guidBytes,
  normDn,
  valuesOf,
  type AdEntry,
  type Backup,
} from "./fake-ad-store.js";

export { AD_SUFFIX, normDn, type AdEntry, type Backup };
export const AD_BIND_DN = `CN=svc-usersync,OU=Service Accounts,${AD_SUFFIX}`;
export const AD_PASSWORD = "svc-secret-5d2";
/** The account tests write with (the reader's account may only read). */
export const AD_ADMIN_DN = `CN=Administrator,CN=Users,${AD_SUFFIX}`;
export const AD_ADMIN_PASSWORD = "admin-secret-7f1";
const IN_CHAIN = "1.2.840.113556.1.4.1941";
const BIT_AND = "1.2.840.113556.1.4.803";
const BIT_OR = "1.2.840.113556.1.4.804";
const PAGED = "1.2.840.113556.1.4.319";
const SHOW_DELETED = "1.2.840.113556.1.4.417";
/** Attributes AD sends as bytes (GUIDs), kept as text in the store. */
const BINARY = new Set(["objectguid", "invocationid"]);

export interface RangedAnswer {
  dn: string;
  /** The first value's index that was asked for. */
  lo: number;
  /** The attribute description answered, e.g. `member;range=500-999`. */
  key: string;
  values: string[];
}

export interface FakeAdOptions {
  entries: AdEntry[];
  maxValRange: number;
  tamper?: (answer: RangedAnswer) => { key: string; values: string[] } | undefined;
  /** The name of the domain controller that answers (default DC1). */
  controller?: string;
  /** Its counter before the entries were created (default 12000). */
  firstUsn?: number;
}

export interface FakeAd {
  url: string;
  requests: { base: string; scope: "base" | "sub"; attributes: string[]; filter: string }[];
  /** The directory and the answering controller's change tracking. */
  store: AdStore;
  close(): Promise<void>;
}

function inChain(entry: AdEntry, groupDn: string, byDn: Map<string, AdEntry>): boolean {
  const seen = new Set<string>();
  const queue = valuesOf(entry, "memberOf").map(normDn);
  while (queue.length > 0) {
    const dn = queue.shift()!;
    if (dn === normDn(groupDn)) return true;
    if (seen.has(dn)) continue;
    seen.add(dn);
    const group = byDn.get(dn);
    if (group) queue.push(...valuesOf(group, "memberOf").map(normDn));
  }
  return false;
}

function matches(filter: LdapFilter, entry: AdEntry, byDn: Map<string, AdEntry>): boolean {
  switch (filter.type) {
    case "AndFilter":
      return filter.clauses.every((c) => matches(c, entry, byDn));
    case "OrFilter":
      return filter.clauses.some((c) => matches(c, entry, byDn));
    case "NotFilter":
      return !matches(filter.filter, entry, byDn);
    case "PresenceFilter":
      return valuesOf(entry, filter.attribute).length > 0;
    case "EqualityFilter": {
      const wanted = String(filter.value).toLowerCase();
      return valuesOf(entry, filter.attribute).some((v) => v.toLowerCase() === wanted);
    }
    case "GreaterThanEqualsFilter":
      return valuesOf(entry, filter.attribute).some((v) => compare(v, String(filter.value)) >= 0);
    case "LessThanEqualsFilter":
      return valuesOf(entry, filter.attribute).some((v) => compare(v, String(filter.value)) <= 0);
    case "ExtensibleFilter":
      if (filter.matchingRule === IN_CHAIN && filter.attribute.toLowerCase() === "memberof")
        return inChain(entry, String(filter.value), byDn);
      if (filter.matchingRule === IN_CHAIN && filter.attribute.toLowerCase() === "member") {
        // The groups that hold the value at any depth: its memberOf chain reaches the entry.
        const held = byDn.get(normDn(String(filter.value)));
        return held !== undefined && inChain(held, entry.dn, byDn);
      }
      if (filter.matchingRule === BIT_AND || filter.matchingRule === BIT_OR) {
        const bits = BigInt(String(filter.value));
        return valuesOf(entry, filter.attribute).some((v) => {
          const and = BigInt(v) & bits;
          return filter.matchingRule === BIT_AND ? and === bits : and !== 0n;
        });
      }
  }
  throw new ldap.UnwillingToPerformError(`filter ${filter.type} is not supported by the fake AD`);
}

/** Integers (uSNChanged, a large integer) as numbers, anything else as case-folded text. */
function compare(a: string, b: string): number {
  if (/^-?\d+$/.test(a) && /^-?\d+$/.test(b))
    return BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0;
  return a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0;
}

/** One requested attribute of an entry, ranged as AD ranges it. */
function answer(entry: AdEntry, asked: string, options: FakeAdOptions): [string, string[]] | undefined {
  const [name, option] = asked.split(";", 2) as [string, string | undefined];
  const key = Object.keys(entry.attributes).find((k) => k.toLowerCase() === name.toLowerCase());
  if (key === undefined) return undefined;
  const values = entry.attributes[key]!;
  const range = option === undefined ? undefined : /^range=(\d+)-(\d+|\*)$/i.exec(option);
  if (!range && values.length <= options.maxValRange) return [key, values];
  const lo = range ? Number(range[1]) : 0;
  const asks = range && range[2] !== "*" ? Number(range[2]) : Infinity;
  const hi = Math.min(asks, lo + options.maxValRange - 1);
  const ranged: RangedAnswer =
    hi >= values.length - 1
      ? { dn: entry.dn, lo, key: `${key};range=${lo}-*`, values: values.slice(lo) }
      : { dn: entry.dn, lo, key: `${key};range=${lo}-${hi}`, values: values.slice(lo, hi + 1) };
  const out = options.tamper ? options.tamper(ranged) : ranged;
  return out && [out.key, out.values];
}

function selected(entry: AdEntry, asked: string[], options: FakeAdOptions): Record<string, string[]> {
  const all = asked.length === 0 || asked.includes("*");
  const names = all ? Object.keys(entry.attributes) : asked.filter((a) => a !== "1.1");
  const attributes: Record<string, string[]> = {};
  for (const name of names) {
    const got = answer(entry, name, options);
    if (got) attributes[got[0]] = got[1];
  }
  return attributes;
}

/** The entries a search finds, in a stable order; NoSuchObject for a base that is not there. */
function found(req: LdapRequest, store: AdStore): AdEntry[] {
  const base = normDn(req.dn.toString());
  const under = (dn: string): boolean => dn === base || dn.endsWith(`,${base}`);
  // The configuration naming context is apart: a search of the domain, from its root too, does
  // not reach it (AD answers such a search with the domain's objects only).
  const configuration = normDn(AD_CONFIGURATION);
  const inConfiguration = base === configuration || base.endsWith(`,${configuration}`);
  // Deleted objects: only with the Show Deleted control, and only to an account allowed to see them.
  const shown = req.controls.some((c) => c.type === SHOW_DELETED) && !store.hideDeleted;
  const deleted = shown ? [store.deletedObjects(), ...store.tombstones] : [];
  const entries = inConfiguration ? [store.ntdsSettings()] : [...store.view, ...deleted];
  const byDn = inConfiguration ? new Map(entries.map((e) => [normDn(e.dn), e])) : store.byDn;
  if (req.scope === 0) {
    const entry = byDn.get(base) ?? deleted.find((e) => normDn(e.dn) === base);
    if (!entry) throw new ldap.NoSuchObjectError(`no entry ${req.dn.toString()}`);
    return matches(req.filter, entry, byDn) ? [entry] : [];
  }
  return entries.filter((e) => under(normDn(e.dn)) && matches(req.filter, e, byDn));
}

/** An attribute as sent: GUIDs as their 16 bytes. */
const sent = (type: string, values: string[]) =>
  new ldap.Attribute({ type, values: BINARY.has(type.toLowerCase()) ? values.map(guidBytes) : values });

function search(options: FakeAdOptions, store: AdStore, log: FakeAd["requests"]) {
  return (req: LdapRequest, res: LdapResponse, next: (err?: Error) => void): void => {
    const as = normDn(req.connection.ldap.bindDN.toString());
    if (as !== normDn(AD_BIND_DN) && as !== normDn(AD_ADMIN_DN))
      return next(new ldap.OperationsError("a successful bind must be completed on the connection"));
    log.push({
      base: req.dn.toString(),
      scope: req.scope === 0 ? "base" : "sub",
      attributes: req.attributes,
      filter: req.filter.toString(),
    });
    let list: AdEntry[];
    try {
      list = found(req, store);
    } catch (err) {
      return next(err as Error);
    }
    const paged = req.controls.find((c) => c.type === PAGED);
    if (paged) {
      const from = paged.value.cookie?.length ? Number(paged.value.cookie.toString()) : 0;
      const to = from + (paged.value.size || list.length);
      const cookie = to < list.length ? Buffer.from(String(to)) : Buffer.alloc(0);
      res.addControl(new ldap.PagedResultsControl({ value: { size: list.length, cookie } }));
      list = list.slice(from, to);
    }
    for (const entry of list)
      // A built entry: ldapjs would drop from a plain object any attribute not asked for by that
      // exact name, which a ranged answer (`member;range=0-499` for `member`) never is.
      res.send(
        res.createSearchEntry({
          objectName: entry.dn,
          attributes: Object.entries(selected(entry, req.attributes, options)).map(([type, values]) =>
            sent(type, values),
          ),
        }),
      );
    res.end();
    next();
  };
}

/** The rootDSE: read with an empty base DN and base scope, before a bind too (as AD allows). */
function rootDse(store: AdStore, log: FakeAd["requests"]) {
  return (req: LdapRequest, res: LdapResponse, next: (err?: Error) => void): void => {
    if (req.dn.toString() !== "" || req.scope !== 0)
      return next(new ldap.NoSuchObjectError(`no entry ${req.dn.toString()}`));
    log.push({ base: "", scope: "base", attributes: req.attributes, filter: req.filter.toString() });
    const entry: AdEntry = {
      dn: "",
      attributes: {
        supportedCapabilities: [AD_CAPABILITY],
        supportedControl: [PAGED, IN_CHAIN, SHOW_DELETED],
        highestCommittedUSN: [String(store.usn)],
        dsServiceName: [store.ntdsSettings().dn],
        defaultNamingContext: [AD_SUFFIX],
        configurationNamingContext: [AD_CONFIGURATION],
        dnsHostName: [`${store.controller.toLowerCase()}.corp.example.com`],
      },
    };
    const asked = req.attributes.map((a) => a.toLowerCase());
    const attributes = Object.entries(entry.attributes)
      .filter(([name]) => asked.includes(name.toLowerCase()) || asked.includes("*") || asked.length === 0)
      .map(([type, values]) => new ldap.Attribute({ type, values }));
    res.send(res.createSearchEntry({ objectName: "", attributes }));
    res.end();
    next();
  };
}

type Write = (req: LdapRequest, store: AdStore) => Error | undefined;
/** What ldapjs gives of an add (its attributes) and of a modify (its changes). */
type AddRequest = { attributes: { type: string; values: string[] }[] };
type ModifyRequest = { changes: { operation: string; modification: { type: string; values: string[] } }[] };

/** A write handler: bound as the administrator, or refused as AD refuses it. */
function write(store: AdStore, apply: Write) {
  return (req: LdapRequest, res: LdapResponse, next: (err?: Error) => void): void => {
    if (normDn(req.connection.ldap.bindDN.toString()) !== normDn(AD_ADMIN_DN))
      return next(new ldap.InsufficientAccessRightsError("00000005: SecErr: DSID-03152E29, problem 4003"));
    const err = apply(req, store);
    if (err) return next(err);
    res.end();
    next();
  };
}

const adds: Write = (req, store) => {
  const attributes = Object.fromEntries(
    (req as unknown as AddRequest).attributes.map((a) => [a.type, a.values]),
  );
  if (store.add(req.dn.toString(), attributes) === "exists")
    return new ldap.EntryAlreadyExistsError(`${req.dn.toString()} exists`);
  return undefined;
};
const modifies: Write = (req, store) => {
  const changes = (req as unknown as ModifyRequest).changes.map((c) => ({
    operation: c.operation,
    type: c.modification.type,
    values: c.modification.values,
  }));
  if (store.modify(req.dn.toString(), changes) === "missing")
    return new ldap.NoSuchObjectError(`no entry ${req.dn.toString()}`);
  return undefined;
};
/** What ldapjs gives of a modifyDN. */
type ModifyDnRequest = { newRdn: { toString(): string }; newSuperior?: { toString(): string } };
const renames: Write = (req, store) => {
  const r = req as unknown as ModifyDnRequest;
  const dn = req.dn.toString();
  const parent = r.newSuperior?.toString() || dn.split(/,(.*)/s)[1]!;
  const got = store.rename(dn, `${r.newRdn.toString()},${parent}`);
  if (got === "missing") return new ldap.NoSuchObjectError(`no entry ${dn}`);
  return got === "exists" ? new ldap.EntryAlreadyExistsError(`${r.newRdn.toString()} exists`) : undefined;
};
const deletes: Write = (req, store) =>
  store.delete(req.dn.toString()) === "missing"
    ? new ldap.NoSuchObjectError(`no entry ${req.dn.toString()}`)
    : undefined;

export async function startFakeAd(options: FakeAdOptions): Promise<FakeAd> {
  const store = new AdStore(options.entries, options.controller ?? "DC1", options.firstUsn ?? 12_000);
  const requests: FakeAd["requests"] = [];
  const server = ldap.createServer();
  server.bind(AD_SUFFIX, (req, res, next) => {
    const as = normDn(req.dn.toString());
    const ok =
      (as === normDn(AD_BIND_DN) && req.credentials === AD_PASSWORD) ||
      (as === normDn(AD_ADMIN_DN) && req.credentials === AD_ADMIN_PASSWORD);
    if (!ok) return next(new ldap.InvalidCredentialsError("80090308: LdapErr: DSID-0C09044E, data 52e"));
    res.end();
    next();
  });
  server.search(AD_SUFFIX, search(options, store, requests));
  server.search("", rootDse(store, requests));
  server.add(AD_SUFFIX, write(store, adds));
  server.modify(AD_SUFFIX, write(store, modifies));
  server.del(AD_SUFFIX, write(store, deletes));
  server.modifyDN(AD_SUFFIX, write(store, renames));
  const sockets = new Set<Socket>();
  server.server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `ldap://127.0.0.1:${server.address().port}`,
    requests,
    store,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
