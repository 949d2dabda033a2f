/**
 * The summary block every human rendering opens with, and the apply question, in words:
 * counts of people and groups (never of steps first), no zero counts, numbers with separators.
 */
import { summarizePlan, type PlanSummary } from "../plan/summary.js";
import type { Plan } from "../plan/types.js";
import { fieldWord } from "./describe.js";
import { goneVerb, KEPT_BY_MODE_TITLE, noticeSections, whenText } from "./plan-frame.js";
import { permissionChangesPhrase, permissionGuardText, permissionsText } from "./permission-lines.js";
import { filterChangesPhrase, filterGuardLine, filterSummary } from "./filter-lines.js";

export interface SummaryItem {
  label: string;
  text: string;
}

/** Membership moves shown in the summary before "… and N more groups". */
export const MEMBERSHIP_LIMIT = 10;

export const num = (n: number): string => n.toLocaleString("en-US");
export const people = (n: number): string => `${num(n)} ${n === 1 ? "person" : "people"}`;
export const groups = (n: number): string => `${num(n)} group${n === 1 ? "" : "s"}`;

/** A change said as still to do ("to add") or as done ("added"). */
type Tense = "toDo" | "done";
const VERBS = { add: "added", change: "changed", revoke: "revoked", remove: "removed" } as const;

/** "12 to add, 7 to change" or "12 added, 7 changed": the non-zero counts, in the order given. */
function countsText(counts: [keyof typeof VERBS, number][], tense: Tense): string {
  return counts
    .filter(([, n]) => n > 0)
    .map(([verb, n]) => `${num(n)} ${tense === "toDo" ? `to ${verb}` : VERBS[verb]}`)
    .join(", ");
}

function peopleText(s: PlanSummary, tense: Tense): string {
  const p = s.people;
  return countsText(
    [
      ["add", p.add],
      ["change", p.change],
      ["revoke", p.revoke],
      ["remove", p.remove],
    ],
    tense,
  );
}

function groupsText(s: PlanSummary, tense: Tense): string {
  return countsText(
    [
      ["add", s.groups.add],
      ["change", s.groups.change],
      ["remove", s.groups.remove],
    ],
    tense,
  );
}

const personTotal = (s: PlanSummary): number =>
  s.people.add + s.people.change + s.people.revoke + s.people.remove;
const groupTotal = (s: PlanSummary): number => s.groups.add + s.groups.change + s.groups.remove;

/** "20 people (12 to add, …) and 4 groups (3 to add, 1 to change)", or the same done ("12 added"). */
function peopleAndGroups(s: PlanSummary, tense: Tense): string {
  const parts: string[] = [];
  if (personTotal(s) > 0) parts.push(`${people(personTotal(s))} (${peopleText(s, tense)})`);
  if (groupTotal(s) > 0) parts.push(`${groups(groupTotal(s))} (${groupsText(s, tense)})`);
  const perms = permissionChangesPhrase(s.permissions, tense);
  if (perms !== "") parts.push(perms);
  const filters = filterChangesPhrase(s.dataFilters, tense);
  if (filters !== "") parts.push(filters);
  const last = parts.pop();
  return parts.length > 0 ? `${parts.join(", ")} and ${last}` : (last ?? "");
}

/** "changes for 20 people (12 to add, …) and 4 groups (3 to add, 1 to change)"; permissions alone: "1 permission change (1 to revoke)". */
export function changesPhrase(s: PlanSummary): string {
  const phrase = peopleAndGroups(s, "toDo");
  return personTotal(s) + groupTotal(s) > 0 ? `changes for ${phrase}` : phrase;
}

/** "39 people (21 added, 17 changed, 1 revoked) and 4 groups (3 added, 1 changed)": the plan line, done. */
export function donePhrase(s: PlanSummary): string {
  return peopleAndGroups(s, "done");
}

