/**
 * How an Okta group rule picks: by id (`GET /api/v1/groups/{id}`), by exact name (a `search` on
 * `profile.name`, then the exact name among the answers) or by a `search` expression, each
 * listing followed to its end in the largest pages the spec allows. A rule that picks nothing is
 * a setup mistake (exit 4), never "no people". The rest (a group two rules pick belongs to the
 * first; a picked group becomes a user group by the shared group rule) is the sources room's
 * (../picked-groups.ts): here only an Okta group's id, values and label.
 */
import { DirectoryError } from "../../../errors.js";
import { visible } from "../../characters.js";
import { pickGroups, type GroupKind } from "../picked-groups.js";
import { NoSuchGroupError } from "../vanished-groups.js";
import { profileValues } from "./people.js";
import type { OktaConfig } from "./schema.js";
import type { DirectoryHttp } from "../directory-http.js";
import { readAll, Tally } from "../pages.js";
import type { ReadTally } from "../../types.js";
import { GROUPS_PAGE, listRule, setupError, type OktaGroupJson } from "./api.js";

export type OktaRule = OktaConfig["groups"][number];

/** How a rule is written in the evidence's scope and in messages. */
export function describeRule(rule: OktaRule): string {
  if (rule.groupId !== undefined) return `groupId ${rule.groupId}`;
  if (rule.groupName !== undefined) return `groupName ${JSON.stringify(rule.groupName)}`;
  return `search ${rule.search ?? ""}`;
}

const quote = (text: string): string => `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

async function listGroups(o: { http: DirectoryHttp; orgUrl: string; search: string; what: string }) {
  const first = `${o.orgUrl}/api/v1/groups?search=${encodeURIComponent(o.search)}&limit=${GROUPS_PAGE}`;
  const tally = new Tally(o.what);
  try {
    const { items, tally: read } = await readAll({
      first,
      rule: listRule<OktaGroupJson>(o.what),
      get: (url) => o.http.get(url, o.what),
      tally,
    });
    return { groups: items as OktaGroupJson[], read };
  } catch (err) {
    throw setupError(err, { what: o.what, orgUrl: o.orgUrl });
  }
}

async function pickByRule(http: DirectoryHttp, orgUrl: string, rule: OktaRule) {
  const what = `Okta groups of ${describeRule(rule)}`;
  if (rule.groupId !== undefined) {
    const unknown = `Okta has no group ${rule.groupId}: check source.okta.groups[].groupId (the id is in the group's Admin Console URL)`;
    try {
      const answer = await http.get<OktaGroupJson>(
        `${orgUrl}/api/v1/groups/${encodeURIComponent(rule.groupId)}`,
        what,
      );
      const read: ReadTally = { what, pages: 1, announced: "unknown", read: 1 };
      return { groups: [answer.body], read };
    } catch (err) {
      throw setupError(err, { what, orgUrl, unknown });
    }
  }
  if (rule.groupName !== undefined) {
    const name = rule.groupName;
    const found = await listGroups({ http, orgUrl, search: `profile.name eq ${quote(name)}`, what });
    // Okta's `eq` ignores case; the rule names one group exactly.
    const exact = found.groups.filter((g) => g.profile.name === name);
    if (exact.length > 1)
      throw new DirectoryError({
        message: `${exact.length} Okta groups are named ${JSON.stringify(name)} (${exact.map((g) => g.id).join(", ")}): pick one by groupId`,
      });
    if (exact.length === 0)
      throw new NoSuchGroupError({
        message: `Okta has no group named ${JSON.stringify(name)}${found.groups.length > 0 ? ` (but ${found.groups.map((g) => JSON.stringify(g.profile.name)).join(", ")}: names are matched exactly)` : ""}: check source.okta.groups[].groupName`,
      });
    return { groups: exact, read: found.read };
  }
  const found = await listGroups({ http, orgUrl, search: rule.search ?? "", what });
  if (found.groups.length === 0)
    throw new NoSuchGroupError({
      message: `the search ${JSON.stringify(rule.search)} picks no Okta group: a rule that picks nothing is a mistake, not "nobody" (check source.okta.groups[].search)`,
    });
  return found;
}

/** Every picked group once, in rule order; with each listing's tally. */
export function pickOktaGroups(o: { http: DirectoryHttp; config: OktaConfig }) {
  return pickGroups({
    kind: OKTA_GROUPS,
    rules: o.config.groups,
    pick: (rule) => pickByRule(o.http, o.config.orgUrl, rule),
  });
}

/** An Okta group to the shared rule: `{id}`, `{name}`, `{description}` and the profile; `{name}` the default. */
export const OKTA_GROUPS: GroupKind<OktaGroupJson> = {
  setting: "source.okta",
  keyPrefix: "okta:",
  idOf: (g) => g.id,
  nameTemplate: "{name}",
  values: (g) => profileValues(g.id, g.profile),
  label: (g) => `okta group ${visible(String(g.profile.name ?? g.id))} (${g.id})`,
};
