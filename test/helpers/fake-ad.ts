/**
 * An Active Directory stand-in for the LDAP tests, on 127.0.0.1 and port 0, built on ldapjs's
 * server (OpenLDAP has no ranged retrieval and no in-chain matching rule). What it does like AD:
 *
 * - a simple bind as one account; a search before it is refused (operationsError);
 * - paged subtree searches (RFC 2696) and base-scope reads, filters with &, |, !, =, presence and
 *   LDAP_MATCHING_RULE_IN_CHAIN on `memberOf`; `memberOf` is computed from the groups' `member`;
 * - ranged retrieval (MS-ADTS 3.1.1.3.1.3.3): a value list longer than `maxValRange` comes as
 *   `member;range=0-<max-1>` and no plain `member`; `member;range=<lo>-*` asks for the next part,
 *   which ends in `*` when it reaches the last value.
 *
 * `tamper` may rewrite or drop (undefined) a ranged answer, to play a broken server. Every request
 * is logged in `requests`.
 */
import type { Socket } from "node:net";
import ldap, { type LdapFilter, type LdapRequest, type LdapResponse } from "ldapjs";

export const AD_SUFFIX = "DC=corp,DC=example,DC=com";
export const AD_BIND_DN = `CN=svc-usersync,OU=Service Accounts,${AD_SUFFIX}`;
export const AD_PASSWORD = "svc-secret-5d2";
const IN_CHAIN = "1.2.840.113556.1.4.1941";
const PAGED = "1.2.840.113556.1.4.319";

export interface AdEntry {
  dn: string;
  attributes: Record<string, string[]>;
}

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
}

export interface FakeAd {
  url: string;
  requests: { base: string; scope: "base" | "sub"; attributes: string[] }[];
  close(): Promise<void>;
}

export const normDn = (dn: string): string =>
  dn
    .replace(/\s*([,=])\s*/g, "$1")
    .trim()
    .toLowerCase();

function valuesOf(entry: AdEntry, name: string): string[] {
  const key = Object.keys(entry.attributes).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? [] : entry.attributes[key]!;
}

/** Adds `memberOf` to every entry a group lists, as AD's back link does. */
function withMemberOf(entries: AdEntry[]): AdEntry[] {
  const copies = entries.map((e) => ({ dn: e.dn, attributes: { ...e.attributes } }));
  const byDn = new Map(copies.map((e) => [normDn(e.dn), e]));
  for (const group of copies)
    for (const member of valuesOf(group, "member")) {
      const target = byDn.get(normDn(member));
      if (target) (target.attributes.memberOf ??= []).push(group.dn);
    }
  return copies;
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
    case "ExtensibleFilter":
      if (filter.matchingRule === IN_CHAIN && filter.attribute.toLowerCase() === "memberof")
        return inChain(entry, String(filter.value), byDn);
  }
  throw new ldap.UnwillingToPerformError(`filter ${filter.type} is not supported by the fake AD`);
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
function found(req: LdapRequest, entries: AdEntry[], byDn: Map<string, AdEntry>): AdEntry[] {
  const base = normDn(req.dn.toString());
  if (req.scope === 0) {
    const entry = byDn.get(base);
    if (!entry) throw new ldap.NoSuchObjectError(`no entry ${req.dn.toString()}`);
    return matches(req.filter, entry, byDn) ? [entry] : [];
  }
  const under = (dn: string): boolean => dn === base || dn.endsWith(`,${base}`);
  return entries.filter((e) => under(normDn(e.dn)) && matches(req.filter, e, byDn));
}

function search(options: FakeAdOptions, entries: AdEntry[], log: FakeAd["requests"]) {
  const byDn = new Map(entries.map((e) => [normDn(e.dn), e]));
  return (req: LdapRequest, res: LdapResponse, next: (err?: Error) => void): void => {
    if (normDn(req.connection.ldap.bindDN.toString()) !== normDn(AD_BIND_DN))
      return next(new ldap.OperationsError("a successful bind must be completed on the connection"));
    log.push({
      base: req.dn.toString(),
      scope: req.scope === 0 ? "base" : "sub",
      attributes: req.attributes,
    });
    let list: AdEntry[];
    try {
      list = found(req, entries, byDn);
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
          attributes: Object.entries(selected(entry, req.attributes, options)).map(
            ([type, values]) => new ldap.Attribute({ type, values }),
          ),
        }),
      );
    res.end();
    next();
  };
}

export async function startFakeAd(options: FakeAdOptions): Promise<FakeAd> {
  const entries = withMemberOf(options.entries);
  const requests: FakeAd["requests"] = [];
  const server = ldap.createServer();
  server.bind(AD_SUFFIX, (req, res, next) => {
    if (normDn(req.dn.toString()) !== normDn(AD_BIND_DN) || req.credentials !== AD_PASSWORD)
      return next(new ldap.InvalidCredentialsError("80090308: LdapErr: DSID-0C09044E, data 52e"));
    res.end();
    next();
  });
  server.search(AD_SUFFIX, search(options, entries, requests));
  const sockets = new Set<Socket>();
  server.server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `ldap://127.0.0.1:${server.address().port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
