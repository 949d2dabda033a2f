/**
 * Graph users -> desired users: email from the first configured property with a value (`mail`,
 * then `userPrincipalName`), names from `displayName`, `givenName`, `surname`. A disabled account
 * (`accountEnabled: false`) is a leaver: `state: absent`, not an unknown. A guest (`userType:
 * Guest`) is skipped and counted unless the config includes guests. Problems name the user by
 * their Graph id and the property the field came from.
 */
import type { EntraConfig } from "./schema.js";
import { normaliseUser, type RawRecord, type RecordContext, type UserField } from "../../records.js";
import type { DesiredUser } from "../../types.js";
import type { SkipCounter } from "../contract.js";

/** A user as the transitiveMembers/microsoft.graph.user listing gives it ($select'ed properties). */
export type GraphUserItem = Record<string, unknown> & { id: string };

/** The user properties the reader needs: `$select` asks for these and nothing else. */
export function userProperties(config: EntraConfig): string[] {
  const a = config.attributes;
  const names = [
    "id",
    "accountEnabled",
    "userType",
    ...a.email,
    a.id,
    a.displayName,
    a.firstname,
    a.lastname,
  ];
  if (a.authenticationId !== "auto") names.push(a.authenticationId);
  // `auto` maps the organization's claim later (sign-in.ts): every property a claim can map to.
  else names.push("mail", "userPrincipalName");
  return [...new Set(names.filter((n): n is string => n !== undefined))];
}

function text(user: GraphUserItem, property: string | undefined): string | undefined {
  if (property === undefined) return undefined;
  const v = user[property];
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

/** The fields that have a value (a loop: this runs once per person, 100,000 times a read). */
function defined(fields: Partial<Record<UserField, string | undefined>>): Partial<Record<UserField, string>> {
  const out: Partial<Record<UserField, string>> = {};
  for (const k in fields) {
    const v = fields[k as UserField];
    if (v !== undefined) out[k as UserField] = v;
  }
  return out;
}

export interface UserMapping {
  config: EntraConfig;
  ctx: RecordContext;
  skipped: SkipCounter;
  /** The Graph source, for problems: `entra:<tenant>`. */
  source: string;
}

/**
 * One Graph user as a desired user with the given user groups; `undefined` when skipped (a
 * guest) or when it has problems (they are in ctx.problems).
 */
export function toDesiredUser(
  user: GraphUserItem,
  groups: string[],
  line: number,
  m: UserMapping,
): DesiredUser | undefined {
  const { config } = m;
  const a = config.attributes;
  if (user["userType"] === "Guest" && !config.includeGuests) {
    m.skipped.skip("guest (userType Guest; source.entra.includeGuests is false)", user.id);
    return undefined;
  }
  const emailFrom = a.email.find((p) => text(user, p) !== undefined);
  const lower = (field: "email" | "id", v: string | undefined) =>
    v !== undefined && config.lowerCase.includes(field) ? v.toLowerCase() : v;
  const fields: Partial<Record<UserField, string | undefined>> = {
    email: lower("email", text(user, emailFrom)),
    id: lower("id", text(user, a.id)),
    displayName: text(user, a.displayName),
    firstname: text(user, a.firstname),
    lastname: text(user, a.lastname),
  };
  const enabled = user["accountEnabled"] !== false;
  if (a.authenticationId !== "auto") {
    fields.identity = "external";
    fields.authenticationId = text(user, a.authenticationId);
  }
  if (!enabled) fields.state = "absent";
  const where: Record<string, string> = {
    email: a.email.join(" | "),
    id: a.id ?? "id",
    displayName: a.displayName ?? "displayName",
    firstname: a.firstname ?? "givenName",
    lastname: a.lastname ?? "surname",
    authenticationId: a.authenticationId,
  };
  const raw: RawRecord<UserField> = {
    line,
    text: defined(fields),
    // A leaver keeps the groups it has: it is revoked per policy.deletions, not moved.
    lists: enabled ? { groups } : {},
    where: (field) => ({ file: `${m.source} user ${user.id}`, field: where[field] ?? field }),
  };
  return normaliseUser(raw, m.ctx);
}
