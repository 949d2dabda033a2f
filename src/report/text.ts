/**
 * The plan for a terminal, like `terraform plan`: the summary first, then the changes by object
 * (`+` create, `~` update, `-` delete, `!` held back or refused) in full, as a bounded sample per
 * kind (compact), or not at all (summary).
 */
import type { Plan } from "../plan/types.js";
import {
  assigneeInWords,
  groupByObject,
  inWords,
  LIST_LIMIT,
  objectInWords,
  type Mark,
  type ObjectView,
  type StepView,
} from "./describe.js";
import {
  headerLines,
  datedSections,
  noticeSections,
  pendingSections,
  type NoticeSection,
} from "./plan-frame.js";
import { wideningSections } from "./filter-lines.js";
import { groups, num, people, renderPlanSummaryLine, summaryItems } from "./summary-lines.js";
import { guardSection, revertSections, withoutHeldBack } from "./held-back.js";

const workspaces = (n: number): string => `${num(n)} workspace${n === 1 ? "" : "s"}`;
const UNITS: Record<ObjectView["kind"], (n: number) => string> = {
  person: people,
  group: groups,
  members: groups,
  permissions: workspaces,
};

export const DETAIL_LEVELS = ["full", "compact", "summary"] as const;
export type Detail = (typeof DETAIL_LEVELS)[number];

/** Plans with more steps than this are shown compact unless --detail says otherwise. */
export const COMPACT_OVER_STEPS = 200;
/** Objects shown per kind (people to add, groups to change, …) and notices per section in compact. */
export const COMPACT_SAMPLE = 5;

export const defaultDetail = (plan: Plan): Detail =>
  plan.steps.length > COMPACT_OVER_STEPS ? "compact" : "full";

const CODES: Record<Mark | "bold" | "dim", string> = {
  "+": "32",
  "~": "33",
  "-": "31",
  "!": "35",
  bold: "1",
  dim: "2",
};

type Paint = (style: keyof typeof CODES, s: string) => string;

function objectLines(obj: ObjectView, paint: Paint): string[] {
  const stepLines = (v: StepView): string[] => {
    const label = v.symbol === "!" ? `! ${v.action}` : v.symbol;
    const why = inWords(v.note ?? v.step.reason);
    const lines = [`    ${paint(v.symbol, label)} ${v.noun} ${v.step.target}  ${paint("dim", `(${why})`)}`];
    for (const f of v.fields)
      lines.push(
        f.before === undefined
          ? `        ${f.field}: ${f.after}`
          : `        ${f.field}: ${f.before} → ${f.after}`,
      );
    return lines;
  };
  // A grant then a revoke on one workspace passes through a middle state: the net change says
  // where each such assignee ends.
  const net = obj.net?.length
    ? [
        `    = net change  ${paint("dim", "(from before the first step to after the last)")}`,
        ...obj.net.map((f) => `        ${f.field}: ${f.before} → ${f.after}`),
      ]
    : [];
  return [`  ${paint("bold", `# ${obj.title}`)}`, ...obj.steps.flatMap(stepLines), ...net, ""];
}

/** "12 people", "3 groups", "members of 3 groups" (with " more" after the number when asked). */
function objectsPhrase(o: ObjectView, n: number, more = ""): string {
  const counted = UNITS[o.kind](n).replace(" ", `${more} `);
  return o.kind === "members" ? `members of ${counted}` : counted;
}

/** Compact: the first few objects of each kind, then "… and N more people to add". */
function compactLines(objects: ObjectView[], paint: Paint): string[] {
  const kinds = new Map<string, ObjectView[]>();
  for (const o of objects) {
    const key = `${o.kind}\u0000${o.change}`;
    const list = kinds.get(key) ?? [];
    list.push(o);
    kinds.set(key, list);
  }
  const out: string[] = [];
  // People moved in bulk are listed under their groups' members, not one by one.
  const bulk = kinds.has("members\u0000change");
  for (const list of kinds.values()) {
    const first = list[0];
    if (!first) continue;
    const besides =
      bulk && first.kind === "person" && first.change === "change" ? " besides the bulk moves" : "";
    const heading = `${objectsPhrase(first, list.length)} to ${first.change}${besides}:`;
    out.push(paint("bold", heading[0]!.toUpperCase() + heading.slice(1)), "");
    for (const o of list.slice(0, COMPACT_SAMPLE)) out.push(...objectLines(o, paint));
    const more = list.length - COMPACT_SAMPLE;
    if (more > 0) out.push(`  … and ${objectsPhrase(first, more, " more")} to ${first.change}${besides}`, "");
  }
  return out;
}

function noticeLines(plan: Plan, paint: Paint, limit: number, held: NoticeSection[]): string[] {
  const out: string[] = [];
  for (const section of [
    ...held,
    ...revertSections(plan),
    ...wideningSections(plan, assigneeInWords),
    ...datedSections(plan),
    ...pendingSections(plan),
    ...noticeSections(plan),
  ]) {
    // What the deletion guard holds back is listed whole in full: a person reads it before --allow-deletes.
    const shown = section === held[0] && limit === LIST_LIMIT ? section.notices.length : limit;
    out.push(paint("bold", `${section.title} (${num(section.notices.length)}):`));
    const mark = section.title.startsWith("Protected") || section === held[0] ? paint("!", "!") : " ";
    for (const n of section.notices.slice(0, shown))
      out.push(`  ${mark} ${objectInWords(n.target)}: ${inWords(n.message)}`);
    if (section.notices.length > shown) out.push(`    … and ${num(section.notices.length - shown)} more`);
    out.push("");
  }
  return out;
}

export function renderText(
  plan: Plan,
  options: {
    dryRun: boolean;
    color: boolean;
    detail?: Detail | undefined;
    organization?: string | undefined;
  },
): string {
  const paint: Paint = (style, s) => (options.color ? `\u001b[${CODES[style]}m${s}\u001b[0m` : s);
  const detail = options.detail ?? defaultDetail(plan);
  const out: string[] = [];
  const [first, ...rest] = headerLines(plan, options.dryRun);
  if (options.dryRun && first) out.push(paint("bold", first), ...rest);
  else out.push(...(first ? [first] : []), ...rest);
  out.push("");

  const items = summaryItems(plan);
  if (items.length > 0) {
    const width = Math.max(...items.map((i) => i.label.length));
    out.push(paint("bold", "Summary:"));
    for (const i of items) out.push(`  ${i.label.padEnd(width)}  ${i.text}`);
    out.push("");
  }

  const all = groupByObject(plan);
  const objects = withoutHeldBack(all);
  if (detail === "full") for (const o of objects) out.push(...objectLines(o, paint));
  if (detail === "compact") out.push(...compactLines(objects, paint));
  if (detail !== "summary")
    out.push(
      ...noticeLines(plan, paint, detail === "full" ? LIST_LIMIT : COMPACT_SAMPLE, guardSection(plan, all)),
    );
  if (plan.steps.length > 0 && detail !== "full") {
    const what = detail === "summary" ? "Changes not shown" : "A sample of each kind shown";
    out.push(
      `${what} (--detail ${detail}): every change with --detail full, or save the plan with --out plan.json.`,
      "",
    );
  }
  // Beside the plan line, not at the top (the README's excerpt of the top stays the same
  // everywhere) and not after it: the last line is the plan's verdict, which scripts read.
  if (options.organization !== undefined) out.push(`Organization: ${options.organization}`);
  out.push(paint("bold", renderPlanSummaryLine(plan)));
  return `${out.join("\n")}\n`;
}
