/**
 * The Google groups the rules pick: by email or by id (`groups.get`), or by a Directory API
 * group search (`groups.list` with `query`, 200 a page, for the configured customer or domain).
 * A rule that picks nothing is a setup mistake (exit 4), never "no people"; a group two rules
 * pick belongs to the first. A picked group becomes a user group through the shared group rule.
 */
import type { GoogleConfig, GoogleRule } from "../../../config/google-schema.js";
import { DirectoryError } from "../../../errors.js";
import { visible } from "../../characters.js";
import type { RecordContext } from "../../records.js";
import type { DirectoryHttp } from "../directory-http.js";
import { applyGroupRule } from "../group-rule.js";
import type { DesiredGroup, ReadTally } from "../../types.js";
import type { Values } from "../template.js";
import { directoryUrl, FIELDS, listAll, PAGE, scopeQuery, setupError, type GoogleGroupJson } from "./api.js";

export interface PickedGroup {
  group: GoogleGroupJson;
  rule: GoogleRule;
}

/** How a rule is written in the evidence's scope and in messages. */
export function describeRule(rule: GoogleRule): string {
  if (rule.email !== undefined) return `email ${rule.email}`;
  if (rule.groupId !== undefined) return `groupId ${rule.groupId}`;
  return `query ${rule.query ?? ""}`;
}

async function pickByRule(o: {
  http: DirectoryHttp;
  config: GoogleConfig;
  rule: GoogleRule;
  index: number;
  actor: string;
}) {
  const { http, config, rule } = o;
  const what = `Google groups of ${describeRule(rule)}`;
  const ruleKey = `source.google.groups[${o.index}]`;
  const about = `${ruleKey}.${rule.email !== undefined ? "email" : rule.groupId !== undefined ? "groupId" : "query"}`;
  try {
    const key = rule.email ?? rule.groupId;
    if (key !== undefined) {
      const a = await http.get<GoogleGroupJson>(
        directoryUrl(config, `groups/${encodeURIComponent(key)}`, { fields: FIELDS.group }),
        what,
      );
      const read: ReadTally = { what, pages: 1, announced: "unknown", read: 1 };
      return { groups: [a.body], read };
    }
    const first = directoryUrl(config, "groups", {
      ...scopeQuery(config),
      query: rule.query ?? "",
      maxResults: String(PAGE.groups),
      fields: FIELDS.groups,
    });
    const { items, tally } = await listAll(http, first, "groups", what);
    if (items.length === 0)
      throw new DirectoryError({
        message: `${ruleKey} picks no group (query ${JSON.stringify(rule.query)}): a rule that picks nothing is a mistake, not "nobody": check it against the Admin console's groups`,
      });
    return { groups: items as GoogleGroupJson[], read: tally };
  } catch (err) {
    throw setupError(err, { config, what, actor: o.actor, about });
  }
}

/** Every picked group once, in rule order; with each listing's tally. */
export async function pickGroups(o: {
  http: DirectoryHttp;
  config: GoogleConfig;
  actor: string;
}): Promise<{ picked: PickedGroup[]; reads: ReadTally[] }> {
  const answers = await Promise.all(
    o.config.groups.map((rule, index) =>
      pickByRule({ http: o.http, config: o.config, rule, index, actor: o.actor }),
    ),
  );
  const picked = new Map<string, PickedGroup>();
  answers.forEach((a, i) => {
    for (const group of a.groups)
      if (typeof group.id === "string" && !picked.has(group.id))
        picked.set(group.id, { group, rule: o.config.groups[i]! });
  });
  return { picked: [...picked.values()], reads: answers.map((a) => a.read) };
}

/** A group's template values: `{id}`, `{email}`, `{emailLocal}`, `{name}`, `{description}`. */
function groupValues(g: GoogleGroupJson): Values {
  const values = new Map<string, string[]>();
  const put = (k: string, v: string | undefined) => {
    if (v !== undefined && v !== "") values.set(k.toLowerCase(), [v]);
  };
  put("id", g.id);
  put("email", g.email);
  put("emailLocal", g.email?.split("@")[0]);
  put("name", g.name);
  put("description", g.description);
  return values;
}

/** The template of a Google group's name: the shared rule's default id and name. */
const NAME = "{name}";

/** A picked Google group as a user group, by the shared group rule (group-rule.ts). */
export function toDesiredGroup(
  p: PickedGroup,
  ctx: RecordContext,
  ruleKey: string,
): DesiredGroup | undefined {
  const { group } = p;
  return applyGroupRule({
    rule: p.rule,
    values: groupValues(group),
    nameTemplate: NAME,
    group: `google group ${visible(group.email ?? group.id)} (${group.id})`,
    ruleKey,
    ctx,
  });
}
