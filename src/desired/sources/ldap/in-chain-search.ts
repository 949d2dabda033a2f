/**
 * The server's in-chain answers a `nested: inChain` changes-only read asks (in-chain.ts;
 * docs/ldap.md, "Changes-only runs"), with LDAP_MATCHING_RULE_IN_CHAIN (1.2.840.113556.1.4.1941):
 * the groups below the picked groups at any depth, anywhere in the domain's naming context, and
 * the picked groups that hold a person at any depth. A whole read keeps, on each picked group,
 * the groups below it (`@nested`), so that a later read sees one deleted or moved away.
 */
import type { PicturedGroup } from "../changes/feed.js";
import type { ReadTally } from "../../types.js";
import type { LdapConfig, LdapConnection } from "./client.js";
import { IN_CHAIN_RULE, escapeFilterValue, parenthesized, since } from "./groups.js";
import { listDns } from "./picture.js";
import { firstRange, remainingRange } from "./ranged.js";
import { normaliseDn, valuesOf } from "./template.js";

/** Where a picked group keeps the groups below it at any depth (normalised DNs, sorted). */
export const NESTED = "@nested";
const PER_FILTER = 100; // DNs per search filter of in-chain clauses

/** The domain's naming context: the `DC=` tail of `baseDn` (a domain's name), else its last RDN. */
export function namingContext(baseDn: string): string {
  const rdns = baseDn.split(/(?<!\\),/).map((r) => r.trim());
  let i = rdns.length;
  while (i > 0 && /^dc=/i.test(rdns[i - 1]!)) i -= 1;
  return rdns.slice(i === rdns.length ? rdns.length - 1 : i).join(",");
}

/** AD's group objects, and whatever `groupFilter` calls a group. */
export const groupClass = (config: LdapConfig): string => {
  const filter = parenthesized(config.groupFilter);
  return filter.toLowerCase() === "(objectclass=group)" ? filter : `(|(objectClass=group)${filter})`;
};

const chunks = <T>(list: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(list.length / PER_FILTER) }, (_, i) =>
    list.slice(i * PER_FILTER, (i + 1) * PER_FILTER),
  );

const inChainOf = (attribute: string, dns: readonly string[]): string =>
  `(|${dns.map((dn) => `(${attribute}:${IN_CHAIN_RULE}:=${escapeFilterValue(dn)})`).join("")})`;

/** Every group below any of the picked groups (DNs as spelled), with its direct parents. */
export async function nestedGraph(
  config: LdapConfig,
  connection: LdapConnection,
  picked: readonly string[],
): Promise<{ parents: Map<string, string[]>; read: ReadTally }> {
  const parents = new Map<string, string[]>();
  const base = namingContext(config.baseDn);
  let pages = 0;
  for (const part of chunks(picked)) {
    const filter = `(&${groupClass(config)}${inChainOf("memberOf", part)})`;
    for await (const page of connection.pages({ base, filter, attributes: ["memberOf"] })) {
      pages += 1;
      for (const entry of page) {
        const { values, next } = firstRange(valuesOf(entry), "memberOf", entry.dn);
        const all = [...values];
        if (next !== undefined)
          all.push(...(await remainingRange(connection, { dn: entry.dn, name: "memberOf", next })));
        parents.set(
          normaliseDn(entry.dn),
          all.map((v) => normaliseDn(String(v))),
        );
      }
    }
  }
  const what = `groups below the ${picked.length} picked groups under ${base}, in chain`;
  return { parents, read: { what, announced: "unknown", pages, read: parents.size } };
}

/** Per picked group (normalised DN), the groups below it at any depth, sorted. */
export function below(
  parents: ReadonlyMap<string, readonly string[]>,
  picked: readonly string[],
): Map<string, string[]> {
  const children = new Map<string, string[]>();
  for (const [child, list] of parents)
    for (const p of list) (children.get(p) ?? children.set(p, []).get(p)!).push(child);
  const out = new Map<string, string[]>();
  for (const top of picked) {
    const seen = new Set<string>();
    const todo = [...(children.get(top) ?? [])];
    while (todo.length > 0) {
      const id = todo.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      todo.push(...(children.get(id) ?? []));
    }
    seen.delete(top);
    out.set(top, [...seen].sort());
  }
  return out;
}

/** A whole read's picked groups with `@nested`: one search of the groups below them. */
export async function withNested(
  config: LdapConfig,
  connection: LdapConnection,
  groups: readonly PicturedGroup[],
): Promise<{ groups: PicturedGroup[]; read: ReadTally }> {
  const picked = groups.filter((g) => g.rule !== undefined && g.rule >= 0);
  const { parents, read } = await nestedGraph(
    config,
    connection,
    picked.map((g) => g.name),
  );
  const nested = below(
    parents,
    picked.map((g) => g.id),
  );
  return {
    groups: groups.map((g) =>
      nested.has(g.id) ? { ...g, attributes: { ...g.attributes, [NESTED]: nested.get(g.id)! } } : g,
    ),
    read,
  };
}

/** The picked groups (normalised DNs) that hold any of `people` at any depth. */
export async function holding(
  config: LdapConfig,
  connection: LdapConnection,
  people: readonly string[],
  reads: ReadTally[],
): Promise<Set<string>> {
  const base = config.groupBaseDn ?? config.baseDn;
  const found = new Set<string>();
  for (const part of chunks(people)) {
    const { dns, read } = await listDns(
      connection,
      base,
      since(config.groupFilter, inChainOf("member", part)),
    );
    reads.push({
      ...read,
      what: `groups under ${base} holding ${part.length} people new to the user search`,
    });
    dns.forEach((dn) => found.add(dn));
  }
  return found;
}
