/**
 * User groups: create and update the declared ones (and referenced ones when allowed) before
 * any user, prune undeclared empty ones after all users are planned.
 */
import type { Problem } from "../errors.js";
import { closest } from "../suggest.js";
import { isValidId } from "../desired/ids.js";
import type { DesiredState } from "../desired/types.js";
import type { ActualState, UserGroup } from "../service/types.js";
import { sameList, sortedUnique, type PlanContext } from "./context.js";
import type { Policy } from "./policy.js";
import { base, groupKey, notice, stepId } from "./steps.js";
import type { Step } from "./types.js";

/** Group ids users and groups refer to, each with where it was first referenced. */
/** Groups the desired state declares or puts people in. */
export function managedGroupIds(desired: DesiredState): Set<string> {
  return new Set([...desired.groups.map((g) => g.id), ...references(desired).keys()]);
}

function references(desired: DesiredState): Map<string, { file: string; line: number; field: string }> {
  const out = new Map<string, { file: string; line: number; field: string }>();
  for (const u of desired.users) {
    if (u.state !== "present") continue;
    for (const g of u.groups ?? []) if (!out.has(g)) out.set(g, { ...u.source, field: "groups" });
  }
  for (const g of desired.groups)
    for (const p of g.parents ?? []) if (!out.has(p)) out.set(p, { ...g.source, field: "parents" });
  return out;
}

/** Every reference to a group that is neither declared nor in the organization (rule `unknown-group`). */
export function checkGroupReferences(desired: DesiredState, actual: ActualState, policy: Policy): Problem[] {
  if (policy.groups.createReferenced) return [];
  const known = new Set([...desired.groups.map((g) => g.id), ...actual.groups.map((g) => g.id)]);
  const problems: Problem[] = [];
  const check = (id: string, at: { file: string; line: number }, field: string): void => {
    // A value that cannot be an id is a group's name: resolveGroupNames (desired/group-names.ts) said it.
    if (known.has(id) || !isValidId(id)) return;
    // A near name is a typo: createReferenced would create the misspelt group, so it is not offered.
    const near = closest(id, [...known]);
    problems.push({
      file: at.file,
      line: at.line,
      field,
      rule: "unknown-group",
      message:
        near !== undefined
          ? `group '${id}' is neither declared nor in the organization; did you mean '${near}'? Correct the name, or declare '${id}' in the groups file if it is a group of its own`
          : `group '${id}' is neither declared nor in the organization; declare it in the groups file or set policy.groups.createReferenced: true`,
    });
  };
  for (const u of desired.users)
    if (u.state === "present") for (const g of u.groups ?? []) check(g, u.source, "groups");
  for (const g of desired.groups) for (const p of g.parents ?? []) check(p, g.source, "parents");
  return problems;
}

/**
 * Built-in users need the service's built-in identity provider. When it has none (its user
 * listing answered 404), one problem names the first such row and how many there are.
 */
export function checkBuiltinIdentity(desired: DesiredState, actual: ActualState): Problem[] {
  if (actual.builtinIdp !== false) return [];
  const builtin = desired.users.filter((u) => u.state === "present" && u.identity === "builtin");
  const first = builtin[0];
  if (!first) return [];
  const others = builtin.length > 1 ? ` (and ${builtin.length - 1} more)` : "";
  return [
    {
      file: first.source.file,
      line: first.source.line,
      field: "identity",
      rule: "no-builtin-idp",
      message: `user '${first.id}'${others} has identity builtin, but this service has no built-in identity provider (its user listing answered 404): give such users identity: external and the authenticationId (sub) of your OIDC provider, or set source.defaultIdentity: external`,
    },
  ];
}

export function pushTo<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const cleanGroup = (g: UserGroup): UserGroup => ({
  id: g.id,
  ...(g.name !== undefined ? { name: g.name } : {}),
  parents: [...g.parents],
});

export function planGroups(ctx: PlanContext): void {
  const { idx, policy } = ctx;
  const legacy = ctx.profile === "legacy";
  const wanted: UserGroup[] = [];
  for (const g of ctx.desired.groups) {
    const have = idx.groupById.get(g.id);
    const parents = legacy ? [] : g.parents !== undefined ? sortedUnique(g.parents) : undefined;
    const name = g.name?.trim();
    if (have === undefined) {
      if (!policy.groups.create) {
        notice(ctx, {
          kind: "refused",
          target: groupKey(g.id),
          message: "declared but missing; policy.groups.create is off",
        });
        continue;
      }
      wanted.push({ id: g.id, ...(name !== undefined ? { name } : {}), parents: parents ?? [] });
      continue;
    }
    if (policy.groups.update) planGroupUpdate(ctx, { have, name, parents });
  }
  if (policy.groups.createReferenced && policy.groups.create) {
    for (const id of references(ctx.desired).keys())
      if (!idx.groupById.has(id) && !idx.declaredGroups.has(id)) wanted.push({ id, name: id, parents: [] });
  }
  planGroupCreates(ctx, wanted);
  // Parents first: a group step waits for the creation of the parents it names.
  for (const s of ctx.steps.values()) {
    if (s.kind !== "createGroup" && s.kind !== "updateGroup") continue;
    for (const p of s.after.parents) {
      const dep = ctx.createdGroups.get(p);
      if (dep !== undefined) s.dependsOn.push(dep);
    }
  }
}

