/**
 * Saved plans are applied exactly: a step is stale when an object it relies on (its `touches`)
 * has, in a fresh listing, a fingerprint other than the one the plan recorded.
 */
import { ABSENT, fingerprintActual } from "../plan/fingerprint.js";
import type { Plan } from "../plan/types.js";
import type { ActualState } from "../service/types.js";

export function findStaleSteps(plan: Plan, actual: ActualState): Set<string> {
  const current = fingerprintActual(actual);
  const stale = new Set<string>();
  for (const step of plan.steps) {
    for (const key of step.touches) {
      // A key the plan did not record cannot be vouched for: treat it as changed.
      const recorded = plan.objects[key];
      if (recorded === undefined || (current.get(key) ?? ABSENT) !== recorded) {
        stale.add(step.id);
        break;
      }
    }
  }
  return stale;
}
