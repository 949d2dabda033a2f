/**
 * The findings a reviewer reads first (docs/audits.md, "Findings"). Those that need the desired
 * state (hand-made grants, privileged access outside it, a missing filter) are only made when
 * one was compared; the others always are.
 */
import { sameMeaning } from "../data-filters.js";
import { compareIds as cmp } from "../permissions.js";
import type { Finding, FindingKind, ReviewPerson } from "./types.js";

const SEVERITY: Record<FindingKind, Finding["severity"]> = {
  revokedWithAccess: "high",
  leaverApiTokens: "high",
  privilegedOutsideDesired: "high",
  missingDesiredFilter: "high",
  handMadeDirectGrant: "medium",
  accessNoGroupExplains: "medium",
  sharedAuthenticationId: "medium",
  removalLate: "high",
};
const KIND_ORDER: readonly FindingKind[] = [
  "revokedWithAccess",
  "removalLate",
  "leaverApiTokens",
  "privilegedOutsideDesired",
  "missingDesiredFilter",
  "handMadeDirectGrant",
  "sharedAuthenticationId",
  "accessNoGroupExplains",
];

/** How long a leaver's access has outlived their leaving, when longer than allowed: `2d 3h`. */
function lateBy(
  p: ReviewPerson,
  holds: boolean,
  o: { listedAt: string; withinSeconds: number },
): string | undefined {
  if (!holds || p.goneSince === undefined || o.withinSeconds <= 0) return undefined;
  // eslint-disable-next-line no-restricted-globals -- parses the instants it is given; no clock
  const seconds = (Date.parse(o.listedAt) - Date.parse(p.goneSince)) / 1000;
  if (!(seconds > o.withinSeconds)) return undefined;
  const h = Math.floor(seconds / 3600);
  return h >= 24 ? `${Math.floor(h / 24)}d ${h % 24}h` : `${h}h`;
}

const list = (items: readonly string[], max = 5): string =>
  items.length <= max ? items.join(", ") : `${items.slice(0, max).join(", ")} and ${items.length - max} more`;

// eslint-disable-next-line max-lines-per-function -- each finding is a few lines of its rule; one pass over the people
export function reviewFindings(
  people: readonly ReviewPerson[],
  compared: boolean,
  callerId?: string,
  removal?: { listedAt: string; withinSeconds: number },
): Finding[] {
  const out: Finding[] = [];
  for (const p of people) {
    const add = (kind: FindingKind, detail: string, workspace?: string): void => {
      const row = workspace ?? (kind === "privilegedOutsideDesired" ? "organization" : undefined);
      out.push({
        kind,
        severity: SEVERITY[kind],
        person: p.key,
        ...(p.email !== undefined ? { email: p.email } : {}),
        ...(workspace !== undefined ? { workspace } : {}),
        ...(row !== undefined ? { rowId: `${p.key}|${row}` } : {}),
        detail,
      });
    };
    const who = p.email ?? p.id ?? p.key;
    const reached = p.access.filter((a) => a.reaches);
    const holds = reached.length > 0 || p.organizationPermissions.length > 0;
    if (p.login === "shadowed" && p.shadowedBy !== undefined)
      add(
        "sharedAuthenticationId",
        `${who} shares authenticationId ${p.authenticationId ?? ""} with ${p.shadowedBy}; the service signs in only the alphabetically first userId (${p.shadowedBy}), so ${p.id ?? who} can never sign in${holds ? " and what it holds is attributed to nobody who uses it" : ""}: give it its own authenticationId or remove the mapping`,
      );
    const late = removal !== undefined ? lateBy(p, holds, removal) : undefined;
    if (late !== undefined)
      add(
        "removalLate",
        `${who} left the source at ${p.goneSince} and still holds access ${late} later, over review.removalWithin (${removal!.withinSeconds / 3600} h): remove the grants and memberships (usersync apply with deletions: revoke)`,
      );
    if (holds && (p.login === "revoked" || p.desiredState === "absent")) {
      const why =
        p.login === "revoked"
          ? "cannot sign in (no built-in login: revoked, or never linked)"
          : "is marked absent in the desired state";
      const what = [
        ...(p.organizationPermissions.length > 0
          ? [`organization ${p.organizationPermissions.join("+")}`]
          : []),
        ...(reached.length > 0
          ? [`${reached.length} workspace(s): ${list(reached.map((a) => a.workspace))}`]
          : []),
      ];
      add(
        "revokedWithAccess",
        `${who} ${why} but still holds ${what.join(" and ")}; remove the grants or group memberships (or the mapping)`,
      );
    }
    const tokens = p.apiTokens ?? [];
    if (tokens.length > 0 && (p.login === "revoked" || p.desiredState === "absent"))
      add(
        "leaverApiTokens",
        `${who} ${p.login === "revoked" ? "cannot sign in" : "is marked absent"} but still has ${tokens.length} API token(s) (${list(tokens)}), which act with whatever access they hold; delete them (usersync apply with deletions: revoke does)`,
      );
    for (const a of reached) {
      // Organization MANAGE's rows are its finding's (below), not one per workspace.
      if (a.reasons.some((r) => r.kind === "organization")) continue;
      const groupReason = a.reasons.some((r) => r.holder.type === "userGroup");
      const own = a.reasons.filter((r) => r.holder.type === "user");
      if (!groupReason && !(compared && own.length > 0 && own.every((r) => r.managed === true)))
        add(
          "accessNoGroupExplains",
          `${who} reaches ${a.workspace} (${a.permissions.join("+")}) through their own grant only (${own.map((r) => r.text).join("; ")}), no group explains it`,
          a.workspace,
        );
      if (!compared) continue;
      if (p.desiredState !== undefined)
        for (const r of a.reasons)
          if (r.kind === "direct" && r.managed === false)
            add(
              "handMadeDirectGrant",
              `${who} is managed by usersync but holds a direct grant on ${a.workspace} (${r.permissions.join("+")}) the desired state does not give: made by hand`,
              a.workspace,
            );
      if (a.manage && !(a.desired?.permissions.includes("MANAGE") ?? false))
        add(
          "privilegedOutsideDesired",
          `${who} holds MANAGE on ${a.workspace} (${a.reasons
            .filter((r) => r.permissions.includes("MANAGE"))
            .map((r) => r.text)
            .join("; ")}) and the desired state does not give it`,
          a.workspace,
        );
      for (const maql of a.desired?.filters ?? [])
        if (!a.filters.some((f) => sameMeaning(f.maql, maql)))
          add(
            "missingDesiredFilter",
            `${who} reaches ${a.workspace} without the filter the desired state gives (${maql})${a.filters.length === 0 ? ": no filter narrows what they see" : ""}`,
            a.workspace,
          );
    }
    // The API token's own user holds organization MANAGE to list the organization at all.
    if (
      compared &&
      p.id !== callerId &&
      p.organizationPermissions.includes("MANAGE") &&
      !(p.desiredOrganization?.includes("MANAGE") ?? false)
    )
      add(
        "privilegedOutsideDesired",
        `${who} holds organization MANAGE (${p.organizationReasons
          .filter((r) => r.permissions.includes("MANAGE"))
          .map((r) => r.text)
          .join("; ")}) and the desired state does not give it`,
      );
  }
  const rank = (k: FindingKind): number => KIND_ORDER.indexOf(k);
  return out.sort(
    (a, b) =>
      (a.severity === b.severity ? 0 : a.severity === "high" ? -1 : 1) ||
      rank(a.kind) - rank(b.kind) ||
      cmp(a.person, b.person) ||
      cmp(a.workspace ?? "", b.workspace ?? ""),
  );
}
