/**
 * `plan --format html` (issue 49): the dry run a manager reads, as one self-contained page in the
 * access review's style (review/html-style.ts; its head, escaping and cards are html-page.ts's): it loads nothing and
 * runs no script (its Content-Security-Policy allows only its own inline style). It names the
 * organization, then the people (who is new, leaves, changes; workspaces gained and lost; start
 * and end dates), the dates, the changes step by step and what was left alone.
 */
import type { Plan } from "../plan/types.js";
import { card, cspHash, escapeHtml, pageHead } from "./html-page.js";
import { REVIEW_CSS } from "./review/html-style.js";
import type { PersonView } from "./people-view.js";
import {
  datedSections,
  headerLines,
  noticeSections,
  pendingSections,
  type NoticeSection,
} from "./plan-frame.js";
import { num, renderPlanSummaryLine } from "./summary-lines.js";
import { revertSections } from "./held-back.js";

const POLICY = `default-src 'none'; style-src ${cspHash(REVIEW_CSS)}; base-uri 'none'; form-action 'none'`;

export interface PlanPageOptions {
  /** Where the plan was made: the base URL, and the organization's id when known. */
  organization: string;
  /** The people view (people-view.ts); empty when the caller has none. */
  people: readonly PersonView[];
}

const e = escapeHtml;
const list = (l: readonly string[]): string => e(l.join(", "));

function cards(plan: Plan, people: readonly PersonView[]): string {
  const count = (c: PersonView["change"]): number => people.filter((p) => p.change === c).length;
  return [
    card(count("new"), "new people"),
    card(count("leaves"), "leavers", true),
    card(count("changes"), "people changed"),
    card(count("starts later"), "starting later"),
    card(plan.counts.create, "steps creating"),
    card(plan.counts.update, "steps updating"),
    card(plan.counts.delete, "steps deleting", true),
    card(plan.counts.heldBack, "held back", true),
  ].join("");
}

function table(caption: string, head: string[], rows: string[][]): string {
  const body =
    rows.length > 0
      ? rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("\n")
      : `<tr class="empty"><td colspan="${head.length}">none</td></tr>`;
  return `<table class="data"><caption>${e(caption)}</caption><thead><tr>${head.map((h) => `<th scope="col">${e(h)}</th>`).join("")}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

function peopleSection(people: readonly PersonView[]): string {
  const rows = people.map((p) => [
    e(p.name),
    e(p.email),
    list(p.department),
    e(p.change),
    list(p.workspacesGained),
    list(p.workspacesLost),
    list(p.groupsGained),
    list(p.groupsLost),
    e(p.startDate ?? ""),
    e(p.endDate ?? ""),
  ]);
  const head = ["Name", "Email", "Department", "Change", "Workspaces gained", "Workspaces lost"];
  return `<section id="people"><h2>People (${num(people.length)})</h2>
<p class="lead">Each person this plan changes or dates: a workspace reached through a group counts too.</p>
${table("People", [...head, "Groups gained", "Groups lost", "Starts", "Ends"], rows)}
</section>`;
}

function stepsSection(plan: Plan): string {
  const rows = plan.steps.map((s) => [
    e(s.kind),
    e(s.target),
    e(s.reason),
    e(s.status === "heldBack" ? "held back" : "planned"),
  ]);
  return `<section id="steps"><h2>Changes, step by step (${num(plan.steps.length)})</h2>
${table("Steps in the order they run", ["Step", "Object", "Why", "Status"], rows)}
</section>`;
}

function noteSection(s: NoticeSection, i: number): string {
  const rows = s.notices.map((n) => [e(n.target), e(n.message)]);
  return `<section id="notes-${i}"><h2>${e(s.title)} (${num(s.notices.length)})</h2>
${table(s.title, ["Object", "Note"], rows)}
</section>`;
}

export function renderPlanHtml(plan: Plan, options: PlanPageOptions & { dryRun: boolean }): string {
  const title = `usersync plan: ${options.organization}`;
  const [first, ...rest] = headerLines(plan, options.dryRun);
  const notes = [
    ...revertSections(plan),
    ...datedSections(plan),
    ...pendingSections(plan),
    ...noticeSections(plan),
  ];
  return `${pageHead({ policy: POLICY, title, style: REVIEW_CSS })}<body>
<header class="top">
<h1>${e(title)}</h1>
${[first ?? "", ...rest].map((l) => `<p>${e(l)}</p>`).join("\n")}
<p>Organization: <code>${e(options.organization)}</code>${plan.dates ? ` · planned for ${e(plan.dates.today)}` : ""}</p>
</header>
<main>
<section id="summary"><h2>Summary</h2>
<p class="lead">${e(renderPlanSummaryLine(plan))}</p>
<div class="cards">${cards(plan, options.people)}</div>
</section>
${peopleSection(options.people)}
${notes.map(noteSection).join("\n")}
${stepsSection(plan)}
</main>
</body>
</html>
`;
}
