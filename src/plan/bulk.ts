/**
 * Bulk membership: a person whose only change is membership is moved by the groups'
 * `addMembers` / `removeMembers` (one request per group and direction, for up to
 * MEMBERS_PER_REQUEST people) instead of one PUT of their mapping, unless their own PUT is no
 * dearer (see cheaperAlone). A person with any other change keeps the one PUT, which carries
 * their final groups: never both for one person.
 * Runs last, on the committed steps, so scope, protection and the deletion guard have already
 * decided who is planned at all. See docs/architecture.md, "Bulk membership".
 */
import { compareStrings, sameList, type PlanContext } from "./context.js";
import { mappingKey } from "./fingerprint.js";
import { nounOf, parseObjectKey } from "./kinds.js";
import { pushTo } from "./groups.js";
import { stepId } from "./steps.js";
import type { MembersStep, Step, UpdateMappingStep } from "./types.js";

/**
 * People per request. The service documents no limit; 500 ids are a body of at most 130 kB and
 * match the listing's page size, and a failed request holds back at most 500 people.
 */
export const MEMBERS_PER_REQUEST = 500;

/** The part of an updateMapping a bulk move needs: who, which groups joined and left, and the keys relied on. */
interface Mover {
  id: string;
  join: string[];
  leave: string[];
  touches: string[];
}

/** True when `s` changes the groups of an existing mapping and nothing else. */
function onlyGroupsDiffer(ctx: PlanContext, s: UpdateMappingStep): boolean {
  const { before, after } = s;
  if (s.status !== "planned" || typeof after.authenticationId === "object") return false;
  // A leaver's access revoke keeps its own PUT: the plan shows it as one person's revoke.
  if (s.revokesAccess) return false;
  if (s.dependsOn.some((d) => !ctx.steps.has(d) || nounOf(ctx.steps.get(d)!.kind) !== "group")) return false;
  return (
    after.authenticationId === before.authenticationId &&
    after.firstname === before.firstname &&
    after.lastname === before.lastname &&
    after.email === before.email &&
    !sameList(after.groups, before.groups)
  );
}

function moverOf(s: UpdateMappingStep): Mover {
  const before = new Set(s.before.groups);
  const after = new Set(s.after.groups);
  return {
    id: s.target,
    join: s.after.groups.filter((g) => !before.has(g)),
    leave: s.before.groups.filter((g) => !after.has(g)),
    touches: s.touches,
  };
}

export function planBulkMembership(ctx: PlanContext): void {
  if (ctx.profile !== "v1" || ctx.actual.bulkMembership === false) return;
  const candidates: Mover[] = [];
  for (const s of ctx.steps.values())
    if (s.kind === "updateMapping" && onlyGroupsDiffer(ctx, s)) candidates.push(moverOf(s));
  const ownPut = cheaperAlone(candidates);
  const movers = candidates.filter((m) => !ownPut.has(m.id));
  if (movers.length === 0) return;
  const byGroup = { add: new Map<string, Mover[]>(), remove: new Map<string, Mover[]>() };
  for (const m of movers) {
    ctx.steps.delete(stepId("updateMapping", m.id));
    for (const g of m.join) pushTo(byGroup.add, g, m);
    for (const g of m.leave) pushTo(byGroup.remove, g, m);
    linkCredentialsStep(ctx, m);
  }
  const bulkIds = new Map<string, string[]>();
  for (const [op, groups] of [["add", byGroup.add] as const, ["remove", byGroup.remove] as const])
    for (const [group, people] of groups)
      for (const step of membersSteps(ctx, { op, group, people })) {
        ctx.steps.set(step.id, step);
        for (const id of step.members) pushTo(bulkIds, stepId("updateMapping", id), step.id);
      }
  // A step that waited for a person's PUT (a group pruned once they left it) waits for their moves.
  for (const s of ctx.steps.values())
    if (s.dependsOn.some((d) => bulkIds.has(d)))
      s.dependsOn = s.dependsOn.flatMap((d) => bulkIds.get(d) ?? [d]);
}

/**
 * The people whose own PUT costs no more than their part in bulk requests: those who would be
 * the only one in a request (alone joining or leaving a group). Taking one out of bulk costs one
 * PUT and saves a request per group they were alone in, so a tie goes to the PUT too (one request
 * that moves a person at once). Each one taken out may leave another alone in a request, so this
 * runs until nothing changes; people are only ever taken out, so the result does not depend on
 * the order they are looked at. A reorganisation keeps everyone in bulk; a lone mover gets a PUT.
 */
function cheaperAlone(movers: readonly Mover[]): Set<string> {
  const requests = new Map<string, Set<string>>();
  const requestsOf = new Map<string, string[]>();
  for (const m of movers) {
    const keys = [...m.join.map((g) => `add\u0000${g}`), ...m.leave.map((g) => `remove\u0000${g}`)];
    requestsOf.set(m.id, keys);
    for (const k of keys) {
      const people = requests.get(k);
      if (people) people.add(m.id);
      else requests.set(k, new Set([m.id]));
    }
  }
  const alone = new Set<string>();
  const queue = movers.map((m) => m.id);
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    const keys = requestsOf.get(id)!;
    if (alone.has(id) || !keys.some((k) => requests.get(k)!.size === 1)) continue;
    alone.add(id);
    for (const k of keys) {
      const people = requests.get(k)!;
      people.delete(id);
      if (people.size === 1) queue.push(...people);
    }
  }
  return alone;
}

/** The requests moving `people` into (`add`) or out of (`remove`) `group`, split at MEMBERS_PER_REQUEST. */
function membersSteps(
  ctx: PlanContext,
  input: { op: "add" | "remove"; group: string; people: Mover[] },
): MembersStep[] {
  const { op, group } = input;
  const kind = op === "add" ? "addMembers" : "removeMembers";
  const people = [...input.people].sort((a, b) => compareStrings(a.id, b.id));
  const created = ctx.createdGroups.get(group);
  const batches = Math.ceil(people.length / MEMBERS_PER_REQUEST);
  const steps: MembersStep[] = [];
  for (let b = 0; b < batches; b++) {
    const batch = people.slice(b * MEMBERS_PER_REQUEST, (b + 1) * MEMBERS_PER_REQUEST);
    const n = batch.length;
    const verb = op === "add" ? "join" : "leave";
    const who = n === 1 ? `1 person ${verb}s ${group}` : `${n} people ${verb} ${group}`;
    const part = batches > 1 ? `request ${b + 1} of ${batches}: ` : "";
    steps.push({
      id: `${stepId(kind, group)}${b > 0 ? `#${b + 1}` : ""}`,
      kind,
      target: group,
      status: "planned",
      // The group may be created by this plan (and a removal's group exists already).
      dependsOn: op === "add" && created !== undefined ? [created] : [],
      reason: `${part}${who}; membership is their only change`,
      // Every object each person's PUT would have relied on: the step is stale when any changed.
      touches: [...new Set(batch.flatMap((m) => m.touches))],
      members: batch.map((m) => m.id),
    });
  }
  return steps;
}

/**
 * The person's display-name update, if any, names their mapping among the objects it touches:
 * without a mapping step it would otherwise count as another person (see personOfSteps).
 */
function linkCredentialsStep(ctx: PlanContext, m: Mover): void {
  for (const key of m.touches) {
    const ref = parseObjectKey(key);
    if (ref?.kind !== "idp") continue;
    const s: Step | undefined = ctx.steps.get(stepId("updateCredentials", ref.id));
    const mapping = mappingKey(m.id);
    if (s && !s.touches.includes(mapping)) s.touches.push(mapping);
  }
}
