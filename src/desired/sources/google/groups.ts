/**
 * How a Google group rule picks: by email or by id (`groups.get`), or by a Directory API group
 * search (`groups.list` with `query`, 200 a page, for the configured customer or domain). A rule
 * that picks nothing is a setup mistake (exit 4), never "no people". The rest (a group two rules
 * pick belongs to the first; a picked group becomes a user group by the shared group rule) is
 * the sources room's (../picked-groups.ts): here only a Google group's id, values and label.
 */
import type { GoogleConfig, GoogleRule } from "./schema.js";
import { visible } from "../../characters.js";
import type { ReadTally } from "../../types.js";
import type { DirectoryHttp } from "../directory-http.js";
import { pickGroups, type GroupKind } from "../picked-groups.js";
import { NoSuchGroupError } from "../vanished-groups.js";
import type { Values } from "../template.js";
import { directoryUrl, FIELDS, listAll, PAGE, scopeQuery, setupError, type GoogleGroupJson } from "./api.js";

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
  ruleKey: string;
  actor: string;
}) {
  const { http, config, rule, ruleKey } = o;
  const what = `Google groups of ${describeRule(rule)}`;
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
      throw new NoSuchGroupError({
        message: `${ruleKey} picks no group (query ${JSON.stringify(rule.query)}): a rule that picks nothing is a mistake, not "nobody": check it against the Admin console's groups`,
      });
    return { groups: items as GoogleGroupJson[], read: tally };
  } catch (err) {
    throw setupError(err, { config, what, actor: o.actor, about });
  }
}

/** Every picked group once, in rule order; with each listing's tally. */
export function pickGoogleGroups(o: { http: DirectoryHttp; config: GoogleConfig; actor: string }) {
  return pickGroups({
    kind: GOOGLE_GROUPS,
    rules: o.config.groups,
    pick: (rule, ruleKey) => pickByRule({ ...o, rule, ruleKey }),
  });
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

/** A Google group to the shared rule: its name `{name}` is the user group's default id and name. */
export const GOOGLE_GROUPS: GroupKind<GoogleGroupJson> = {
  setting: "source.google",
  keyPrefix: "google:",
  idOf: (g) => (typeof g.id === "string" ? g.id : undefined),
  nameTemplate: "{name}",
  values: groupValues,
  label: (g) => `google group ${visible(g.email ?? g.id)} (${g.id})`,
};
