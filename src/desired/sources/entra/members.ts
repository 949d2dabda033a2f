/**
 * The Graph reads of one run: the groups each rule picks, then, per picked group, its people at
 * any depth (`transitiveMembers/microsoft.graph.user`), the groups nested in it (only when a rule
 * asks for `parents: directory`), and the count of all its members, so members of other types
 * (service principals, devices, contacts) are skipped with a count, never silently. Every listing is
 * proved whole (pages.ts); a rule that picks nothing or a name that picks two is a setup error.
 */
import type { EntraConfig } from "./schema.js";
import { DirectoryError } from "../../../errors.js";
import type { ReadTally } from "../contract.js";
import type { DirectoryHttp } from "../directory-http.js";
import { DirectoryHttpError, SourceIncompleteError } from "../errors.js";
import { NoSuchGroupError, settleRules } from "../vanished-groups.js";
import { graphUrl, listAll, PAGE_SIZE, setupError } from "./graph.js";
import { groupProperties, ruleScope, type GraphGroupItem, type PickedGroup } from "./groups.js";
import { userProperties, type GraphUserItem } from "./users.js";

const LIST = { $top: String(PAGE_SIZE), $count: "true" };

function odataText(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

async function pickRule(
  http: DirectoryHttp,
  config: EntraConfig,
  index: number,
  reads: ReadTally[],
): Promise<GraphGroupItem[]> {
  const rule = config.groups[index]!;
  const ruleKey = `source.entra.groups[${index}]`;
  const $select = groupProperties(config).join(",");
  const what = `${ruleScope(rule)} (${ruleKey})`;
  try {
    if (rule.objectId !== undefined) {
      const a = await http.get<GraphGroupItem>(
        graphUrl(config, `groups/${rule.objectId}`, { $select }),
        what,
      );
      reads.push({ what, pages: 1, announced: "unknown", read: 1 });
      return [a.body];
    }
    const $filter =
      rule.displayName !== undefined ? `displayName eq ${odataText(rule.displayName)}` : rule.filter!;
    const { items, tally } = await listAll(
      http,
      graphUrl(config, "groups", { $filter, $select, ...LIST }),
      what,
    );
    reads.push(tally);
    const found = items as GraphGroupItem[];
    if (found.length === 0)
      throw new NoSuchGroupError({
        message: `${ruleKey} picks no group (${ruleScope(rule)}): a rule that picks nothing is a mistake, not "nobody": check it in the Entra admin center`,
      });
    if (rule.displayName !== undefined && found.length > 1)
      throw new DirectoryError({
        message: `${ruleKey}: ${found.length} groups are named ${JSON.stringify(rule.displayName)} (${found.map((g) => g.id).join(", ")}): pick one by objectId`,
      });
    return found;
  } catch (err) {
    throw setupError(err, {
      config,
      what,
      about: `${ruleKey}.${rule.objectId !== undefined ? "objectId" : rule.filter !== undefined ? "filter" : "displayName"}`,
    });
  }
}

/** Every picked group once, with the first rule that picked it, in rule order. */
export async function pickGroups(
  http: DirectoryHttp,
  config: EntraConfig,
  reads: ReadTally[],
): Promise<PickedGroup[]> {
  const results = await settleRules(
    config.groups.map((_, i) => pickRule(http, config, i, reads)),
    { prefix: "entra:", keysOf: (groups) => groups.map((g) => `entra:${g.id}`) },
  );
  const picked = new Map<string, PickedGroup>();
  results.forEach((groups, i) => {
    for (const group of groups)
      if (!picked.has(group.id))
        picked.set(group.id, { group, rule: config.groups[i]!, ruleKey: `source.entra.groups[${i}]` });
  });
  return [...picked.values()];
}

export interface GroupMembers {
  picked: PickedGroup;
  users: GraphUserItem[];
  /** Ids of the groups nested in it at any depth. */
  nested: Set<string>;
  /** Members that are not people (nor groups, when `nestedRead`). */
  others: number;
  /** Whether nested groups were read (a rule asks for `parents: directory`). */
  nestedRead: boolean;
}

export async function readMembers(
  http: DirectoryHttp,
  config: EntraConfig,
  picked: PickedGroup,
  reads: ReadTally[],
  /** Read the nested groups whatever the rules say (a changes-only run needs them to follow nesting). */
  nestedAlways = false,
): Promise<GroupMembers> {
  const id = picked.group.id;
  const label = `group ${JSON.stringify(String(picked.group["displayName"] ?? id))} (entra:${id})`;
  const $select = [...new Set([...userProperties(config), "userPrincipalName"])].join(",");
  const path = `groups/${id}/transitiveMembers`;
  try {
    const people = await listAll(
      http,
      graphUrl(config, `${path}/microsoft.graph.user`, { $select, ...LIST }),
      `people in ${label}`,
    );
    // Nesting is read only where a rule turns it into parents; else nested groups count as others.
    const groups =
      nestedAlways || config.groups.some((r) => r.parents === "directory")
        ? await listAll(
            http,
            graphUrl(config, `${path}/microsoft.graph.group`, { $select: "id", ...LIST }),
            `groups nested in ${label}`,
          )
        : undefined;
    const total = await http.get<{ "@odata.count"?: unknown }>(
      graphUrl(config, path, { $select: "id", $top: "1", $count: "true" }),
      `the count of all members of ${label}`,
    );
    reads.push(people.tally, ...(groups ? [groups.tally] : []));
    const count = total.body["@odata.count"];
    const nested = groups?.tally.read ?? 0;
    const others = typeof count === "number" ? count - people.tally.read - nested : -1;
    if (others < 0)
      throw new SourceIncompleteError({
        read: `members of ${label}`,
        reason: `Graph counts ${String(count)} members of all types, fewer than the ${people.tally.read} people and ${nested} groups just read: the group changed while it was read, or Graph's index lags`,
      });
    return {
      picked,
      users: people.items as GraphUserItem[],
      nested: new Set(((groups?.items ?? []) as { id: string }[]).map((g) => g.id)),
      nestedRead: groups !== undefined,
      others,
    };
  } catch (err) {
    // Picked a moment ago, gone now: the directory changed under the read (exit 5), not a setting.
    if (err instanceof DirectoryHttpError && err.status === 404)
      throw new SourceIncompleteError({
        read: `members of ${label}`,
        reason:
          "the group was deleted after it was picked (Graph answered 404 to its members): the read is not whole; the next run picks the groups afresh",
      });
    throw setupError(err, { config, what: `the members of ${label}` });
  }
}
