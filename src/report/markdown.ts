/** The plan as Markdown for audits and CI job summaries (GitHub-flavoured tables, `<details>` for long lists). */
import type { Plan } from "../plan/types.js";
import {
  estimateLine,
  groupByObject,
  guardLine,
  headerLines,
  LIST_LIMIT,
  noticeSections,
  renderPlanSummaryLine,
} from "./describe.js";

/** Table cells: no pipes or newlines may break the row. */
const cell = (s: string): string => s.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
const code = (s: string): string => `\`${s.replace(/`/g, "'")}\``;

function collapsible(summary: string, body: string[], open: boolean): string[] {
  if (open) return body;
  return [`<details><summary>${summary}</summary>`, "", ...body, "", "</details>"];
}

export function renderMarkdown(plan: Plan, options: { dryRun: boolean }): string {
  const [first, ...rest] = headerLines(plan, options.dryRun);
  const out: string[] = ["## usersync plan", ""];
  if (options.dryRun) out.push(`> **${first ?? ""}**`, "");
  out.push(...(options.dryRun ? rest : [first ?? "", ...rest]), "");
  const c = plan.counts;
  out.push(
    "| create | update | delete | held back |",
    "|---:|---:|---:|---:|",
    `| ${c.create} | ${c.update} | ${c.delete} | ${c.heldBack} |`,
    "",
  );
  out.push(`**${renderPlanSummaryLine(plan)}** ${estimateLine(plan)}`, "");
  if (plan.deleteGuard.wanted > 0) out.push(guardLine(plan), "");

  const rows: string[] = [];
  for (const obj of groupByObject(plan))
    for (const v of obj.steps) {
      const changes = v.fields.map((f) =>
        f.before === undefined ? `${f.field}: ${f.after}` : `${f.field}: ${f.before} → ${f.after}`,
      );
      rows.push(
        `| ${v.symbol} | ${cell(obj.title)} | ${code(v.step.kind)} | ${cell(changes.join("; "))} | ${cell(v.note ?? v.step.reason)} |`,
      );
    }
  if (rows.length > 0) {
    out.push("### Changes", "");
    const table = ["| | object | step | changes | reason |", "|---|---|---|---|---|", ...rows];
    out.push(...collapsible(`${rows.length} steps`, table, rows.length <= LIST_LIMIT), "");
  }

  for (const section of noticeSections(plan)) {
    out.push(`### ${section.title} (${section.notices.length})`, "");
    const table = [
      "| object | note |",
      "|---|---|",
      ...section.notices.map((n) => `| ${cell(n.target)} | ${cell(n.message)} |`),
    ];
    out.push(
      ...collapsible(`${section.notices.length} objects`, table, section.notices.length <= LIST_LIMIT),
      "",
    );
  }
  return `${out.join("\n").trimEnd()}\n`;
}