/** An updateGroup step when the declared name or parents differ from the group's. */
function planGroupUpdate(
  ctx: PlanContext,
  g: { have: UserGroup; name: string | undefined; parents: string[] | undefined },
): void {
  const { have, name, parents } = g;
  const changes: string[] = [];
  const after = cleanGroup(have);
  if (name !== undefined && name !== (have.name ?? "").trim()) {
    after.name = name;
    changes.push("name");
  }
  if (parents !== undefined && !sameList(parents, sortedUnique(have.parents))) {
    after.parents = parents;
    changes.push("parents");
  }
  if (changes.length === 0) return;
  const reason = `${changes.join(", ")} ${changes.length > 1 ? "differ" : "differs"}`;
  ctx.steps.set(stepId("updateGroup", have.id), {
    ...base({ kind: "updateGroup", target: have.id, reason, touches: [groupKey(have.id)] }),
    before: cleanGroup(have),
    after,
  });
}

/** createGroup steps for the missing groups, declared or (groups.createReferenced) referenced. */
function planGroupCreates(ctx: PlanContext, wanted: readonly UserGroup[]): void {
  const { idx } = ctx;
  for (const g of wanted) {
    const step: Step = {
      ...base({
        kind: "createGroup",
        target: g.id,
        reason: "declared group is missing",
        touches: [groupKey(g.id)],
      }),
      after: g,
    };
    if (!idx.declaredGroups.has(g.id)) step.reason = "referenced group is missing (groups.createReferenced)";
    ctx.steps.set(step.id, step);
    ctx.createdGroups.set(g.id, step.id);
  }
}

/**
 * The groups that have members once the plan is carried out, and for each group the steps that
 * take members out of it (its deletion waits for them).
 */
function membershipAfterPlan(ctx: PlanContext): { members: Set<string>; removers: Map<string, string[]> } {
  const members = new Set<string>();
  const removers = new Map<string, string[]>();
  for (const m of ctx.actual.mappings) {
    const del = ctx.steps.get(stepId("deleteMapping", m.id));
    const upd = ctx.steps.get(stepId("updateMapping", m.id));
    const final = del ? [] : upd?.kind === "updateMapping" ? upd.after.groups : m.groups;
    for (const g of final) members.add(g);
    const step = del ?? upd;
    if (step) for (const g of m.groups) if (!final.includes(g)) pushTo(removers, g, step.id);
  }
  for (const s of ctx.steps.values())
    if (s.kind === "createMapping") for (const g of s.after.groups) members.add(g);
  return { members, removers };
}

/** The child groups of every group once the plan's group creates and updates are carried out. */
function childrenAfterPlan(ctx: PlanContext): Map<string, string[]> {
  const children = new Map<string, string[]>();
  const parentsOf = (g: UserGroup): string[] => {
    const s = ctx.steps.get(stepId("updateGroup", g.id));
    return s?.kind === "updateGroup" ? s.after.parents : g.parents;
  };
  for (const g of [
    ...ctx.actual.groups,
    ...[...ctx.steps.values()].flatMap((s) => (s.kind === "createGroup" ? [s.after] : [])),
  ])
    for (const p of parentsOf(g)) pushTo(children, p, g.id);
  return children;
}

/**
 * `prune` (full mode): undeclared, unreferenced, in-scope groups with no members and no child
 * groups once the plan is carried out. Children are deleted first.
 */
export function planGroupPrune(ctx: PlanContext): void {
  const { idx, policy, safety } = ctx;
  if (policy.mode !== "full" || !policy.groups.prune) return;
  const { members, removers } = membershipAfterPlan(ctx);
  const referenced = new Set(references(ctx.desired).keys());
  const children = childrenAfterPlan(ctx);
  const candidates = new Set<string>();
  for (const g of ctx.actual.groups) {
    if (
      idx.declaredGroups.has(g.id) ||
      referenced.has(g.id) ||
      members.has(g.id) ||
      !safety.groupInScope(g.id)
    )
      continue;
    if (safety.groupProtected(g.id)) {
      notice(ctx, { kind: "protected", target: groupKey(g.id), message: "protected by policy; not pruned" });
      continue;
    }
    candidates.add(g.id);
  }
  // A group with a child that stays must stay too; repeat until nothing changes (groups are few).
  for (let changed = true; changed;) {
    changed = false;
    for (const id of candidates)
      if ((children.get(id) ?? []).some((c) => !candidates.has(c))) {
        candidates.delete(id);
        changed = true;
      }
  }
  for (const id of candidates) {
    const have = idx.groupById.get(id);
    if (!have) continue;
    const dependsOn = [
      ...(removers.get(id) ?? []),
      ...(children.get(id) ?? []).map((c) => stepId("deleteGroup", c)),
    ];
    ctx.steps.set(stepId("deleteGroup", id), {
      ...base({
        kind: "deleteGroup",
        target: id,
        reason: "undeclared group with no members (groups.prune)",
        touches: [groupKey(id)],
        dependsOn,
      }),
      before: cleanGroup(have),
    });
  }
}
