/**
 * A tripped deletion guard in a plan a person reads: the summary's "Deletion guard" line says the
 * count and the flag that lifts it once, and the people (and groups) it holds back are one named
 * section, not an object each carrying the same reason.
 */
import type { Plan } from "../plan/types.js";
import type { ObjectView } from "./describe.js";
import type { NoticeSection } from "./plan-frame.js";

/** Every step of the object was held back by the deletion guard (not by the permission guard). */
const heldByGuard = (o: ObjectView): boolean =>
  o.kind !== "permissions" &&
  o.steps.length > 0 &&
  o.steps.every((v) => v.step.status === "heldBack" && !v.step.revertsRecent);

/** The objects to list one by one: those the deletion guard holds back are in guardSection. */
export const withoutHeldBack = (objects: readonly ObjectView[]): ObjectView[] =>
  objects.filter((o) => !heldByGuard(o));

/** A leaver's access revoke (plan/revoke-access.ts) in its own words: its reason up to the first `;`. */
function revokesAccess(o: ObjectView): string | undefined {
  const s = o.steps.find((v) => v.step.kind === "updateMapping" && v.step.revokesAccess)?.step;
  return s?.reason.split(";")[0];
}

const VERB = { "+": "create", "~": "update", "-": "delete" } as const;

/** The section of what the deletion guard holds back, or none. */
export function guardSection(plan: Plan, objects: readonly ObjectView[]): NoticeSection[] {
  const held = objects.filter(heldByGuard);
  if (held.length === 0) return [];
  const g = plan.deleteGuard;
  const notices = held.map((o) => ({
    target: o.title,
    message:
      o.kind === "group"
        ? "the group would be deleted"
        : revokesAccess(o)
          ? `revoke: ${revokesAccess(o)}`
          : `${plan.deletions === "remove" ? "remove" : "revoke"}: ${o.steps
              .map((v) => `${v.action === "-" ? "" : `${VERB[v.action]} `}${v.noun} ${v.step.target}`)
              .join(", ")}`,
  }));
  return [
    {
      title: `Held back by the deletion guard, ${g.limit} allowed: read them, then --allow-deletes ${g.wanted} for one run`,
      notices,
    },
  ];
}

/**
 * The revert guard's section: each change a step would undo, with the run that made it (its time
 * and stateDigest); the steps stay listed with their objects, marked held back. None when the
 * plan reverts nothing.
 */
export function revertSections(plan: Plan): NoticeSection[] {
  const r = plan.reverts;
  if (r === undefined) return [];
  const held = r.wanted > r.limit;
  const title = held
    ? `Held back by the revert guard (policy.revertWindow ${r.window}), ${r.limit} allowed: read them, then --allow-reverts ${r.wanted} for one run`
    : `Undoing recent changes (policy.revertWindow ${r.window}), allowed by --allow-reverts ${r.limit}`;
  const notices = r.changes.map((c) => ({
    target: c.object,
    message: `${c.field} back from ${c.from} to ${c.to}, undoing the run of ${c.changedAt} (stateDigest ${c.run})`,
  }));
  return [{ title, notices }];
}
