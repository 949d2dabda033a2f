/**
 * `source.type: ldap`: the desired state read straight from an LDAP / Active Directory
 * directory, into the same model the file readers produce (so the planner, guards and outputs
 * are unchanged). Groups first (fewer), then the users page by page, each entry normalised as
 * it arrives. Problems name the entry's DN and the attribute (the template) the field came from.
 */
import { visible } from "../../characters.js";
import { checkGroups, checkUsers } from "../../checks.js";
import { ProblemList, sortProblems } from "../../problems.js";
import { normaliseUser, type RawRecord, type RecordContext, type UserField } from "../../records.js";
import type { DesiredGroup, DesiredUser, Evidence, Identity, ReadTally } from "../../types.js";
import type { SourceResult } from "../contract.js";
import { openLdap, type LdapConfig } from "./client.js";
import { readDirectoryGroups } from "./groups.js";
import { attributesOf, evaluate, normaliseDn, valuesOf, type Values } from "./template.js";

export type { LdapConfig } from "./client.js";
export { renderDesiredYaml } from "./export.js";

export interface ReadLdapOptions {
  config: LdapConfig;
  env: NodeJS.ProcessEnv;
  defaultIdentity: Identity;
}

export type MappedField = keyof LdapConfig["attributes"];

/** The user fields the config maps, each with its template. */
export function mappedFields(config: LdapConfig): [MappedField, string][] {
  return Object.entries(config.attributes).filter((e): e is [MappedField, string] => e[1] !== undefined);
}

/** What the desired state says it was read from: the server and the base, never the bind DN. */
export function ldapSourceName(config: LdapConfig): string {
  return `${config.url.replace(/\/$/, "")}/${config.baseDn}`;
}

/** The attributes a user search asks for: those the templates read ("1.1", none, when none do). */
export function userAttributes(config: LdapConfig): string[] {
  const attributes = new Set<string>();
  for (const [, t] of mappedFields(config)) attributesOf(t).forEach((a) => attributes.add(a));
  return attributes.size > 0 ? [...attributes] : ["1.1"];
}

/** One user entry as a raw record: each mapped field from its template, problems located at the DN. */
export function userRecord(o: {
  dn: string;
  values: Values;
  line: number;
  map: [MappedField, string][];
  config: LdapConfig;
  /** The user's groups, when groups are read from the directory. */
  groups?: string[];
}): RawRecord<UserField> {
  const { dn, values, config } = o;
  const text: Partial<Record<UserField, string>> = {};
  for (const [field, template] of o.map) {
    const v = evaluate(template, values);
    if (v !== undefined) text[field] = config.lowerCase.includes(field) ? v.toLowerCase() : v;
  }
  return {
    line: o.line,
    text,
    lists: o.groups ? { groups: o.groups } : {},
    where: (field) => ({
      // A DN is printed in messages: invisible or direction characters in it are shown, not obeyed.
      file: visible(dn),
      field: (config.attributes as Record<string, string | undefined>)[field] ?? field,
    }),
  };
}

/** What was asked of the directory and read (the contract's evidence); LDAP announces no counts. */
export function ldapEvidence(
  config: LdapConfig,
  reads: ReadTally[],
  state: { users: DesiredUser[]; groups: DesiredGroup[] },
  sizes?: ReadonlyMap<string, number>,
): Evidence {
  // Members per picked group (nesting expanded), by the user group it feeds: the yardstick for
  // a group that suddenly reads empty (src/desired/sources/group-sizes.ts). Counted from the
  // users read, or given whole by a build from a picture (`sizes`, by desired group id).
  const groupSizes: Record<string, number> = {};
  for (const g of state.groups) groupSizes[`ldap:${g.id}`] = sizes?.get(g.id) ?? 0;
  if (sizes === undefined)
    for (const u of state.users)
      for (const g of u.groups ?? []) {
        const key = `ldap:${g}`;
        if (key in groupSizes) groupSizes[key] = (groupSizes[key] ?? 0) + 1;
      }
  return {
    kind: "ldap",
    source: ldapSourceName(config),
    scope: [config.userFilter, ...config.groups.map((r) => r.dn ?? `cn=${r.cn ?? ""}`)],
    reads,
    skipped: [],
    groupSizes,
  };
}

/** The read's result, checked as every LDAP read is (an empty directory, users, groups). */
export function ldapResult(o: {
  config: LdapConfig;
  users: DesiredUser[];
  groups: DesiredGroup[];
  problems: ProblemList;
  reads: ReadTally[];
  /**
   * The whole state's people and group sizes, when `users` may be some of them only (a partial
   * build from a picture, BuildInput.only): emptiness and sizes are the whole state's.
   */
  whole?: { people: number; groupSizes: ReadonlyMap<string, number> };
}): SourceResult {
  const { config, users, groups, problems } = o;
  const source = ldapSourceName(config);
  if ((o.whole?.people ?? users.length) === 0 && !problems.hasErrors)
    problems.error(
      { file: source },
      "empty-directory",
      `the search for ${config.userFilter} under ${config.baseDn} found no users: an empty directory is never read as "everyone left" (check source.ldap.baseDn and userFilter)`,
    );
  checkUsers(users, problems);
  checkGroups(groups, users, problems);
  return {
    state: { users, groups, files: [source] },
    problems: sortProblems(problems.items, [source]),
    evidence: ldapEvidence(config, o.reads, { users, groups }, o.whole?.groupSizes),
  };
}

export async function readLdapDesired(options: ReadLdapOptions): Promise<SourceResult> {
  const { config } = options;
  const problems = new ProblemList();
  const ctx: RecordContext = {
    problems,
    defaultIdentity: options.defaultIdentity,
    passwordWarned: { value: false },
    lists: new Map(),
  };
  const connection = await openLdap(config, options.env);
  const users: DesiredUser[] = [];
  try {
    const directory =
      config.groups.length > 0 ? await readDirectoryGroups({ config, connection, ctx }) : undefined;
    const map = mappedFields(config);
    let line = 0;
    let pages = 0;
    for await (const page of connection.pages({
      base: config.baseDn,
      filter: config.userFilter,
      attributes: userAttributes(config),
    })) {
      pages += 1;
      for (const entry of page) {
        line++;
        const groups = directory?.groupsOf(normaliseDn(entry.dn));
        const raw = userRecord({
          dn: entry.dn,
          values: valuesOf(entry),
          line,
          map,
          config,
          ...(groups ? { groups } : {}),
        });
        const user = normaliseUser(raw, ctx);
        if (user) users.push(user);
      }
    }
    return ldapResult({
      config,
      users,
      groups: directory?.groups ?? [],
      problems,
      reads: [{ what: `users under ${config.baseDn}`, announced: "unknown", pages, read: line }],
    });
  } finally {
    await connection.close();
  }
}
