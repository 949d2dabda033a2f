/**
 * The plan as Markdown for audits and CI job summaries (GitHub-flavoured tables, `<details>` for
 * long lists): the summary first, then the changes and notices. A GitHub job summary holds at
 * most 1 MiB, so the details stop before that with a note pointing at the JSON plan.
 */
import type { Plan } from "../plan/types.js";
import { assigneeInWords, groupByObject, inWords, LIST_LIMIT, objectInWords } from "./describe.js";
import { peopleMarkdown, type PersonView } from "./people-view.js";
import { headerLines, datedSections, noticeSections, pendingSections } from "./plan-frame.js";
import { wideningSections } from "./filter-lines.js";
import { num, renderPlanSummaryLine, summaryItems } from "./summary-lines.js";
import { guardSection, revertSections, withoutHeldBack } from "./held-back.js";

/** The whole Markdown plan stays under this many bytes (UTF-8). */
export const MARKDOWN_LIMIT_BYTES = 1024 * 1024;
/** Kept free for the closing lines, the truncation note and whatever else a CI job adds. */
const RESERVE_BYTES = 48 * 1024;

/** Table cells: no pipes or newlines may break the row. */
const cell = (s: string): string => s.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");

/** "40,000 changes, the first 7,000 shown" when the budget cut the list. */
const counted = (total: number, shown: number, noun: string): string =>
  `${num(total)} ${noun}${shown < total ? `, the first ${num(shown)} shown` : ""}`;

function collapsible(summary: string, body: string[], open: boolean): string[] {
  if (open) return body;
  return [`<details><summary>${summary}</summary>`, "", ...body, "", "</details>"];
}

/** Adds rows while the budget lasts; says how many did not fit. */
class Budget {
  left = MARKDOWN_LIMIT_BYTES - RESERVE_BYTES;
  dropped = 0;
  take(lines: string[]): string[] {
    const kept: string[] = [];
    for (const line of lines) {
      const size = Buffer.byteLength(line, "utf8") + 1;
      if (this.dropped > 0 || size > this.left) this.dropped += 1;
      else {
        this.left -= size;
        kept.push(line);
      }
    }
    return kept;
  }
}

function changeRows(plan: Plan): string[] {
  const rows: string[] = [];
  for (const obj of withoutHeldBack(groupByObject(plan))) {
    for (const v of obj.steps) {
      const changes = v.fields.map((f) =>
        f.before === undefined ? `${f.field}: ${f.after}` : `${f.field}: ${f.before} → ${f.after}`,
      );
      rows.push(
        `| ${v.symbol} | ${cell(obj.title)} | ${v.noun} | ${cell(changes.join("; "))} | ${cell(inWords(v.note ?? v.step.reason))} |`,
      );
    }
    if (obj.net?.length) {
      const net = obj.net.map((f) => `${f.field}: ${f.before} → ${f.after}`);
      rows.push(
        `| = | ${cell(obj.title)} | net change | ${cell(net.join("; "))} | from before the first step to after the last |`,
      );
    }
  }
  return rows;
}

export function renderMarkdown(
  plan: Plan,
  options: { dryRun: boolean; organization?: string | undefined; people?: readonly PersonView[] | undefined },
): string {
  const [first, ...rest] = headerLines(plan, options.dryRun, options.organization);
  const out: string[] = ["## usersync plan", ""];
  if (options.dryRun) out.push(`> **${first ?? ""}**`, "");
  // A paragraph a line: Markdown would join adjacent lines into one.
  for (const line of options.dryRun ? rest : [first ?? "", ...rest]) out.push(line, "");
  out.push(`**${renderPlanSummaryLine(plan)}**`, "");
  const items = summaryItems(plan);
  if (items.length > 0) out.push(...items.map((i) => `- **${i.label}:** ${cell(i.text)}`), "");
  // The manager's view first: person by person (people-view.ts).
  out.push(...peopleMarkdown(options.people ?? []));
  const budget = new Budget();
  budget.take(out);

  const rows = changeRows(plan);
  if (rows.length > 0) {
    const kept = budget.take(rows);
    out.push("### Changes", "");
    const table = ["| | object | part | changes | reason |", "|---|---|---|---|---|", ...kept];
    out.push(
      ...collapsible(counted(rows.length, kept.length, "changes"), table, rows.length <= LIST_LIMIT),
      "",
    );
  }
  const held = guardSection(plan, groupByObject(plan));
  for (const section of [
    ...held,
    ...revertSections(plan),
    ...wideningSections(plan, assigneeInWords),
    ...datedSections(plan),
    ...pendingSections(plan),
    ...noticeSections(plan),
  ]) {
    const kept = budget.take(
      section.notices.map((n) => `| ${cell(objectInWords(n.target))} | ${cell(inWords(n.message))} |`),
    );
    if (kept.length === 0) continue;
    out.push(`### ${section.title} (${num(section.notices.length)})`, "");
    const table = ["| object | note |", "|---|---|", ...kept];
    out.push(
      ...collapsible(
        counted(section.notices.length, kept.length, "objects"),
        table,
        section.notices.length <= LIST_LIMIT,
      ),
      "",
    );
  }
  if (budget.dropped > 0)
    out.push(
      `> **${num(budget.dropped)} more rows not shown**: this Markdown plan is kept under 1 MiB (the limit of a CI job summary). The whole plan: \`usersync plan --format json --out plan.json\`.`,
      "",
    );
  return `${out.join("\n").trimEnd()}\n`;
}
