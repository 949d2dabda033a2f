/**
 * What each revoke or change decision takes (docs/audits.md, "Remediation"): for every reason the
 * row holds its access, the one lever that ends it for this person alone, and who pulls it.
 * - A direct grant (on the workspace, or a hierarchy grant on one above): the grant itself.
 * - A group's grant: the person's membership of the group they are directly in (the chain's
 *   first): the group's grant serves its other members too, and stays.
 * The lever is the source's when the desired state gives it (the person listed in that group, the
 * grant listed on the person): a change of the service alone would be undone by the next sync, so
 * it becomes a change of the source. Otherwise (made by hand, or kept by a mode that does not
 * manage it) usersync changes it in the service, through a plan. A `change` narrows a direct grant;
 * access a group gives cannot be narrowed for one member, so such a change is pending, with why.
 * Pure.
 */
import type { DesiredState, DesiredUser } from "../../desired/types.js";
import type { AssignedRow, CampaignReason, Decision } from "./types.js";

export type Lever =
  | { kind: "leaveGroup"; group: string }
  | { kind: "narrowGrant"; workspace: string; keep: string[]; hierarchy: boolean }
  | { kind: "narrowOrganization"; keep: string[] };

export type RemedyAction =
  | ({ via: "plan" | "source"; text: string; directoryGroup?: string } & Lever)
  | { via: "pending"; text: string };

export interface RowRemedy {
  rowId: string;
  person: string;
  userId?: string;
  email?: string;
  workspace?: string;
  decision: Decision;
  actions: RemedyAction[];
}

export interface SourceView {
  /** `file`: a desired-state file usersync can patch; `directory`: an owner changes it; `none`: no source compared. */
  kind: "file" | "directory" | "none";
  desired?: DesiredState | undefined;
}

function desiredUserOf(view: SourceView, row: AssignedRow): DesiredUser | undefined {
  const email = row.email?.toLowerCase();
  return view.desired?.users.find(
    (u) =>
      u.state !== "absent" &&
      (u.id === row.userId || (email !== undefined && u.email.toLowerCase() === email)),
  );
}

const keepOf = (decision: Decision): string[] =>
  decision.decision === "change" ? (decision.permissions ?? []) : [];

function leverOf(reason: CampaignReason, row: AssignedRow, decision: Decision): Lever | string {
  if (reason.kind === "direct" || (reason.kind === "hierarchy" && reason.holder.startsWith("user/"))) {
    if (row.level === "organization") return { kind: "narrowOrganization", keep: keepOf(decision) };
    return {
      kind: "narrowGrant",
      workspace: reason.grantedOn,
      keep: keepOf(decision),
      hierarchy: reason.kind === "hierarchy",
    };
  }
  if (reason.kind === "organization")
    return `${reason.text}: reached through organization MANAGE, which reaches every workspace; decide on the person's organization row`;
  const group = reason.groupChain[0];
  if (group === undefined) return `${reason.text}: no group chain to leave`;
  if (decision.decision === "change")
    return `${reason.text} gives every member of ${group} the same; narrowing it for one person needs a change of the group's access or of the person's groups`;
  return { kind: "leaveGroup", group };
}

function byWhom(lever: Lever, user: DesiredUser | undefined, view: SourceView): "plan" | "source" {
  if (view.kind === "none" || user === undefined) return "plan";
  if (lever.kind === "leaveGroup") return user.groups?.includes(lever.group) === true ? "source" : "plan";
  if (lever.kind === "narrowOrganization") return (user.organization ?? []).length > 0 ? "source" : "plan";
  return user.workspaces?.some((w) => w.workspace === lever.workspace) === true ? "source" : "plan";
}

/**
 * The directory group that feeds a user group (its group rule's mapping: the group's source is
 * `Entra ID group Sales (<object id>)`, an LDAP DN, ...), so the directory's owner can act on it.
 */
function directoryGroupOf(lever: Lever, view: SourceView): string | undefined {
  if (view.kind !== "directory" || lever.kind !== "leaveGroup") return undefined;
  return view.desired?.groups.find((g) => g.id === lever.group)?.source.file;
}

function describeLever(lever: Lever, who: string, directoryGroup?: string): string {
  if (lever.kind === "leaveGroup")
    return `${who} leaves group ${lever.group}${directoryGroup !== undefined ? ` (in the directory: ${directoryGroup})` : ""}`;
  const keep = lever.keep.length > 0 ? `keeps ${lever.keep.join(" ")}` : "loses it";
  if (lever.kind === "narrowOrganization") return `${who}'s organization grant: ${keep}`;
  return `${who}'s ${lever.hierarchy ? "hierarchy " : ""}grant on ${lever.workspace}: ${keep}`;
}

/** The remedy of every revoke and change decision, in the decisions' order. */
export function remedies(
  rows: readonly AssignedRow[],
  decisions: readonly Decision[],
  view: SourceView,
): RowRemedy[] {
  const byId = new Map(rows.map((r) => [r.rowId, r] as const));
  const out: RowRemedy[] = [];
  for (const decision of decisions) {
    if (decision.decision === "keep") continue;
    const row = byId.get(decision.rowId);
    if (row === undefined) continue;
    const who = row.email ?? row.userId ?? row.person;
    const user = desiredUserOf(view, row);
    const seen = new Set<string>();
    const actions: RemedyAction[] = [];
    for (const reason of row.reasons) {
      const lever = leverOf(reason, row, decision);
      if (typeof lever === "string") {
        actions.push({ via: "pending", text: lever });
        continue;
      }
      const key = JSON.stringify(lever);
      if (seen.has(key)) continue;
      seen.add(key);
      const via = byWhom(lever, user, view);
      const directoryGroup = via === "source" ? directoryGroupOf(lever, view) : undefined;
      actions.push({
        via,
        text: describeLever(lever, who, directoryGroup),
        ...lever,
        ...(directoryGroup !== undefined ? { directoryGroup } : {}),
      });
    }
    if (row.userId === undefined)
      actions.splice(0, actions.length, {
        via: "pending",
        text: `${who} has no organization user: nothing to revoke in the service`,
      });
    out.push({
      rowId: row.rowId,
      person: row.person,
      ...(row.userId !== undefined ? { userId: row.userId } : {}),
      ...(row.email !== undefined ? { email: row.email } : {}),
      ...(row.workspace !== undefined ? { workspace: row.workspace } : {}),
      decision,
      actions,
    });
  }
  return out;
}