/** The last line of the text plan, and the bold line of the Markdown one. */
export function renderPlanSummaryLine(plan: Plan): string {
  const s = summarizePlan(plan);
  const pending = s.pending ? ` ${people(s.pending.people)} pending (policy.revokeAfter).` : "";
  if (plan.steps.length === 0) {
    // Nothing to do only because of the mode is not "matches": say what is kept.
    const kept = keptPhrase(s);
    const keptText =
      kept === "" ? "" : ` Kept only because the mode is incremental: ${kept} (see Kept by mode).`;
    if (pending === "" && kept === "") return "No changes. The organization matches the desired state.";
    return pending === "" ? `No changes.${keptText}` : `No changes now.${pending}${keptText}`;
  }
  const held = s.people.heldBack > 0 ? ` ${people(s.people.heldBack)} held back.` : "";
  const removals = s.permissions?.heldBack ?? 0;
  const heldRemovals =
    removals > 0 ? ` ${num(removals)} permission removal${removals === 1 ? "" : "s"} held back.` : "";
  return `Plan: ${changesPhrase(s)}.${held}${heldRemovals}${pending}`;
}

const grants = (n: number): string => `${num(n)} workspace grant${n === 1 ? "" : "s"}`;

/** "9 people not in the file and 1 workspace grant the desired state no longer lists", or "". */
function keptPhrase(s: PlanSummary): string {
  const parts = [
    s.keptByMode ? `${people(s.keptByMode)} not in the file` : "",
    s.permissionsKeptByMode ? `${grants(s.permissionsKeptByMode)} the desired state no longer lists` : "",
  ].filter(Boolean);
  return parts.join(" and ");
}

/** The summary's "Kept by mode" line: people and workspace grants only the mode keeps. */
function keptByModeText(s: PlanSummary, plan: Plan): string {
  const parts: string[] = [];
  if (s.keptByMode)
    parts.push(
      `${people(s.keptByMode)} not in the file, kept because the mode is incremental (mode full would ${plan.deletions} them)`,
    );
  const n = s.permissionsKeptByMode;
  if (n)
    parts.push(
      `${grants(n)} the desired state no longer lists, kept ${parts.length > 0 ? "too" : "because the mode is incremental"} (mode full would revoke ${n === 1 ? "it" : "them"})`,
    );
  return parts.join("; ");
}

export function confirmQuestion(plan: Plan, label: string): string {
  return `Apply ${changesPhrase(summarizePlan(plan))} to ${label}?`;
}

function fieldsText(s: PlanSummary): string {
  const of = (fields: Record<string, number>, unit: (n: number) => string, word: (f: string) => string) =>
    Object.entries(fields)
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
      .map(([f, n]) => `${word(f)} (${unit(n)})`);
  const groupWord = (f: string): string => (f === "name" ? "group name" : fieldWord(f));
  return [...of(s.people.fields, people, fieldWord), ...of(s.groups.fields, groups, groupWord)].join(", ");
}

type Moves = { add: number; remove: number };

/** Groups with the most moves first, then by id; the first MEMBERSHIP_LIMIT and the rest. */
function busiestGroups<M extends Moves>(byGroup: Record<string, M>): { shown: [string, M][]; rest: M[] } {
  const entries = Object.entries(byGroup).sort(
    ([a, x], [b, y]) => y.add + y.remove - (x.add + x.remove) || (a < b ? -1 : 1),
  );
  return {
    shown: entries.slice(0, MEMBERSHIP_LIMIT),
    rest: entries.slice(MEMBERSHIP_LIMIT).map(([, m]) => m),
  };
}

/** "+312 −40" */
const movesText = (m: Moves): string =>
  [m.add > 0 ? `+${num(m.add)}` : "", m.remove > 0 ? `−${num(m.remove)}` : ""].filter(Boolean).join(" ");

function membershipText(s: PlanSummary): string {
  const { shown, rest } = busiestGroups(s.membership);
  const text = shown.map(([g, m]) => `${g} ${movesText(m)}`).join(", ");
  return rest.length > 0 ? `${text}, … and ${groups(rest.length)} more` : text;
}

const requests = (n: number): string => `${num(n)} request${n === 1 ? "" : "s"}`;

