/**
 * One person, one account (issue 49): a new person of the file (no login for their e-mail, no
 * mapping with their id) who has the name of a built-in login the file no longer lists is most
 * likely that person under a new e-mail (a name change). Planning them would make a second
 * account and leave the old one active, so they are not planned until the file says which: the
 * old account's `id` on the row (an e-mail change, the login kept where the service allows), or
 * the old e-mail marked `state: absent` (two people). The plan lists them (notice `emailChange`)
 * and the run exits 3 (cli/guard-warning.ts). docs/onboarding.md, "One person, one account".
 *
 * The name is the weakest signal, so it is asked only when nothing stronger is known. The
 * strongest is the id: a row whose id is a mapping's is that person (their e-mail change is
 * planned, users.ts), and never reaches here. A row with an id of its own (the source's id
 * column, e.g. HR's employee id mapped by `source.columns`, not one derived from the e-mail) keeps
 * it when the e-mail changes, so when the dropped login's account has another id that the source
 * gave too (not the one derived from its e-mail), the ids say two people: the new row is planned
 * as a new person and the dropped login leaves as any leaver. Built-in logins carry no other
 * identifier a row could name (a row's `authenticationId` is for external sign-in only).
 */
import { deriveUserId } from "../desired/ids.js";
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
 * The account a login signs in to: the alphabetically first userId of the mappings of its
 * credentials, as the service signs in the first of a shared login (R15), whatever order the
 * mappings were listed in.
 */
const accountOf = (ctx: PlanContext, login: IdpUser): string | undefined =>
  ctx.actual.mappings
    .filter((m) => m.authenticationId === login.authenticationId)
    .map((m) => m.id)
    .sort()[0];

/** Whether the ids of row and account say two people: both given by the source, and different. */
const idsSayTwoPeople = (d: DesiredUser, login: IdpUser, account: string | undefined): boolean =>
  !d.idDerived && account !== undefined && account !== d.id && account !== deriveUserId(login.email);

/**
 * True (and said) when the new person `d` looks like an e-mail change of a login the file no
 * longer lists; the caller then plans nothing for them.
 */
export function heldAsEmailChange(ctx: PlanContext, d: DesiredUser): boolean {
  const name = nameOf(d).toLowerCase();
  if (name === "") return false;
  // The first by e-mail: the same plan whatever order the service listed them in.
  const old = (loginsByName(ctx).get(name) ?? [])
    .filter((u) => !ctx.idx.desiredByEmail.has(lower(u.email)))
    .map((login) => ({ login, account: accountOf(ctx, login) }))
    .filter(({ login, account }) => !idsSayTwoPeople(d, login, account))
    .sort((a, b) => compare(lower(a.login.email), lower(b.login.email)))[0];
  if (old === undefined) return false;
  const { login, account } = old;
  const idHint =
    account !== undefined
      ? `give the row id ${account} (the old account's)`
      : "give the row the old account's id";
  notice(ctx, {
    kind: "emailChange",
    target: mappingKey(d.id),
    message: `${d.source.file}:${d.source.line}: ${d.email} has the name "${login.displayName}" of ${login.email}, which the file no longer lists: a likely e-mail change, not planned as a second account. If it is the same person, ${idHint} to change the e-mail; if they are two people, list ${login.email} (or mark it state: absent)`,
  });
  return true;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
