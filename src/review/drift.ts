/**
 * The review's "does the desired state agree": the plan made against the desired state, its
 * steps laid out by the person they change (review.ts marks a managed person with steps `drifted`).
 */
import type { ActualState } from "../service/types.js";
import { personOfSteps } from "../plan/summary.js";
import type { Plan, Step } from "../plan/types.js";

/** Person key (the userId, `login:<email>`) -> one line per step that changes them. */
export function stepsByPerson(plan: Plan, actual: ActualState): Map<string, string[]> {
  const mappingIds = new Set(actual.mappings.map((m) => m.id));
  const byEmail = new Map<string, string>();
  for (const u of actual.idpUsers) byEmail.set(u.email.toLowerCase(), `login:${u.email.toLowerCase()}`);
  const byAuth = new Map(actual.idpUsers.map((u) => [u.authenticationId, u.email.toLowerCase()] as const));
  for (const m of actual.mappings) {
    const email = m.authenticationId !== undefined ? byAuth.get(m.authenticationId) : undefined;
    if (email !== undefined) byEmail.set(email, m.id);
  }
  const keyOf = (who: string): string | undefined =>
    mappingIds.has(who) ? who : byEmail.get(who.toLowerCase());
  const person = personOfSteps(plan.steps);
  const out = new Map<string, string[]>();
  const add = (key: string | undefined, s: Step): void => {
    if (key === undefined) return;
    const line = `${s.id}${s.status === "heldBack" ? " (held back)" : ""}: ${s.reason}`;
    const list = out.get(key);
    if (list) list.push(line);
    else out.set(key, [line]);
  };
  for (const s of plan.steps) {
    switch (s.kind) {
      case "grantWorkspacePermissions":
      case "revokeWorkspacePermissions":
      case "grantOrganizationPermissions":
      case "revokeOrganizationPermissions":
        for (const c of s.changes) if (c.assignee.type === "user") add(keyOf(c.assignee.id), s);
        break;
      case "addMembers":
      case "removeMembers":
        for (const id of s.members) add(keyOf(id), s);
        break;
      case "createDataFilter":
      case "updateDataFilter":
      case "deleteDataFilter":
        if (s.assignee.type === "user") add(keyOf(s.assignee.id), s);
        break;
      case "createGroup":
      case "updateGroup":
      case "deleteGroup":
        break;
      default: {
        const who = person.get(s.id);
        if (who !== undefined) add(keyOf(who), s);
      }
    }
  }
  return out;
}
