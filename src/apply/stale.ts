/**
 * Saved plans are applied exactly: a step is stale when an object it relies on (its `touches`)
 * has, in a fresh listing, a fingerprint other than the one the plan recorded. Two more checks
 * cover what fingerprints of the touched objects cannot see, a mapping that appeared elsewhere:
 * - a credentials deletion is stale when a mapping the plan did not weigh now points at those
 *   credentials (deleting them would take that user's login away);
 * - a mapping create or update with a literal `authenticationId` is stale when another mapping
 *   now points at it (the plan never makes two mappings share one).
 * Before any of that, a plan made for another organization or API profile is refused outright.
 */
import { ConfigError, SafetyRefusal } from "../errors.js";
import { ABSENT, fingerprintActual, mappingKey } from "../plan/fingerprint.js";
import { parseObjectKey } from "../plan/kinds.js";
import type { PermissionListing } from "../service/permission-listing.js";
import type { Plan, PlanOrganization, Step } from "../plan/types.js";
import type { ActualState, ApiProfile } from "../service/types.js";

export interface ProfileCheck {
  plan: Plan;
  /** The profile the service speaks. */
  profile: ApiProfile;
  /** The saved plan's file, for the message. */
  file?: string;
  /** How the person knows the service, e.g. its URL. Default: "the service". */
  service?: string;
}

/**
 * Step bodies differ by profile (legacy has no names or parents): a plan made for another
 * profile is refused before anything is sent.
 */
export function checkPlanProfile(c: ProfileCheck): void {
  if (c.plan.profile === c.profile) return;
  const plan = c.file === undefined ? "the plan" : `the saved plan ${c.file}`;
  throw new SafetyRefusal({
    message: `${plan} was made for API profile ${c.plan.profile} but ${c.service ?? "the service"} speaks ${c.profile}; make a new plan against this service`,
  });
}

/** How a person reads an organization: its id where known, and its URL. */
const orgWords = (o: PlanOrganization): string =>
  o.id === undefined ? `the organization at ${o.url}` : `organization ${o.id} at ${o.url}`;

/**
 * A saved plan belongs to the organization it was made for (`plan.organization`): applied to any
 * other (another id, or the same id at another URL: a staging and a production organization may
 * share an id), or saved without one, it is refused before anything is listed or sent (exit 4).
 */
export function checkPlanOrganization(c: {
  plan: Plan;
  /** The organization this run is pointed at. */
  here: PlanOrganization;
  file: string;
}): void {
  const made = c.plan.organization;
  if (made === undefined)
    throw new ConfigError({
      message: `the saved plan ${c.file} does not say which organization it was made for (a plan saved by an older usersync, or edited): nothing was sent. Make a new plan against ${orgWords(c.here)}.`,
    });
  if (made.id === c.here.id && made.url === c.here.url) return;
  throw new ConfigError({
    message: `the saved plan ${c.file} was made for ${orgWords(made)}, but this run is pointed at ${orgWords(c.here)}: nothing was sent. Apply it with --base-url (or --target) naming the plan's organization, or make a new plan against this one.`,
  });
}

/**
 * What to list of permissions to check a saved plan's permission steps: the workspaces, users and
 * organization its touched keys name (the config of the day may differ from the plan's).
 */
export function permissionListingForPlan(plan: Plan, pageSize: number): PermissionListing | undefined {
  const workspaces = new Set<string>();
  const users = new Set<string>();
  let organization = false;
  for (const s of plan.steps)
    for (const key of s.touches) {
      const ref = parseObjectKey(key);
      if (ref?.kind === "orgPermission") organization = true;
      if (ref?.kind !== "permission") continue;
      const [workspace, type, ...id] = ref.id.split("/");
      workspaces.add(workspace ?? "");
      if (type === "user") users.add(id.join("/"));
    }
  if (workspaces.size === 0 && !organization) return undefined;
  return { inScope: (id) => workspaces.has(id), users: [...users], organization, pageSize };
}

/** The workspaces whose filters a saved plan's data filter steps touch, to list them again. */
export function filterListingForPlan(plan: Plan): { inScope: (ws: string) => boolean } | undefined {
  const workspaces = new Set<string>();
  for (const s of plan.steps)
    for (const key of s.touches) {
      const ref = parseObjectKey(key);
      if (ref?.kind === "dataFilter") workspaces.add(ref.id.slice(0, ref.id.indexOf("/")));
    }
  return workspaces.size > 0 ? { inScope: (ws) => workspaces.has(ws) } : undefined;
}

export function findStaleSteps(plan: Plan, actual: ActualState): Set<string> {
  const current = fingerprintActual(actual);
  const holders = new Map<string, string[]>();
  for (const m of actual.mappings) {
    if (m.authenticationId === undefined) continue;
    const ids = holders.get(m.authenticationId);
    if (ids) ids.push(m.id);
    else holders.set(m.authenticationId, [m.id]);
  }
  const stale = new Set<string>();
  for (const step of plan.steps) {
    const changed = step.touches.some((key) => {
      // A key the plan did not record cannot be vouched for: treat it as changed.
      const recorded = plan.objects[key];
      return recorded === undefined || (current.get(key) ?? ABSENT) !== recorded;
    });
    if (changed || newHolder(step, holders)) stale.add(step.id);
  }
  return stale;
}

function newHolder(step: Step, holders: ReadonlyMap<string, string[]>): boolean {
  if (step.kind === "deleteCredentials") {
    const ids = holders.get(step.before.authenticationId) ?? [];
    return ids.some((id) => !step.touches.includes(mappingKey(id)));
  }
  if (step.kind === "createMapping" || step.kind === "updateMapping") {
    const auth = step.after.authenticationId;
    if (typeof auth !== "string") return false;
    return (holders.get(auth) ?? []).some((id) => id !== step.target);
  }
  return false;
}
