/**
 * What changed since a previous review (`--since previous.json`): people who came and went,
 * access gained and lost, permissions raised and lowered, filters widened and narrowed,
 * organization permissions, status. Compared by person key and workspace id; filters by meaning
 * (the same label and values in another spelling are the same filter).
 */
import { meaningOf } from "../data-filters.js";
import {
  compareCoverage,
  compareIds as cmp,
  effectiveOrganization,
  effectiveWorkspace,
} from "../permissions.js";
import type { ChangeKind, Review, ReviewChange, ReviewChanges, ReviewPerson } from "./types.js";

const norm = (maql: string): string => JSON.stringify(meaningOf(maql));

// eslint-disable-next-line max-lines-per-function -- one pass over both reviews, kind by kind in the order a reader meets them
export function reviewChanges(previous: Review, current: Review): ReviewChanges {
  const before = new Map(previous.people.map((p) => [p.key, p]));
  const changes: ReviewChange[] = [];
  const push = (p: ReviewPerson, c: Omit<ReviewChange, "person" | "email">): void => {
    changes.push({ person: p.key, ...(p.email !== undefined ? { email: p.email } : {}), ...c });
  };
  const seen = new Set<string>();
  for (const p of current.people) {
    seen.add(p.key);
    const old = before.get(p.key);
    if (!old) {
      push(p, { kind: "personCame", after: [p.status] });
      for (const a of p.access)
        push(p, { kind: "accessGained", workspace: a.workspace, after: a.permissions });
      if (p.organizationPermissions.length > 0)
        push(p, { kind: "organizationPermissionsRaised", before: [], after: p.organizationPermissions });
      continue;
    }
    if (old.status !== p.status) push(p, { kind: "statusChanged", before: [old.status], after: [p.status] });
    raisedLowered(
      old.organizationPermissions,
      p.organizationPermissions,
      (kind, b, a) =>
        push(p, {
          kind: kind === "raised" ? "organizationPermissionsRaised" : "organizationPermissionsLowered",
          before: b,
          after: a,
        }),
      effectiveOrganization,
    );
    const oldAccess = new Map(old.access.map((a) => [a.workspace, a]));
    const nowAccess = new Set(p.access.map((a) => a.workspace));
    for (const a of p.access) {
      const o = oldAccess.get(a.workspace);
      if (!o) {
        push(p, { kind: "accessGained", workspace: a.workspace, after: a.permissions });
        continue;
      }
      raisedLowered(
        o.permissions,
        a.permissions,
        (kind, b, after) =>
          push(p, {
            kind: kind === "raised" ? "permissionsRaised" : "permissionsLowered",
            workspace: a.workspace,
            before: b,
            after,
          }),
        effectiveWorkspace,
      );
      const was = new Map(o.filters.map((f) => [norm(f.maql), f.maql]));
      const is = new Map(a.filters.map((f) => [norm(f.maql), f.maql]));
      const gone = [...was.keys()].filter((k) => !is.has(k));
      const added = [...is.keys()].filter((k) => !was.has(k));
      // One filter fewer may show more rows: widened. One more can only show fewer: narrowed.
      if (gone.length > 0)
        push(p, {
          kind: "filtersWidened",
          workspace: a.workspace,
          before: [...was.values()].sort(cmp),
          after: [...is.values()].sort(cmp),
        });
      else if (added.length > 0)
        push(p, {
          kind: "filtersNarrowed",
          workspace: a.workspace,
          before: [...was.values()].sort(cmp),
          after: [...is.values()].sort(cmp),
        });
    }
    for (const o of old.access)
      if (!nowAccess.has(o.workspace))
        push(p, { kind: "accessLost", workspace: o.workspace, before: o.permissions });
  }
  for (const old of previous.people) {
    if (seen.has(old.key)) continue;
    push(old, { kind: "personWent", before: [old.status] });
    for (const a of old.access)
      push(old, { kind: "accessLost", workspace: a.workspace, before: a.permissions });
  }
  changes.sort(
    (a, b) => cmp(a.person, b.person) || cmp(a.workspace ?? "", b.workspace ?? "") || cmp(a.kind, b.kind),
  );
  const counts: Partial<Record<ChangeKind, number>> = {};
  for (const c of changes) counts[c.kind] = (counts[c.kind] ?? 0) + 1;
  return { since: previous.snapshot, changes, counts };
}

/**
 * Raised and lowered by meaning: what the sets cover (permissions.ts), not their names, so
 * EXPORT_PDF -> EXPORT is a raise only. Workspace rows hold effective permissions already; a saved
 * review's are covered again, which changes nothing of an effective set.
 */
function raisedLowered<P extends string>(
  before: readonly P[],
  after: readonly P[],
  emit: (kind: "raised" | "lowered", before: string[], after: string[]) => void,
  cover: (set: readonly P[]) => P[],
): void {
  const { raised, lowered } = compareCoverage(before, after, cover);
  if (raised) emit("raised", [...before], [...after]);
  if (lowered) emit("lowered", [...before], [...after]);
}

/** A parsed JSON file that is a review this usersync can compare with, or why it is not. */
export function asReview(value: unknown): Review | string {
  const v = value as Partial<Review> | null;
  if (typeof v !== "object" || v === null || v.kind !== "usersync-access-review")
    return 'not a usersync access review (no "kind": "usersync-access-review")';
  if (v.formatVersion !== 1) return `formatVersion ${String(v.formatVersion)}; this usersync reads 1`;
  if (!Array.isArray(v.people) || typeof v.snapshot !== "object") return "people or snapshot missing";
  return v as Review;
}
