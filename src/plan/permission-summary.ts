/**
 * The permissions part of a plan's summary: per permission and place, how many groups and users
 * gain it and lose it ("3 groups gain VIEW on sales-emea, 1 group loses EXPORT on finance"), and
 * how many assignee × place changes are to grant, to revoke and held back.
 */
import type { PermissionChange, OrganizationChange, Step } from "./types.js";

export interface PermissionSummaryEntry {
  /** A workspace id, or null for the organization. */
  on: string | null;
  /** The permission is a hierarchy permission (on the workspace and every one below it). */
  hierarchy: boolean;
  permission: string;
  gain: { groups: number; users: number };
  lose: { groups: number; users: number };
}

export interface PermissionSummary {
  /** The organization first, then by workspace, hierarchy (own first), permission. */
  changes: PermissionSummaryEntry[];
  /** Assignee × place changes in grant steps, and in revoke steps. */
  grant: number;
  revoke: number;
  /** Of `revoke`: the ones held back over permissions.maxRemovals. */
  heldBack: number;
}

const minus = (a: readonly string[], b: readonly string[]): string[] => a.filter((x) => !b.includes(x));
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Each permission the change adds or removes, with whether it is a hierarchy permission. */
function moves(c: PermissionChange | OrganizationChange, lose: boolean): Array<[string, boolean]> {
  const [from, to] = lose ? [c.after, c.before] : [c.before, c.after];
  if (Array.isArray(from) && Array.isArray(to)) return minus(to, from).map((p) => [p, false]);
  const f = from as PermissionChange["before"];
  const t = to as PermissionChange["after"];
  return [
    ...minus(t.permissions, f.permissions).map((p): [string, boolean] => [p, false]),
    ...minus(t.hierarchy, f.hierarchy).map((p): [string, boolean] => [p, true]),
  ];
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
    for (const c of s.changes)
      for (const [permission, hierarchy] of moves(c, lose)) {
        const key = `${on ?? ""}\u0000${on === null ? 0 : 1}\u0000${hierarchy ? 1 : 0}\u0000${permission}`;
        const e = entries.get(key) ?? {
          on,
          hierarchy,
          permission,
          gain: { groups: 0, users: 0 },
          lose: { groups: 0, users: 0 },
        };
        e[lose ? "lose" : "gain"][c.assignee.type === "user" ? "users" : "groups"] += 1;
        entries.set(key, e);
      }
  }
  // The organization first, then workspaces by id.
  out.changes = [...entries.values()].sort(
    (a, b) =>
      (a.on === null ? -1 : 0) - (b.on === null ? -1 : 0) ||
      cmp(a.on ?? "", b.on ?? "") ||
      Number(a.hierarchy) - Number(b.hierarchy) ||
      cmp(a.permission, b.permission),
  );
  return out;
}
