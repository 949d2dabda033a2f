/**
 * Normalises one raw user or group record (from a CSV row or a YAML item) into the desired-state
 * model, checking every per-record rule of DESIGN section 2. Cross-record rules (duplicates,
 * cycles, undeclared groups) live in `checks.ts`.
 */
import type { DesiredGroup, DesiredUser, Identity } from "./types.js";
import { readAccess } from "./access.js";
import { shareList } from "../lists.js";
import { newUser } from "./compact.js";
import { screenRecord, visible, type CharacterKind } from "./characters.js";
import { deriveUserId, emailProblem, isValidId } from "./ids.js";
import type { ProblemList, Where } from "./problems.js";
import { readDates } from "./dates.js";
import { checkGroupIds } from "./group-field.js";

export const USER_FIELDS = [
  "email",
  "id",
  "displayName",
  "firstname",
  "lastname",
  "groups",
  "identity",
  "authenticationId",
  "password",
  "state",
  "workspaces",
  "organization",
  "dataFilters",
  "startDate",
  "endDate",
] as const;
export type UserField = (typeof USER_FIELDS)[number];
export const GROUP_FIELDS = ["id", "name", "parents", "workspaces", "organization", "dataFilters"] as const;
export type GroupField = (typeof GROUP_FIELDS)[number];

/** The characters each free-text field may hold (characters.ts); ids and choices have their own rules. */
const USER_CHARACTERS: Partial<Record<UserField, CharacterKind>> = {
  email: "key",
  authenticationId: "key",
  displayName: "name",
  firstname: "name",
  lastname: "name",
  password: "secret",
};
const GROUP_CHARACTERS: Partial<Record<GroupField, CharacterKind>> = { name: "name" };

/** Where each record's fields are (CSV column, YAML path and line), for the cross-record checks. */
const locations = new WeakMap<object, (field: string) => Where>();

export function whereOf(record: DesiredUser | DesiredGroup, field: string): Where {
  return locations.get(record)?.(field) ?? { ...record.source, field };
}

/** The service limits attribute values to 255 characters. */
const MAX_ATTRIBUTE = 255;

/** Untrimmed values as read; a list field is `undefined` when absent and `[]` when empty. */
export interface RawRecord<F extends string> {
  line: number;
  text: Partial<Record<F, string>>;
  lists: Partial<Record<F, string[]>>;
  /** Values of structured fields as read (YAML `workspaces`, `organization`); CSV gives text and lists. */
  values?: Partial<Record<F, unknown>>;
  /** Extra CSV columns kept for a selector (ReadDesiredOptions.columns), by their header name. */
  extra?: Record<string, string>;
  /** Where a field is, for messages (CSV: the column; YAML: the path and the key's line). */
  where(field: F): Where;
  /** `where(field)` is `{file, line, field}` (a CSV row): `source` says it, nothing more is kept. */
  lineOnly?: boolean;
}

export interface RecordContext {
  problems: ProblemList;
  defaultIdentity: Identity;
  /** Set once a password was seen in this file, so the warning is given once per file. */
  passwordWarned: { value: boolean };
  /** Lists shared by the records of a file (compact.ts `shareList`); unset: each record its own. */
  lists?: Map<string, readonly string[]>;
}

/** Trims; an empty value is absent. */
function textOf<F extends string>(raw: RawRecord<F>, field: F): string | undefined {
  const v = raw.text[field]?.trim();
  return v === undefined || v === "" ? undefined : v;
}

function listOf<F extends string>(raw: RawRecord<F>, field: F, ctx: RecordContext): string[] | undefined {
  const list = raw.lists[field];
  if (list === undefined) return undefined;
  return shareList(ctx.lists, [...new Set(list.map((g) => g.trim()).filter((g) => g !== ""))].sort());
}

function checkLength<F extends string>(
  raw: RawRecord<F>,
  field: F,
  value: string | undefined,
  ctx: RecordContext,
): void {
  if (value !== undefined && value.length > MAX_ATTRIBUTE)
    ctx.problems.error(
      raw.where(field),
      "too-long",
      `is ${value.length} characters long; the service allows ${MAX_ATTRIBUTE}`,
    );
}

const ACCESS_FIELDS = ["workspaces", "organization", "dataFilters"] as const;

/** Reports one problem of a user record and marks the record unusable. */
type Fail = (field: UserField, rule: string, message: string) => void;

