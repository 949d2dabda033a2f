/**
 * A saved plan belongs to its organization (issue 49): the pipeline writes into every plan the
 * organization it was made for (the id `GET /api/v1/profile` names, and the URL) and the digest of
 * the state it read; `apply --plan` compares them with the service it is pointed at before it
 * lists anything (apply/stale.ts `checkPlanOrganization`).
 */
import type { Config } from "../config/index.js";
import type { DesiredState } from "../desired/index.js";
import { digestActual, type Plan, type PlanOrganization } from "../plan/index.js";
import type { ActualState } from "../service/index.js";
import { EMBEDDED } from "./target.js";

/**
 * The URL as a plan records it: the configured URL without a trailing slash (a URL's host is
 * already lower-case); `embedded`, with the file its organization is kept in when there is one
 * (`target.embeddedData`: each target's own). Unset only before connect refuses the run.
 */
export function organizationUrl(config: Config): string {
  const base = config.target.baseUrl ?? "";
  if (base === EMBEDDED)
    return config.target.embeddedData ? `${EMBEDDED} ${config.target.embeddedData}` : base;
  if (base === "") return base;
  return new URL(base).href.replace(/\/+$/, "");
}

/** The organization a run is pointed at: its id (when the profile tells it) and URL. */
export function organizationOf(config: Config, organizationId: string | undefined): PlanOrganization {
  return { ...(organizationId !== undefined ? { id: organizationId } : {}), url: organizationUrl(config) };
}

/**
 * Records on the plan the organization it was made for and the digest of the state it read; the
 * source's evidence rides on it too, so every format shows what the plan was made from.
 */
export function bindPlan(
  plan: Plan,
  { desired, actual, config }: { desired: DesiredState; actual: ActualState; config: Config },
): Plan {
  if (desired.evidence !== undefined) plan.source = desired.evidence;
  return bindToOrganization(plan, { actual, config });
}

/** The organization and state digest alone, for a plan made from no desired state (a campaign's remediation). */
export function bindToOrganization(
  plan: Plan,
  { actual, config }: { actual: ActualState; config: Config },
): Plan {
  plan.organization = organizationOf(config, actual.organizationId);
  plan.stateDigest = digestActual(actual);
  return plan;
}
