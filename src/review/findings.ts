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
};
const KIND_ORDER: readonly FindingKind[] = [
  "revokedWithAccess",
  "leaverApiTokens",
  "privilegedOutsideDesired",
  "missingDesiredFilter",
  "handMadeDirectGrant",
  "accessNoGroupExplains",
];

const list = (items: readonly string[], max = 5): string =>
  items.length <= max ? items.join(", ") : `${items.slice(0, max).join(", ")} and ${items.length - max} more`;

// eslint-disable-next-line max-lines-per-function -- each finding is a few lines of its rule; one pass over the people
export function reviewFindings(people: readonly ReviewPerson[], compared: boolean): Finding[] {
  const out: Finding[] = [];
  for (const p of people) {
    const add = (kind: FindingKind, detail: string, workspace?: string): void => {
      out.push({
        kind,
        severity: SEVERITY[kind],
        person: p.key,
        ...(p.email !== undefined ? { email: p.email } : {}),
        ...(workspace !== undefined ? { workspace } : {}),
        detail,
      });
    };
    const who = p.email ?? p.id ?? p.key;
    const holds = p.access.length > 0 || p.organizationPermissions.length > 0;
    if (holds && (p.login === "revoked" || p.desiredState === "absent")) {
      const why =
        p.login === "revoked"
          ? "can no longer sign in (login revoked)"
          : "is marked absent in the desired state";
      const what = [
        ...(p.organizationPermissions.length > 0
          ? [`organization ${p.organizationPermissions.join("+")}`]
          : []),
        ...(p.access.length > 0
          ? [`${p.access.length} workspace(s): ${list(p.access.map((a) => a.workspace))}`]
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
        `${who} ${p.login === "revoked" ? "can no longer sign in" : "is marked absent"} but still has ${tokens.length} API token(s) (${list(tokens)}), which act with whatever access they hold; delete them (usersync apply with deletions: revoke does)`,
      );
    for (const a of p.access) {
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
    if (
      compared &&
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
