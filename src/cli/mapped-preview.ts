/**
 * `validate` with `source.columns`: the first rows as the mapping reads them, so a person sees
 * "Work Email" land in email and "People Operations" become a group before any plan.
 */
import type { DesiredUser } from "../desired/index.js";

export const PREVIEW_ROWS = 5;

const FIELDS = ["id", "displayName", "firstname", "lastname", "startDate", "endDate"] as const;

/** One line per user of the first PREVIEW_ROWS, fields as read (passwords never shown). */
export function mappedPreview(users: readonly DesiredUser[]): string {
  if (users.length === 0) return "";
  const lines = users.slice(0, PREVIEW_ROWS).map((u) => {
    const parts = [`email=${u.email}`];
    for (const f of FIELDS) {
      const v = u[f];
      if (v !== undefined && !(f === "id" && u.idDerived)) parts.push(`${f}=${v}`);
    }
    if (u.groups !== undefined) parts.push(`groups=[${u.groups.join(", ")}]`);
    if (u.state === "absent") parts.push("state=absent");
    return `  line ${u.source.line}: ${parts.join("  ")}`;
  });
  const more = users.length > PREVIEW_ROWS ? `  … and ${users.length - PREVIEW_ROWS} more\n` : "";
  return `The first rows as source.columns maps them:\n${lines.join("\n")}\n${more}`;
}
