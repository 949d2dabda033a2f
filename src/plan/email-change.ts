/**
 * One person, one account (issue 49): a new person of the file (no login for their e-mail, no
 * mapping with their id) who has the name of a built-in login the file no longer lists is most
 * likely that person under a new e-mail (a name change). Planning them would make a second
 * account and leave the old one active, so they are not planned until the file says which: the
 * old account's `id` on the row (an e-mail change, the login kept where the service allows), or
 * the old e-mail marked `state: absent` (two people). The plan lists them (notice `emailChange`)
 * and the run exits 3 (cli/guard-warning.ts). docs/onboarding.md, "One person, one account".
 */
import type { DesiredUser } from "../desired/types.js";
import type { IdpUser } from "../service/types.js";
import { lower, type PlanContext } from "./context.js";
import { mappingKey, notice } from "./steps.js";

/** The name a person is known by: the display name, else "firstname lastname" (users.ts's default, without the e-mail). */
const nameOf = (d: DesiredUser): string =>
  d.displayName?.trim() || [d.firstname?.trim(), d.lastname?.trim()].filter((s) => s).join(" ");

/** Built-in logins by lower-cased display name, built once per plan on first use. */
const byName = new WeakMap<object, Map<string, IdpUser[]>>();

function loginsByName(ctx: PlanContext): Map<string, IdpUser[]> {
  let index = byName.get(ctx.actual);
  if (index === undefined) {
    index = new Map();
    for (const u of ctx.actual.idpUsers) {
      const key = u.displayName.trim().toLowerCase();
      if (key !== "") index.set(key, [...(index.get(key) ?? []), u]);
    }
    byName.set(ctx.actual, index);
  }
  return index;
}

/**
 * True (and said) when the new person `d` looks like an e-mail change of a login the file no
 * longer lists; the caller then plans nothing for them.
 */
export function heldAsEmailChange(ctx: PlanContext, d: DesiredUser): boolean {
  const name = nameOf(d).toLowerCase();
  if (name === "") return false;
  // The first by e-mail: the same plan whatever order the service listed them in.
  const gone = (loginsByName(ctx).get(name) ?? [])
    .filter((u) => !ctx.idx.desiredByEmail.has(lower(u.email)))
    .sort((a, b) => (lower(a.email) < lower(b.email) ? -1 : lower(a.email) > lower(b.email) ? 1 : 0));
  const old = gone[0];
  if (old === undefined) return false;
  // The service signs in the alphabetically first userId of a shared login (R15): the same
  // id whatever order the mappings were listed in.
  const oldId = ctx.actual.mappings
    .filter((m) => m.authenticationId === old.authenticationId)
    .map((m) => m.id)
    .sort()[0];
  const idHint =
    oldId !== undefined
      ? `give the row id ${oldId} (the old account's)`
      : "give the row the old account's id";
  notice(ctx, {
    kind: "emailChange",
    target: mappingKey(d.id),
    message: `${d.source.file}:${d.source.line}: ${d.email} has the name "${old.displayName}" of ${old.email}, which the file no longer lists: a likely e-mail change, not planned as a second account. If it is the same person, ${idHint} to change the e-mail; if they are two people, list ${old.email} (or mark it state: absent)`,
  });
  return true;
}
