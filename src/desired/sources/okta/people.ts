/**
 * The people of the picked groups: every group's members (`/api/v1/groups/{id}/users`) followed
 * to the end in pages of 1,000, concurrently within the run's bounds; each person once, with the
 * user groups of every picked group they are in (Okta has no nested groups: membership is
 * direct). Status decides presence: ACTIVE, PROVISIONED, RECOVERY, PASSWORD_EXPIRED and LOCKED_OUT
 * are present; SUSPENDED and DEPROVISIONED are leavers (absent); STAGED is configurable.
 */
import type { OktaConfig } from "./schema.js";
import { visible } from "../../characters.js";
import { normaliseUser, type RawRecord, type RecordContext, type UserField } from "../../records.js";
import type { DirectoryHttp } from "../directory-http.js";
import { DirectoryHttpError, SourceIncompleteError } from "../errors.js";
import { readAll, Tally } from "../pages.js";
import type { ReadTally } from "../../types.js";
import { evaluate, type Values } from "../template.js";
import type { DesiredUser } from "../../types.js";
import { MEMBERS_PAGE, listRule, setupError, type OktaUserJson } from "./api.js";

export const PRESENT = new Set(["ACTIVE", "PROVISIONED", "RECOVERY", "PASSWORD_EXPIRED", "LOCKED_OUT"]);
export const ABSENT = new Set(["SUSPENDED", "DEPROVISIONED"]);

export function presenceOf(status: string, staged: OktaConfig["staged"]): "present" | "absent" {
  if (status === "STAGED") return staged;
  // A status Okta adds later (the transitional ACTIVATING) is not a leaver: only the two above are.
  return ABSENT.has(status) ? "absent" : "present";
}

/** A profile's attributes by lower-case name, with `{id}` the Okta id; values as text. */
export function profileValues(id: string, profile: Record<string, unknown>): Values {
  const values = new Map<string, string[]>();
  for (const [key, value] of Object.entries(profile))
    if (value !== null && value !== undefined && typeof value !== "object")
      values.set(key.toLowerCase(), [String(value)]);
  values.set("id", [id]);
  return values;
}

export interface Member {
  user: OktaUserJson;
  /** Okta ids of the picked groups the person is in. */
  groups: Set<string>;
}

/** Every member of every picked group, each person once; the tallies; the members per group. */
export async function readMembers(o: {
  http: DirectoryHttp;
  orgUrl: string;
  groups: { id: string; label: string }[];
}): Promise<{ members: Map<string, Member>; reads: ReadTally[]; sizes: Map<string, number> }> {
  const members = new Map<string, Member>();
  const sizes = new Map<string, number>();
  const reads = await Promise.all(
    o.groups.map(async ({ id, label }) => {
      const what = `members of Okta group ${label} (${id})`;
      const first = `${o.orgUrl}/api/v1/groups/${encodeURIComponent(id)}/users?limit=${MEMBERS_PAGE}`;
      try {
        const { items, tally } = await readAll({
          first,
          rule: listRule<OktaUserJson>(what),
          get: (url) => o.http.get(url, what),
          tally: new Tally(what),
        });
        for (const user of items as OktaUserJson[]) {
          const m = members.get(user.id) ?? members.set(user.id, { user, groups: new Set() }).get(user.id)!;
          m.groups.add(id);
        }
        sizes.set(id, items.length);
        return tally;
      } catch (err) {
        // Picked a moment ago, gone now: the directory changed under the read (exit 5), not a setting.
        if (err instanceof DirectoryHttpError && err.status === 404)
          throw new SourceIncompleteError({
            read: what,
            reason: `the group ${id} was deleted after it was picked (Okta answered 404 to its members): the read is not whole; the next run picks the groups afresh`,
          });
        throw setupError(err, { what, orgUrl: o.orgUrl });
      }
    }),
  );
  return { members, reads, sizes };
}

/** One Okta person as a desired user; problems name the person's login and the template. */
export function toDesiredUser(o: {
  member: Member;
  line: number;
  config: OktaConfig;
  groupIds: string[];
  ctx: RecordContext;
}): DesiredUser | undefined {
  const { member, config } = o;
  const values = profileValues(member.user.id, member.user.profile);
  const text: Partial<Record<UserField, string>> = {};
  for (const [field, template] of Object.entries(config.attributes) as [UserField, string | undefined][]) {
    if (template === undefined) continue;
    const v = evaluate(template, values);
    if (v !== undefined) text[field] = (config.lowerCase as string[]).includes(field) ? v.toLowerCase() : v;
  }
  text.identity = config.identity;
  text.state = presenceOf(member.user.status, config.staged);
  // With Okta signing people in, the ID token's `sub` is the Okta user id (subject.ts may re-key it).
  if (config.identity === "external") text.authenticationId = member.user.id;
  const login = String(member.user.profile.login ?? member.user.id);
  const raw: RawRecord<UserField> = {
    line: o.line,
    text,
    lists: { groups: o.groupIds },
    where: (field) => ({
      file: `okta user ${visible(login)} (${member.user.id})`,
      field: (config.attributes as Record<string, string | undefined>)[field] ?? field,
    }),
  };
  return normaliseUser(raw, o.ctx);
}