export function normaliseUser(raw: RawRecord<UserField>, ctx: RecordContext): DesiredUser | undefined {
  let ok = true;
  const fail: Fail = (field, rule, message) => {
    ctx.problems.error(raw.where(field), rule, message);
    ok = false;
  };
  const refused = screenRecord({
    text: raw.text,
    where: raw.where,
    kinds: USER_CHARACTERS,
    problems: ctx.problems,
  });
  if (refused.size > 0) ok = false;
  const email = refused.has("email") ? undefined : readEmail(raw, fail);
  const explicitId = textOf(raw, "id");
  if (explicitId !== undefined && !isValidId(explicitId))
    fail(
      "id",
      "bad-id",
      `"${visible(explicitId)}" is not a valid user id: use letters, digits, ".", "_" and "-", not starting with ".", at most 255 characters (or leave it empty to derive it from the email)`,
    );
  const { identity, state } = readChoices(raw, ctx, fail);
  const authenticationId = readAuthenticationId(raw, { identity, state }, fail);
  const password = readPassword(raw, identity, ctx, fail);
  const displayName = textOf(raw, "displayName");
  const firstname = textOf(raw, "firstname");
  const lastname = textOf(raw, "lastname");
  checkLength(raw, "displayName", displayName, ctx);
  checkLength(raw, "firstname", firstname, ctx);
  checkLength(raw, "lastname", lastname, ctx);
  checkLength(raw, "authenticationId", authenticationId, ctx);
  // A group that is not an id may be a group's name: checks.ts and plan resolve it (group-names.ts).
  const groups = listOf(raw, "groups", ctx);
  checkGroupIds(raw.where("groups"), groups, ctx.problems, { names: true });
  const dates = readDates(raw, fail);
  const access = readAccess(raw, ctx.problems);
  if (access === undefined) ok = false;
  else if (state === "absent") {
    const field = ACCESS_FIELDS.find((f) => access[f] !== undefined);
    if (field)
      fail(
        field,
        "contradiction",
        "a user marked absent carries no permissions: remove them, or the state: absent",
      );
  }

  if (!ok || email === undefined || access === undefined) return undefined;
  const id = explicitId ?? deriveUserId(email);
  const source = { file: raw.where("email").file, line: raw.line };
  const optional = { displayName, firstname, lastname, groups, authenticationId, password };
  const user = newUser({ email, id, idDerived: explicitId === undefined, identity, state, source }, optional);
  if (raw.extra !== undefined) user.columns = raw.extra;
  if (dates.startDate !== undefined) user.startDate = dates.startDate;
  if (dates.endDate !== undefined) user.endDate = dates.endDate;
  Object.assign(user, access);
  if (!raw.lineOnly) locations.set(user, raw.where as (field: string) => Where);
  return user;
}

/** The email, when present and valid. */
function readEmail(raw: RawRecord<UserField>, fail: Fail): string | undefined {
  const email = textOf(raw, "email");
  if (email === undefined) {
    fail("email", "required", "is required: every user needs an email");
    return undefined;
  }
  const why = emailProblem(email);
  if (!why) return email;
  fail("email", "bad-email", `"${visible(email)}" is not a valid email: it ${why}`);
  return undefined;
}

/** The two closed choices of a user: identity (default from the context) and state. */
function readChoices(
  raw: RawRecord<UserField>,
  ctx: RecordContext,
  fail: Fail,
): { identity: Identity; state: DesiredUser["state"] } {
  const identityText = textOf(raw, "identity");
  let identity: Identity = ctx.defaultIdentity;
  if (identityText !== undefined) {
    if (identityText === "builtin" || identityText === "external") identity = identityText;
    else
      fail(
        "identity",
        "bad-identity",
        `"${visible(identityText)}" is not an identity: use builtin or external`,
      );
  }
  const stateText = textOf(raw, "state");
  let state: DesiredUser["state"] = "present";
  if (stateText !== undefined) {
    if (stateText === "present" || stateText === "absent") state = stateText;
    else fail("state", "bad-state", `"${visible(stateText)}" is not a state: use present or absent`);
  }
  return { identity, state };
}

/** The sub claim: required for a present external user, forbidden for a built-in one. */
function readAuthenticationId(
  raw: RawRecord<UserField>,
  user: { identity: Identity; state: DesiredUser["state"] },
  fail: Fail,
): string | undefined {
  const authenticationId = textOf(raw, "authenticationId");
  // A row marked absent only names whom to delete: it needs no sub claim.
  if (user.identity === "external" && authenticationId === undefined && user.state === "present")
    fail(
      "authenticationId",
      "authentication-id-required",
      "is required for an external user: set it to the user's sub claim from the external identity provider",
    );
  if (user.identity === "builtin" && authenticationId !== undefined)
    fail(
      "authenticationId",
      "authentication-id-forbidden",
      "is only for external users: the built-in identity provider assigns it; remove it or set identity to external",
    );
  return authenticationId;
}

/** A column password: refused for external users, and discouraged once per run. */
function readPassword(
  raw: RawRecord<UserField>,
  identity: Identity,
  ctx: RecordContext,
  fail: Fail,
): string | undefined {
  const password = textOf(raw, "password");
  if (password === undefined) return undefined;
  if (identity === "external")
    fail(
      "password",
      "password-for-external",
      "an external user signs in at the external identity provider: remove the password",
    );
  else if (!ctx.passwordWarned.value) {
    ctx.passwordWarned.value = true;
    ctx.problems.warn(
      raw.where("password"),
      "password-discouraged",
      "passwords in a desired-state file are discouraged: prefer identity.passwords: generate (the file is a secret now; keep it safe)",
    );
  }
  return password;
}

export function normaliseGroup(raw: RawRecord<GroupField>, ctx: RecordContext): DesiredGroup | undefined {
  screenRecord({ text: raw.text, where: raw.where, kinds: GROUP_CHARACTERS, problems: ctx.problems });
  const id = textOf(raw, "id");
  if (id === undefined) {
    ctx.problems.error(raw.where("id"), "required", "is required: every group needs an id");
    return undefined;
  }
  if (!isValidId(id)) {
    ctx.problems.error(
      raw.where("id"),
      "bad-group-id",
      `"${visible(id)}" is not a valid group id (letters, digits, ".", "_", "-"; not starting with "."; at most 255)`,
    );
    return undefined;
  }
  const name = textOf(raw, "name");
  checkLength(raw, "name", name, ctx);
  const parents = listOf(raw, "parents", ctx);
  checkGroupIds(raw.where("parents"), parents, ctx.problems);
  const access = readAccess(raw, ctx.problems);
  if (access === undefined) return undefined;
  const group: DesiredGroup = { id, source: { file: raw.where("id").file, line: raw.line }, ...access };
  if (name !== undefined) group.name = name;
  if (parents !== undefined) group.parents = parents;
  if (!raw.lineOnly) locations.set(group, raw.where as (field: string) => Where);
  return group;
}
