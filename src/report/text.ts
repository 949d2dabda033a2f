/** The plan for a terminal, like `terraform plan`: `+` create, `~` update, `-` delete, `!` held back or refused. */
import type { Plan } from "../plan/types.js";
import {
  estimateLine,
  groupByObject,
  guardLine,
  headerLines,
  LIST_LIMIT,
  noticeSections,
  renderPlanSummaryLine,
  type StepView,
  type Mark,
} from "./describe.js";

const CODES: Record<Mark | "bold" | "dim", string> = {
  "+": "32",
  "~": "33",
  "-": "31",
  "!": "35",
  bold: "1",
  dim: "2",
};

export function renderText(plan: Plan, options: { dryRun: boolean; color: boolean }): string {
  const paint = (style: keyof typeof CODES, s: string): string =>
    options.color ? `\u001b[${CODES[style]}m${s}\u001b[0m` : s;
  const out: string[] = [];
  const [first, ...rest] = headerLines(plan, options.dryRun);
  if (options.dryRun && first) out.push(paint("bold", first), ...rest);
  else out.push(...(first ? [first] : []), ...rest);
  out.push("");

  const stepLine = (v: StepView): string[] => {
    const label = v.symbol === "!" ? `! ${v.action}` : v.symbol;
    const lines = [
      `    ${paint(v.symbol, label)} ${v.noun} ${v.step.target}  ${paint("dim", `(${v.note ?? v.step.reason})`)}`,
    ];
    for (const f of v.fields)
      lines.push(
        f.before === undefined
          ? `        ${f.field}: ${f.after}`
          : `        ${f.field}: ${f.before} → ${f.after}`,
      );
    return lines;
  };
  for (const obj of groupByObject(plan)) {
    out.push(`  ${paint("bold", `# ${obj.title}`)}`);
    for (const v of obj.steps) out.push(...stepLine(v));
    out.push("");
  }

  for (const section of noticeSections(plan)) {
    out.push(paint("bold", `${section.title} (${section.notices.length}):`));
    const mark = section.title.startsWith("Protected") ? paint("!", "!") : " ";
    for (const n of section.notices.slice(0, LIST_LIMIT)) out.push(`  ${mark} ${n.target}: ${n.message}`);
    if (section.notices.length > LIST_LIMIT)
      out.push(`    … and ${section.notices.length - LIST_LIMIT} more`);
    out.push("");
  }

  if (plan.deleteGuard.wanted > 0) out.push(guardLine(plan));
  out.push(estimateLine(plan));
  out.push(paint("bold", renderPlanSummaryLine(plan)));
  return `${out.join("\n")}\n`;
}
