/**
 * What stands around a plan's steps, format-neutral: the header lines (mode, the source's
 * evidence, just-in-time provisioning) and the sections of notices and of people pending a grace
 * period. The text and Markdown renderers lay them out.
 */
import type { Notice, Plan } from "../plan/types.js";
import { evidenceLine } from "../desired/sources/contract.js";
import type { ReadHow } from "../desired/types.js";

export interface NoticeSection {
  title: string;
  notices: Array<Pick<Notice, "target" | "message">>;
}

export const KEPT_BY_MODE_TITLE = "Kept by mode (policy.mode: incremental)";

/** Protected and refused first (they are shown with `!`), then what was left alone. */
export function noticeSections(plan: Plan): NoticeSection[] {
  const by = (kinds: Notice["kind"][]) => plan.notices.filter((n) => kinds.includes(n.kind));
  return [
    { title: "Protected or refused", notices: by(["protected", "refused"]) },
    { title: "Likely e-mail changes (not planned as a second account)", notices: by(["emailChange"]) },
    { title: "Conflicts", notices: by(["conflict"]) },
    { title: "Adopted (existing mappings kept under their ids)", notices: by(["adopted"]) },
    { title: "Kept (policy.deletions: none)", notices: by(["kept"]) },
    { title: KEPT_BY_MODE_TITLE, notices: by(["keptByMode"]) },
    { title: "Unmanaged (outside policy.scope)", notices: by(["unmanaged"]) },
    { title: "Unlinked credentials", notices: by(["unlinked"]) },
  ].filter((s) => s.notices.length > 0);
}

/** An instant as a person reads it: "2024-05-04 10:00 UTC". */
export const whenText = (iso: string): string => `${iso.slice(0, 16).replace("T", " ")} UTC`;

/** What a deletion of a person missing from the source does under the plan's policy. */
export const goneVerb = (plan: Plan): string => (plan.deletions === "remove" ? "removed" : "revoked");

/** People missing from the source who wait for policy.revokeAfter, listed like the notices. */
export function pendingSections(plan: Plan): NoticeSection[] {
  const g = plan.grace;
  if (!g || g.pending.length === 0) return [];
  const verb = goneVerb(plan);
  const notices = g.pending.map((p) => ({
    target: p.target,
    message:
      p.reason === "created"
        ? `created by an incremental run at ${whenText(p.since)} and not in the source yet; ${verb} at ${whenText(p.until)} unless it appears there`
        : `not in the source since ${whenText(p.since)}; ${verb} at ${whenText(p.until)} unless they come back`,
  }));
  return [{ title: `Pending (policy.revokeAfter ${g.revokeAfter})`, notices }];
}

/** Start and end dates against the plan's day (plan/dates.ts): who starts and ends when. */
export function datedSections(plan: Plan): NoticeSection[] {
  const d = plan.dates;
  if (!d) return [];
  const as = (list: typeof d.ended, say: (date: string) => string) =>
    list.map((p) => ({ target: p.email, message: say(p.date) }));
  const verb = goneVerb(plan);
  return [
    {
      title: `Starting later (no login before the start date; today is ${d.today})`,
      notices: as(d.notYetStarted, (date) => `starts ${date}: a run on or after that day creates the login`),
    },
    {
      title: "Starting today",
      notices: as(d.startingToday, (date) => `starts ${date}: login and access now`),
    },
    {
      title: "Ended (past the end date: leavers)",
      notices: as(d.ended, (date) => `last day was ${date}: ${verb} as policy.deletions says`),
    },
    {
      title: "Ending later",
      notices: as(d.endingLater, (date) => `last day ${date}: a run after that day ${verb} them`),
    },
  ].filter((s) => s.notices.length > 0);
}

export function headerLines(plan: Plan, dryRun: boolean, organization?: string): string[] {
  return [
    ...(dryRun ? ["DRY RUN — nothing will be changed"] : []),
    ...(organization !== undefined ? [`Organization: ${organization}`] : []),
    `Mode ${plan.mode} · profile ${plan.profile} · membership ${plan.membership} · deletions ${plan.deletions}`,
    // A directory's evidence that the read was whole (a file's path is the whole story).
    ...(plan.source && plan.source.kind !== "file" ? [`Source ${evidenceLine(plan.source)}`] : []),
    ...(plan.source?.read ? [readLine(plan.source.read)] : []),
    ...jitLines(plan),
  ];
}

/** Changes-only runs: whether this plan was made from the directory's changes or a whole read, and why. */
export function readLine(r: ReadHow): string {
  const listing =
    r.listing === "targeted"
      ? `listed ${r.people ?? 0} ${r.people === 1 ? "person" : "people"} on the service, not the whole organization`
      : "listed the whole organization";
  if (r.source === "changes")
    return `Read changes only: ${r.changes ?? 0} change${r.changes === 1 ? "" : "s"} since ${r.since ? whenText(r.since) : "the last run"}; ${listing}`;
  return `Read whole (${r.reason ?? "asked"}${r.detail ? `: ${r.detail}` : ""}); ${listing}`;
}

/** Just-in-time provisioning: said up front, with the groups both sides write (docs/sources.md). */
function jitLines(plan: Plan): string[] {
  if (!plan.jit) return [];
  const shared = plan.jit.sharedGroups;
  return [
    `Just-in-time provisioning is on (${plan.jit.settings.join(", ")}): the service also makes people at their first sign-in; usersync adopts them by login (see docs/sources.md, "Just-in-time provisioning")`,
    ...(shared.length > 0
      ? [
          `Groups the service also sets at every sign-in, shared with the desired state: ${shared.join(", ")}. Let one side own them: drop them from the login's group claim, or from the desired state`,
        ]
      : []),
  ];
}
