/**
 * The revert guard (DESIGN.md §5): a plan that undoes what a recent run changed is held back like
 * a deletion. An older file re-applied after a correction would otherwise silently put back the
 * old department, re-enable a delayed starter or delete a renamed person's new login.
 *
 * Pure: the recent changes come in as the planner's `recent` input (read from the state file by
 * the CLI, written there by `apply` for its succeeded steps: changesOf). A step reverts when one
 * of its changes sets a field back to the value a run within `policy.revertWindow` changed it
 * from (and it still holds the value that run set). All or nothing, like `maxDeletes`: more
 * reverting steps than `--allow-reverts` allows (0 without it) and every one is held back. The
 * deletion of a leaver is not a revert: one due after `policy.revokeAfter` (the grace period
 * decided it), or one the source marks gone (a row `state: absent`, a directory account disabled
 * or suspended, a last day passed): the source said so, it is no older file undoing a newer run.
 */
import { compareStrings } from "./context.js";
import { groupKey, idpKey, mappingKey } from "./fingerprint.js";
import { isoTime } from "./grace.js";
import type { PlanRevert, PlanReverts, Step } from "./types.js";

/** One field of one object a step changes, as text: `absent` is a field without a value. */
export interface FieldChange {
  /** Object key: `mapping:<id>`, `idp:<email>`, `group:<id>`. */
  object: string;
  /** `exists`, a field name, or `group:<id>` for a person's membership of a group. */
  field: string;
  before: string;
  after: string;
}

/** A change an earlier apply made: what, when (epoch ms) and in which run (the plan's stateDigest). */
export interface RecentChange extends FieldChange {
  at: number;
  run: string;
  /** The apply run's id (its log and journal lines carry it); absent in older state files. */
  runId?: string;
}

/** The planner's `recent` input: the run's time and what recent applies changed. */
export interface RecentInput {
  now: number;
  changes: readonly RecentChange[];
}

export const ABSENT_VALUE = "absent";
const PRESENT = "present";
const MEMBER = "member";
const NOT_MEMBER = "not a member";

const text = (v: string | undefined): string => (v === undefined ? ABSENT_VALUE : v);

function fieldChanges(
  object: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  fields: readonly string[],
): FieldChange[] {
  const out: FieldChange[] = [];
  for (const field of fields) {
    const b = before[field];
    const a = after[field];
    const bt = Array.isArray(b) ? b.join(",") : typeof b === "string" ? b : undefined;
    const at = Array.isArray(a) ? a.join(",") : typeof a === "string" ? a : undefined;
    if (bt !== at) out.push({ object, field, before: text(bt), after: text(at) });
  }
  return out;
}

function membershipChanges(id: string, before: readonly string[], after: readonly string[]): FieldChange[] {
  const object = mappingKey(id);
  const was = new Set(before);
  const is = new Set(after);
  return [
    ...after
      .filter((g) => !was.has(g))
      .map((g) => ({ object, field: `group:${g}`, before: NOT_MEMBER, after: MEMBER })),
    ...before
      .filter((g) => !is.has(g))
      .map((g) => ({ object, field: `group:${g}`, before: MEMBER, after: NOT_MEMBER })),
  ];
}

const exists = (object: string, created: boolean): FieldChange => ({
  object,
  field: "exists",
  before: created ? ABSENT_VALUE : PRESENT,
  after: created ? PRESENT : ABSENT_VALUE,
});

/** What a step changes, field by field (a mapping's groups one membership each). */
export function changesOf(s: Step): FieldChange[] {
  switch (s.kind) {
    case "createMapping":
    case "deleteMapping":
      return [exists(mappingKey(s.target), s.kind === "createMapping")];
    case "createCredentials":
    case "deleteCredentials":
      return [exists(idpKey(s.target), s.kind === "createCredentials")];
    case "createGroup":
    case "deleteGroup":
      return [exists(groupKey(s.target), s.kind === "createGroup")];
    case "updateMapping": {
      const after = {
        ...s.after,
        authenticationId: typeof s.after.authenticationId === "string" ? s.after.authenticationId : undefined,
      };
      return [
        ...fieldChanges(mappingKey(s.target), { ...s.before }, after, [
          "firstname",
          "lastname",
          "email",
          "authenticationId",
        ]),
        ...membershipChanges(s.target, s.before.groups, s.after.groups),
      ];
    }
    case "updateCredentials":
      return fieldChanges(idpKey(s.target), { ...s.before }, { ...s.after }, ["displayName", "email"]);
    case "updateGroup":
      return fieldChanges(groupKey(s.target), { ...s.before }, { ...s.after }, ["name", "parents"]);
    case "addMembers":
      return s.members.flatMap((m) => membershipChanges(m, [], [s.target]));
    case "removeMembers":
      return s.members.flatMap((m) => membershipChanges(m, [s.target], []));
    default:
      return [];
  }
}

const changeKey = (c: { object: string; field: string }): string => `${c.object}\u0000${c.field}`;

/**
 * The newest change per object and field within the window ending at `now`, of the objects the
 * steps change only (a first run of 100,000 people leaves 100,000 changes; a run of a few steps
 * looks up a few).
 */
function newestWithin(
  recent: RecentInput,
  windowMs: number,
  objects: ReadonlySet<string>,
): Map<string, RecentChange> {
  const newest = new Map<string, RecentChange>();
  for (const c of recent.changes) {
    if (!objects.has(c.object) || c.at > recent.now || recent.now - c.at > windowMs) continue;
    const key = changeKey(c);
    const seen = newest.get(key);
    if (seen === undefined || c.at > seen.at) newest.set(key, c);
  }
  return newest;
}

/**
 * Holds back the steps that undo a recent change (unless `allow` lets that many through) and
 * returns what they undo; undefined when nothing reverts or the guard is off.
 */
export function applyRevertGuard(
  steps: Iterable<Step>,
  recent: RecentInput | undefined,
  window: { text: string; seconds: number } | undefined,
  allow: number | undefined,
  due: ReadonlySet<string> = new Set(),
): PlanReverts | undefined {
  if (recent === undefined || window === undefined || window.seconds <= 0) return undefined;
  const list = [...steps];
  const objects = new Set(
    list.flatMap((s) => (s.status === "planned" ? changesOf(s).map((c) => c.object) : [])),
  );
  const newest = newestWithin(recent, window.seconds * 1000, objects);
  if (newest.size === 0) return undefined;
  const changes: PlanRevert[] = [];
  const reverting: Step[] = [];
  for (const s of list) {
    // A leaver whose policy.revokeAfter has passed is deleted on purpose, whoever created them.
    if (s.status !== "planned" || s.touches.some((k) => due.has(k))) continue;
    let reverts = false;
    for (const c of changesOf(s)) {
      const r = newest.get(changeKey(c));
      if (r === undefined || r.before !== c.after || r.after !== c.before) continue;
      reverts = true;
      const changedAt = isoTime(r.at);
      changes.push({
        step: s.id,
        object: c.object,
        field: c.field,
        from: c.before,
        to: c.after,
        changedAt,
        run: r.run,
      });
    }
    if (!reverts) continue;
    s.revertsRecent = true;
    reverting.push(s);
  }
  if (reverting.length === 0) return undefined;
  const limit = allow ?? 0;
  if (reverting.length > limit) for (const s of reverting) s.status = "heldBack";
  changes.sort(
    (a, b) =>
      compareStrings(a.object, b.object) ||
      compareStrings(a.field, b.field) ||
      compareStrings(a.step, b.step),
  );
  return { window: window.text, limit, wanted: reverting.length, changes };
}
