/**
 * The access review (DESIGN section 12, docs/audits.md): a pure function of the listed
 * organization, the policy and, when one is configured, the desired state and the plan made
 * against it. No I/O, no clock: the caller passes the time and the listing's request count.
 */
import type { OrganizationPermission } from "../permissions.js";
import { makeSafety, workspaceMatcher } from "../plan/safety.js";
import { makeAccessModel } from "../plan/access/effective-access.js";
import { makeDesiredIndex } from "./desired.js";
import { reviewFindings } from "./findings.js";
import type { ReviewInput } from "./input.js";
import { listPeople, makePersonContext } from "./people.js";
import { belowFn, groupRows, orgRows, summarize, workspaceRows } from "./parts.js";
import { stepsByPerson } from "./drift.js";
import { REVIEW_FORMAT_VERSION, type Review, type ReviewEvidence, type ReviewPerson } from "./types.js";

export type { ReviewInput } from "./input.js";

// eslint-disable-next-line max-lines-per-function -- the steps of one review in order: model, people, tables, findings
export function buildReview(input: ReviewInput): Review {
  const { actual, policy } = input;
  const perms = actual.permissions;
  const groupParents = new Map(actual.groups.map((g) => [g.id, g.parents] as const));
  const workspaces = perms?.workspaces ?? [];
  const assignments = perms?.assignments ?? [];
  const model = makeAccessModel({
    workspaces,
    assignments,
    groupParents,
    filters: actual.dataFilters?.filters ?? [],
  });
  const names = new Map(workspaces.map((w) => [w.id, w.name] as const));
  const index = input.desired
    ? makeDesiredIndex({
        desired: input.desired.state,
        actualGroupParents: groupParents,
        below: belowFn(workspaces),
        managesPermissions: workspaceMatcher(policy.permissions.workspaces),
      })
    : undefined;
  const drift = input.desired ? stepsByPerson(input.desired.plan, actual) : undefined;
  const orgGrants = new Map<string, OrganizationPermission[]>();
  for (const a of perms?.organization ?? [])
    orgGrants.set(`${a.assignee.type}/${a.assignee.id}`, a.permissions);

  const ctx = makePersonContext({ input, model, names, index, drift, orgGrants });
  const people = listPeople(
    ctx,
    makeSafety(policy, actual.callerId),
    makeSafety({ ...policy, protect: [] }, undefined),
  );

  const reviewWorkspaces = workspaceRows(workspaces, model, people);
  const groups = groupRows(actual);
  const organizationPermissions = orgRows(ctx, people);
  const removal = { listedAt: input.snapshot.generatedAt, withinSeconds: input.removalWithinSeconds ?? 0 };
  const findings = reviewFindings(people, index !== undefined, actual.callerId, removal);
  flagPeople(people, findings);
  const content = { workspaces: reviewWorkspaces, groups, people, organizationPermissions, findings };
  const evidence: ReviewEvidence = {
    requests: input.requests,
    ...(perms?.via !== undefined ? { permissionsVia: perms.via } : {}),
    desiredCompared: input.desired !== undefined,
    ...(input.desired?.source !== undefined ? { desiredSource: input.desired.source } : {}),
    ...(input.desired ? { mode: policy.mode } : {}),
    notes: input.notes ?? [],
  };
  return {
    formatVersion: REVIEW_FORMAT_VERSION,
    kind: "usersync-access-review",
    // The digest is the snapshot's (to-snapshot.ts), over what the files are rendered from.
    snapshot: { ...input.snapshot, digest: "" },
    summary: summarize(content, actual),
    evidence,
    findings,
    workspaces: reviewWorkspaces,
    groups,
    people,
    organizationPermissions,
  };
}

/** `inLine` never stands beside a finding: the plan changes nothing of theirs, but a reviewer has work. */
function flagPeople(people: ReviewPerson[], findings: readonly { person: string }[]): void {
  const flagged = new Set(findings.map((f) => f.person));
  for (const p of people) if (p.agreement === "inLine" && flagged.has(p.key)) p.agreement = "flagged";
}
