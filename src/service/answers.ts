/**
 * What an answer must be before it is believed (DESIGN section 4, issue 20): the schemas of every
 * answer the plan depends on, and the one check the transport runs on each successful answer that
 * names one: its content type, that it parses, and its shape. A broken answer becomes an
 * `AnswerError` (retried like a 5xx), never an empty or shorter list.
 *
 * Items carry the members the planner reads, with the types it reads them as; anything else the
 * service adds is let through untouched. Whether a listing is whole (pages that add up) is
 * `paging.ts`'s to check, across pages.
 */
import { z } from "zod";
import { AnswerError } from "../errors.js";
import { redactSecrets } from "../logging.js";

const id = z.string().min(1, "must be a non-empty string");
/** An attribute the planner reads: a string when present; `null` is read as absent. */
const attribute = z.string().nullish();

/**
 * A built-in IdP user. `authenticationId` is optional in the official schema, but the planner links
 * credentials to mappings by it: an IdP user without one would look unlinked, and with
 * `unlinkedCredentials: delete` be deleted. So it is required here.
 */
const idpUser = z.looseObject({ email: id, displayName: z.string(), authenticationId: id });

/** `GET /api/v1/auth/users`: a plain array, every email once (compared case-insensitively). */
export const IDP_LIST_ANSWER = z.array(idpUser).superRefine((users, ctx) => {
  const seen = new Set<string>();
  users.forEach((u, i) => {
    const key = u.email.toLowerCase();
    if (seen.has(key))
      ctx.addIssue({ code: "custom", path: [i, "email"], message: `${u.email} is listed twice` });
    seen.add(key);
  });
});

/** `GET .../auth/users/{email}`: the read-back of one IdP user. */
export const IDP_USER_ANSWER = idpUser;

/** `POST .../auth/users`: the created user; without an authenticationId the client reads it back. */
export const IDP_CREATED_ANSWER = z.looseObject({
  email: id,
  displayName: z.string().optional(),
  authenticationId: attribute,
});

/**
 * `GET /api/v1/profile`: who the token belongs to (the protections of the caller depend on it)
 * and the organization's id (`organizationId`, official `Profile`): a saved plan is bound to it.
 */
export const PROFILE_ANSWER = z.looseObject({ userId: id, organizationId: z.string().min(1).optional() });

/** What the client keeps of the profile. */
export interface ProfileRead {
  userId: string;
  /** The organization the token belongs to, as the service names it. */
  organizationId?: string;
}

export const profileRead = (json: { userId: string; organizationId?: string | undefined }): ProfileRead => ({
  userId: json.userId,
  ...(json.organizationId !== undefined ? { organizationId: json.organizationId } : {}),
});

/** `GET .../userManagement/userGroups/{id}/members`: the read-back of a bulk membership change. */
export const MEMBERS_ANSWER = z.looseObject({ members: z.array(z.looseObject({ id })) });

const linkage = z.looseObject({ id, type: id });
const relationship = z.looseObject({ data: z.union([z.null(), linkage, z.array(linkage)]).optional() });

/** A JSON:API resource of `type`, with the string attributes the planner reads. */
export function resource(type: string, attributes: readonly string[]) {
  return z.looseObject({
    id,
    type: z.literal(type, { error: `must be "${type}"` }),
    attributes: z.looseObject(Object.fromEntries(attributes.map((a) => [a, attribute]))).optional(),
    relationships: z.record(z.string(), relationship).optional(),
  });
}

/** Both profiles' users and groups (legacy sends fewer attributes; absent is fine). */
export const USER_RESOURCE = resource("user", ["authenticationId", "firstname", "lastname", "email"]);
export const GROUP_RESOURCE = resource("userGroup", ["name"]);
export type ResourceSchema = typeof USER_RESOURCE;

const count = z.number().int().min(0);
const pageMeta = z.looseObject({
  number: count.optional(),
  size: count.min(1).optional(),
  totalElements: count.optional(),
  totalPages: count.optional(),
});

/** One page of a listing: `data` an array of resources; `meta.page` when the service tells totals. */
export function pageAnswer(item: ResourceSchema) {
  return z.looseObject({
    data: z.array(item),
    meta: z.looseObject({ page: pageMeta.optional() }).optional(),
  });
}

/** `GET .../entities/{users,userGroups}/{id}`: one resource in `data`. */
export function oneAnswer(item: ResourceSchema) {
  return z.looseObject({ data: item });
}

/** The parts of an answer the check reads. */
export interface AnswerToCheck {
  method: string;
  /** Already redacted. */
  path: string;
  status: number;
  contentType: string | undefined;
  text: string;
  /** Strings that must never appear in the sample (the token, passwords sent). */
  secrets: readonly string[];
}

const SAMPLE_CHARS = 120;
const ISSUES_SHOWN = 3;
const JSON_TYPE = /^application\/(?:json|[^\s;]*\+json)\s*(?:;|$)/i;

/** The start of a body on one line, short and without secrets, for the error message. */
export function sampleOf(text: string, secrets: readonly string[]): string {
  // Redacted whole, before it is cut, so no part of a secret is left at the cut (error path only).
  const oneLine = redactSecrets(text, secrets).replace(/\s+/g, " ").trim();
  return oneLine.length > SAMPLE_CHARS ? `${oneLine.slice(0, SAMPLE_CHARS)}…` : oneLine;
}

/** The answer's JSON, checked against `schema`; or an `AnswerError` saying what was wrong. */
export function checkAnswer<T>(a: AnswerToCheck, schema: z.ZodType<T>): T {
  const broken = (problem: string): AnswerError =>
    new AnswerError({
      method: a.method,
      path: a.path,
      status: a.status,
      problem,
      sample: a.text.trim() === "" ? undefined : sampleOf(a.text, a.secrets),
    });
  if (a.text.trim() === "") throw broken("the body is empty where a JSON answer was expected");
  if (!JSON_TYPE.test(a.contentType ?? ""))
    throw broken(`the body is not JSON (Content-Type ${a.contentType ?? "missing"})`);
  let json: unknown;
  try {
    json = JSON.parse(a.text);
  } catch (err) {
    throw broken(`the body is not valid JSON (${(err as Error).message})`);
  }
  const result = schema.safeParse(json);
  if (!result.success) throw broken(`the answer has the wrong shape: ${describeIssues(result.error.issues)}`);
  return result.data;
}

/** `data[3].id: must be a non-empty string; …` (the first few, with how many more). */
function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, ISSUES_SHOWN).map((i) => `${pathText(i.path)}: ${i.message}`);
  const more = issues.length > ISSUES_SHOWN ? `; and ${issues.length - ISSUES_SHOWN} more` : "";
  return shown.join("; ") + more;
}

function pathText(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(the whole answer)";
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`))
    .join("");
}
