/**
 * Identity rules shared by the readers, the export and the checks: the organization's id rule,
 * the documented derivation of an id from an email, and the pragmatic email rule.
 */
import { createHash } from "node:crypto";

/** The service's id rule (users and user groups). */
export const ID_PATTERN = /^(?!\.)[.A-Za-z0-9_-]{1,255}$/;

export function isValidId(id: string): boolean {
  return ID_PATTERN.test(id);
}

const MAX_ID = 255;
const HASHED_PREFIX = 238;

/**
 * The deterministic id of a user without an explicit `id` (docs/desired-state.md): lower-case the
 * email, replace every character outside `[a-z0-9._-]` with `_`, strip leading dots; an id longer
 * than 255 keeps its first 238 characters, `-` and 16 hex characters of the sha256 of the
 * lower-cased email, so long emails stay distinct.
 */
export function deriveUserId(email: string): string {
  return validIdOf(email, true);
}

/**
 * Any text made a valid id by the same rule (a directory group's name, `Sales Team` ->
 * `sales_team`): with `lowerCase: false` the case is kept and only the characters outside
 * `[A-Za-z0-9._-]` become `_`. A text that is a valid id already (and lower case, when asked) is
 * returned as it is.
 */
export function validIdOf(text: string, lowerCase: boolean): string {
  const base = lowerCase ? text.toLowerCase() : text;
  const id = base.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "");
  if (id.length <= MAX_ID) return id;
  const digest = createHash("sha256").update(base).digest("hex").slice(0, 16);
  return `${id.slice(0, HASHED_PREFIX)}-${digest}`;
}

/**
 * A pragmatic email rule, not RFC 5322: one `@`, a non-empty local part, a domain with a dot
 * that neither starts nor ends with one, no whitespace, at most 254 characters. It catches the
 * mistakes of hand-edited files (a missing `@`, a name in the email column) without rejecting
 * real addresses.
 */
export function emailProblem(email: string): string | undefined {
  if (email.length > 254) return "is longer than 254 characters";
  if (/\s/.test(email)) return "contains a space";
  const parts = email.split("@");
  if (parts.length !== 2) return parts.length < 2 ? "has no @" : "has more than one @";
  const [local, domain] = parts as [string, string];
  if (local === "") return "has nothing before the @";
  if (!domain.includes(".") || domain.startsWith(".") || domain.endsWith(".") || domain.includes(".."))
    return "has no valid domain after the @ (e.g. example.com)";
  return undefined;
}
