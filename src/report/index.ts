/**
 * Renderers for people and machines: a plan as text (terminal), JSON (the saved plan format) or
 * Markdown (audits, CI summaries); an apply's result as text; the run's metrics.
 */
import { serializePlan } from "../plan/serialize.js";
import type { Plan } from "../plan/types.js";
import { renderMarkdown } from "./markdown.js";
import { renderText, type Detail } from "./text.js";
import { renderPlanHtml } from "./plan-html.js";
import type { PersonView } from "./people-view.js";
export { peopleView, type PersonView } from "./people-view.js";

export { renderPlanSummaryLine, confirmQuestion } from "./summary-lines.js";
export { renderApplySummary, type SummaryOptions } from "./apply-summary.js";

export type PlanFormat = "text" | "json" | "markdown" | "html";
export { COMPACT_OVER_STEPS, DETAIL_LEVELS, type Detail } from "./text.js";
export { previousLastSuccess, renderMetrics } from "./metrics.js";

export interface RenderOptions {
  format: PlanFormat;
  /** Says "DRY RUN — nothing will be changed" at the top (text and Markdown). */
  dryRun: boolean;
  /** ANSI colours in text output; the CLI decides (TTY and no NO_COLOR). */
  color: boolean;
  /** Text only: how much of the plan after the summary; default by size (see text.ts). */
  detail?: Detail | undefined;
  /** Where the plan was made (base URL, organization id when known): every format but JSON says it. */
  organization?: string | undefined;
  /** Markdown and HTML: the plan person by person (people-view.ts). */
  people?: readonly PersonView[] | undefined;
}

export function renderPlan(plan: Plan, options: RenderOptions): string {
  switch (options.format) {
    case "json":
      return serializePlan(plan);
    case "markdown":
      return renderMarkdown(plan, options);
    case "text":
      return renderText(plan, options);
    case "html":
      return renderPlanHtml(plan, {
        organization: options.organization ?? "(not named)",
        people: options.people ?? [],
        dryRun: options.dryRun,
      });
  }
}