/** "analytics: +312 −40 members, 2 requests; sales: +4 members, 1 request": the bulk moves per group. */
function bulkText(s: PlanSummary): string {
  const { shown, rest } = busiestGroups(s.bulk.groups);
  const text = shown.map(([g, m]) => `${g}: ${movesText(m)} members, ${requests(m.requests)}`).join("; ");
  if (rest.length === 0) return text;
  const restRequests = rest.reduce((n, m) => n + m.requests, 0);
  return `${text}; … and ${groups(rest.length)} more (${requests(restRequests)})`;
}

/** "64 requests, about 1.3 s …", saying how many of them move people in bulk. */
function estimateText(s: PlanSummary): string {
  const { requests: n, seconds } = s.estimate;
  const { requests: k, people: moved } = s.bulk;
  const bulk = k > 0 ? ` (${requests(k)} ${k === 1 ? "moves" : "move"} ${people(moved)} in bulk)` : "";
  return `${requests(n)}${bulk}, about ${duration(seconds)} at the configured limits`;
}

function guardText(s: PlanSummary): string {
  const g = s.deleteGuard;
  const wanted = `${people(g.wanted)} to revoke or remove, ${num(g.limit)} allowed (${people(g.managedUsers)} managed)`;
  if (!g.heldBack) return `${wanted}: within the limit`;
  return `${wanted}: every deletion is held back. Allow them for one run with --allow-deletes ${g.wanted}, or raise policy.maxDeletes`;
}

function stepsText(plan: Plan): string {
  const c = plan.counts;
  const held = c.heldBack > 0 ? `, ${num(c.heldBack)} held back` : "";
  const planned = [
    c.create > 0 ? `${num(c.create)} to create` : "",
    c.update > 0 ? `${num(c.update)} to update` : "",
    c.delete > 0 ? `${num(c.delete)} to delete` : "",
  ].filter(Boolean);
  return `${planned.join(", ") || "nothing to carry out"}${held}`;
}

/** Seconds as a person reads a wait: "1.3 s", "14 min", "2.5 h". */
export function duration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 2 * 3600) return `${Math.ceil(seconds / 60)} min`;
  return `${Math.ceil(seconds / 360) / 10} h`;
}

/** The summary as label/text pairs; empty for a plan without changes. */
export function summaryItems(plan: Plan): SummaryItem[] {
  const s = summarizePlan(plan);
  if (plan.steps.length === 0 && plan.notices.length === 0 && !s.pending && !s.keptByMode) return [];
  const items: SummaryItem[] = [];
  const add = (label: string, text: string): void => {
    if (text !== "") items.push({ label, text });
  };
  add("People", peopleText(s, "toDo"));
  if (s.people.heldBack > 0) add("Held back", `${people(s.people.heldBack)} (see the deletion guard)`);
  add("Groups", groupsText(s, "toDo"));
  add("Changed", fieldsText(s));
  add("Membership", membershipText(s));
  add("Bulk moves", bulkText(s));
  add("Permissions", permissionsText(s.permissions));
  if (s.deleteGuard.wanted > 0) add("Deletion guard", guardText(s));
  add("Permission guard", permissionGuardText(s));
  add("Data filters", filterSummary(plan) ?? "");
  add(
    "Filter guard",
    plan.dataFilterGuard && plan.dataFilterGuard.wanted > 0 ? (filterGuardLine(plan) ?? "") : "",
  );
  if (s.pending)
    add(
      "Pending",
      `${people(s.pending.people)} not in the source, waiting for policy.revokeAfter (${plan.grace?.revokeAfter}); the first is ${goneVerb(plan)} at ${whenText(s.pending.firstUntil)}`,
    );
  add("Kept by mode", keptByModeText(s, plan));
  add(
    "Notices",
    noticeSections(plan)
      // Counted on the Kept by mode line already.
      .filter((n) => n.title !== KEPT_BY_MODE_TITLE)
      .map((n) => `${n.title}: ${num(n.notices.length)}`)
      .join("; "),
  );
  if (plan.steps.length === 0) return items;
  add("Estimate", estimateText(s));
  add("Steps", stepsText(plan));
  return items;
}
