/**
 * Permissions in words: the summary line ("3 groups gain VIEW on sales-emea, 1 group loses
 * EXPORT on finance"), the count in the plan line ("7 permission changes (6 to grant, 1 to
 * revoke)"), the permission guard, and one grant as a field value ("VIEW, EXPORT; hierarchy: VIEW").
 */
import type { PermissionSummary, PermissionSummaryEntry } from "../plan/permission-summary.js";
import type { PlanSummary } from "../plan/summary.js";

/** Phrases shown in the summary before "… and N more" (one per place, direction and change). */
export const PERMISSION_PHRASES = 10;

const num = (n: number): string => n.toLocaleString("en-US");
const plural = (n: number, word: string): string => `${num(n)} ${word}${n === 1 ? "" : "s"}`;

const list = (names: readonly string[]): string =>
  names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : (names[0] ?? "");

/** "2 groups and 1 user gain VIEW and EXPORT on sales-emea", "1 group gains VIEW on sales and below". */
function phrase(e: PermissionSummaryEntry): string {
  const who = [e.groups > 0 ? plural(e.groups, "group") : "", e.users > 0 ? plural(e.users, "user") : ""]
    .filter(Boolean)
    .join(" and ");
  const one = e.groups + e.users === 1;
  const verb = e.change === "gain" ? (one ? "gains" : "gain") : one ? "loses" : "lose";
  const at = e.on === null ? "the organization" : e.on;
  const what = [
    e.permissions.length > 0 ? `${list(e.permissions)} on ${at}` : "",
    e.hierarchy.length > 0 ? `${list(e.hierarchy)} on ${at} and below` : "",
  ]
    .filter(Boolean)
    .join(" and ");
  return `${who} ${verb} ${what}`;
}

export function permissionsText(p: PermissionSummary | undefined): string {
  if (p === undefined) return "";
  const all = p.changes.map(phrase);
  const shown = all.slice(0, PERMISSION_PHRASES);
  const more = all.length - shown.length;
  return more > 0 ? `${shown.join(", ")}, … and ${num(more)} more` : shown.join(", ");
}

/** "7 permission changes (6 to grant, 1 to revoke)", or done: "(6 granted, 1 revoked)"; "" for none. */
export function permissionChangesPhrase(p: PermissionSummary | undefined, tense: "toDo" | "done"): string {
  if (p === undefined || p.grant + p.revoke === 0) return "";
  const parts = [
    p.grant > 0 ? `${num(p.grant)} ${tense === "toDo" ? "to grant" : "granted"}` : "",
    p.revoke > 0 ? `${num(p.revoke)} ${tense === "toDo" ? "to revoke" : "revoked"}` : "",
  ].filter(Boolean);
  return `${plural(p.grant + p.revoke, "permission change")} (${parts.join(", ")})`;
}

export function permissionGuardText(s: PlanSummary): string {
  const g = s.permissionGuard;
  if (g === undefined || g.wanted === 0) return "";
  const wanted = `${plural(g.wanted, "removal")}, ${num(g.limit)} allowed (${plural(g.managedAssignments, "assignment")} managed)`;
  if (!g.heldBack) return `${wanted}: within the limit`;
  return `${wanted}: every removal is held back. Allow them for one run with --allow-permission-removals ${g.wanted}, or raise permissions.maxRemovals`;
}

/** A grant as a field value: "VIEW, EXPORT", "VIEW; hierarchy: VIEW", "(none)". */
export function grantText(g: unknown): string {
  if (Array.isArray(g)) return g.length === 0 ? "(none)" : g.join(", ");
  const { permissions = [], hierarchy = [] } = g as { permissions?: string[]; hierarchy?: string[] };
  const own = permissions.join(", ");
  const below = hierarchy.length > 0 ? `hierarchy: ${hierarchy.join(", ")}` : "";
  return [own, below].filter(Boolean).join("; ") || "(none)";
}
