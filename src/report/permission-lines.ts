/**
 * Permissions in words: the summary line ("3 groups gain VIEW on sales-emea, 1 group loses
 * EXPORT on finance"), the count in the plan line ("7 permission changes (6 to grant, 1 to
 * revoke)"), the permission guard, and one grant as a field value ("VIEW, EXPORT; hierarchy: VIEW").
 */
import type { PermissionSummary, PermissionSummaryEntry } from "../plan/permission-summary.js";
import type { PlanSummary } from "../plan/summary.js";

/** Phrases shown in the summary before "… and N more". */
export const PERMISSION_PHRASES = 10;

const num = (n: number): string => n.toLocaleString("en-US");
const plural = (n: number, word: string): string => `${num(n)} ${word}${n === 1 ? "" : "s"}`;

function place(e: PermissionSummaryEntry): string {
  if (e.on === null) return "the organization";
  return e.hierarchy ? `${e.on} and below` : e.on;
}

/**
 * "3 groups gain VIEW on sales-emea", "1 group loses ANALYZE and EXPORT on finance": one phrase
 * per place, direction, kind of assignee and count, naming every permission that shares them.
 */
function phrases(entries: readonly PermissionSummaryEntry[]): string[] {
  const by = new Map<string, { n: number; who: string; dir: "gain" | "lose"; at: string; names: string[] }>();
  for (const e of entries)
    for (const dir of ["gain", "lose"] as const)
      for (const who of ["groups", "users"] as const) {
        const n = e[dir][who];
        if (n === 0) continue;
        const key = `${place(e)}\u0000${dir}\u0000${who}\u0000${n}`;
        const phrase = by.get(key) ?? { n, who: who.slice(0, -1), dir, at: place(e), names: [] };
        phrase.names.push(e.permission);
        by.set(key, phrase);
      }
  return [...by.values()].map(({ n, who, dir, at, names }) => {
    const verb = dir === "gain" ? (n === 1 ? "gains" : "gain") : n === 1 ? "loses" : "lose";
    const list =
      names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0];
    return `${plural(n, who)} ${verb} ${list} on ${at}`;
  });
}

export function permissionsText(p: PermissionSummary | undefined): string {
  if (p === undefined) return "";
  const all = phrases(p.changes);
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
