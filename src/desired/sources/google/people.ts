/**
 * The people of the picked groups: each group's members (`members.list` with
 * `includeDerivedMembership=true`, so nested groups count, 200 a page) and the customer's users
 * (`users.list`, 500 a page) for their names and state. Only `type: USER` members are people;
 * a nested group's own entry, the customer, and a user of another status (an outsider without a
 * Workspace account) are skipped and counted. A suspended or archived user is a leaver (absent).
 * Email from `primaryEmail`, names from `name.givenName` / `name.familyName`.
 */
import type { GoogleConfig } from "./schema.js";
import { visible } from "../../characters.js";
import { normaliseUser, type RawRecord, type RecordContext, type UserField } from "../../records.js";
import type { DesiredUser, ReadTally } from "../../types.js";
import type { SkipCounter } from "../contract.js";
import type { DirectoryHttp } from "../directory-http.js";
import { DirectoryHttpError, SourceIncompleteError } from "../errors.js";
import {
  directoryUrl,
  FIELDS,
  listAll,
  PAGE,
  scopeQuery,
  setupError,
  type GoogleMemberJson,
  type GoogleUserJson,
} from "./api.js";

/** Member statuses of a person: ACTIVE, and the two of a leaver. */
const PERSON_STATUS = new Set(["ACTIVE", "SUSPENDED", "ARCHIVED"]);

export interface GroupMembers {
  /** Google user ids of the people in the group (nested groups included). */
  people: string[];
  /** The groups listed among its members (nested at any depth Google lists them): id and email. */
  groups?: { id: string; email: string }[];
}

/** Every picked group's members, concurrently within the run's bounds; non-people skipped and counted. */
export async function readMembers(o: {
  http: DirectoryHttp;
  config: GoogleConfig;
  groups: { id: string; label: string }[];
  skipped: SkipCounter;
  actor: string;
}): Promise<{ members: Map<string, GroupMembers>; reads: ReadTally[] }> {
  const members = new Map<string, GroupMembers>();
  const reads = await Promise.all(
    o.groups.map(async ({ id, label }) => {
      const what = `members of Google group ${label} (${id})`;
      const first = directoryUrl(o.config, `groups/${encodeURIComponent(id)}/members`, {
        includeDerivedMembership: "true",
        maxResults: String(PAGE.members),
        fields: FIELDS.members,
      });
      try {
        const { items, tally } = await listAll(o.http, first, "members", what);
        const people: string[] = [];
        const groups: { id: string; email: string }[] = [];
        for (const m of items as GoogleMemberJson[]) {
          if (m.type === "GROUP" && m.id !== undefined) groups.push({ id: m.id, email: m.email ?? m.id });
          const mid = m.id ?? m.email ?? "(no id)";
          if (m.type !== "USER")
            o.skipped.skip(`members that are not people (type ${m.type ?? "unknown"})`, mid);
          else if (m.id === undefined) o.skipped.skip("members without an id", mid);
          else if (!PERSON_STATUS.has(m.status ?? ""))
            o.skipped.skip(`members of status ${m.status ?? "(none)"}`, mid);
          else people.push(m.id);
        }
        members.set(id, { people, groups });
        return tally;
      } catch (err) {
        // Picked a moment ago, gone now: the directory changed under the read (exit 5), not a setting.
        if (err instanceof DirectoryHttpError && err.status === 404)
          throw new SourceIncompleteError({
            read: what,
            reason: `the group was deleted after it was picked (Google answered 404 to its members): the read is not whole; the next run picks the groups afresh`,
          });
        throw setupError(err, { config: o.config, what, actor: o.actor });
      }
    }),
  );
  return { members, reads };
}

/** The customer's (or domain's) users, by id. */
export async function readUsers(o: {
  http: DirectoryHttp;
  config: GoogleConfig;
  actor: string;
}): Promise<{ users: Map<string, GoogleUserJson>; read: ReadTally }> {
  const what = `users of Google ${o.config.domain !== undefined ? `domain ${o.config.domain}` : `customer ${o.config.customer ?? "my_customer"}`}`;
  const first = directoryUrl(o.config, "users", {
    ...scopeQuery(o.config),
    maxResults: String(PAGE.users),
    fields: FIELDS.users,
  });
  try {
    const { items, tally } = await listAll(o.http, first, "users", what);
    return { users: new Map((items as GoogleUserJson[]).map((u) => [u.id, u])), read: tally };
  } catch (err) {
    throw setupError(err, { config: o.config, what, actor: o.actor });
  }
}

const textOf = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);

/** One Google user as a desired user; problems name the user by email and id. */
export function toDesiredUser(o: {
  user: GoogleUserJson;
  groupIds: string[];
  line: number;
  config: GoogleConfig;
  ctx: RecordContext;
}): DesiredUser | undefined {
  const { user, config } = o;
  const leaver = user.suspended === true || user.archived === true;
  const email = textOf(user.primaryEmail);
  const text: Partial<Record<UserField, string>> = {
    ...(email !== undefined
      ? { email: config.lowerCase.includes("email") ? email.toLowerCase() : email }
      : {}),
    ...(textOf(user.name?.givenName) ? { firstname: user.name!.givenName! } : {}),
    ...(textOf(user.name?.familyName) ? { lastname: user.name!.familyName! } : {}),
    ...(textOf(user.name?.fullName) ? { displayName: user.name!.fullName! } : {}),
    identity: config.identity,
    ...(leaver ? { state: "absent" } : {}),
  };
  // With Google signing people in, the ID token's `sub` is the Google user id (sign-in.ts may re-key it).
  if (config.identity === "external") text.authenticationId = user.id;
  const where: Record<string, string> = {
    email: "primaryEmail",
    firstname: "name.givenName",
    lastname: "name.familyName",
    displayName: "name.fullName",
    authenticationId: "id",
  };
  const raw: RawRecord<UserField> = {
    line: o.line,
    text,
    // A leaver keeps the groups it has: it is revoked per policy.deletions, not moved.
    lists: leaver ? {} : { groups: o.groupIds },
    where: (field) => ({
      file: `google user ${visible(email ?? user.id)} (${user.id})`,
      field: where[field] ?? field,
    }),
  };
  return normaliseUser(raw, o.ctx);
}
