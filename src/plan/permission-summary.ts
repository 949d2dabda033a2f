/**
 * The permissions part of a plan's summary: who gains and who loses what, where, with the
 * groups and users that have the very same change counted together ("3 groups gain VIEW on
 * sales-emea, 1 group loses EXPORT on finance"), and how many assignee × place changes are to
 * grant, to revoke and held back.
 */
import { compareStrings as cmp } from "./context.js";
import type { OrganizationChange, PermissionChange, Step } from "./types.js";

export interface PermissionSummaryEntry {
  /** A workspace id, or null for the organization. */
  on: string | null;
  change: "gain" | "lose";
  /** What each of them gains (or loses) on the place itself, sorted. */
  permissions: string[];
  /** What each of them gains (or loses) as hierarchy permissions (the place and every workspace below it). */
  hierarchy: string[];
  groups: number;
  users: number;
}

export interface PermissionSummary {
  /** The organization first, then by workspace; gains before losses; then by the permissions. */
  changes: PermissionSummaryEntry[];
  /** Assignee × place changes in grant steps, and in revoke steps. */
  grant: number;
  revoke: number;
  /** Of `revoke`: the ones held back over permissions.maxRemovals. */
  heldBack: number;
}

const minus = (a: readonly string[], b: readonly string[]): string[] => a.filter((x) => !b.includes(x));

/** What one change adds (or, `lose`, removes): own permissions and hierarchy permissions. */
function moved(c: PermissionChange | OrganizationChange, lose: boolean): { own: string[]; below: string[] } {
  const [from, to] = lose ? [c.after, c.before] : [c.before, c.after];
  if (Array.isArray(from) && Array.isArray(to)) return { own: minus(to, from), below: [] };
  const f = from as PermissionChange["before"];
  const t = to as PermissionChange["after"];
  return { own: minus(t.permissions, f.permissions), below: minus(t.hierarchy, f.hierarchy) };
}

export function addPermissions(steps: readonly Step[]): PermissionSummary {
  const out: PermissionSummary = { changes: [], grant: 0, revoke: 0, heldBack: 0 };
  const entries = new Map<string, PermissionSummaryEntry>();
  for (const s of steps) {
    if (!("changes" in s)) continue;
    const lose = s.kind.startsWith("revoke");
    const on = s.kind.endsWith("OrganizationPermissions") ? null : s.target;
    out[lose ? "revoke" : "grant"] += s.changes.length;
    if (s.status === "heldBack") out.heldBack += s.changes.length;
    for (const c of s.changes) {
      const { own, below } = moved(c, lose);
      const key = JSON.stringify([on, lose, own, below]);
      const e = entries.get(key) ?? {
        on,
        change: lose ? "lose" : "gain",
        permissions: own,
        hierarchy: below,
        groups: 0,
        users: 0,
      };
      e[c.assignee.type === "user" ? "users" : "groups"] += 1;
      entries.set(key, e);
    }
  }
  const rank = (e: PermissionSummaryEntry): string => `${e.on === null ? 0 : 1}${e.on ?? ""}`;
  out.changes = [...entries.values()].sort(
    (a, b) =>
      cmp(rank(a), rank(b)) ||
      cmp(a.change, b.change) ||
      cmp(a.permissions.join(), b.permissions.join()) ||
      cmp(a.hierarchy.join(), b.hierarchy.join()),
  );
  return out;
}
