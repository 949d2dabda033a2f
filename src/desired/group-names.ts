/**
 * Groups referred to by their name as well as their id (issue 49): HR's "People Operations" is
 * the group `people-ops` when exactly one group has that name. Read time resolves against the
 * groups the desired state declares; plan against those and the organization's. An ambiguous or
 * unknown name is a problem that names the groups it could be.
 */
import type { Problem } from "../errors.js";
import { closest } from "../suggest.js";
import { visible } from "./characters.js";
import { isValidId } from "./ids.js";
import { ProblemList } from "./problems.js";
import { whereOf } from "./records.js";
import type { DesiredUser } from "./types.js";

export interface KnownGroup {
  id: string;
  name?: string | undefined;
}

/** Lower-case letters and digits only: "People Operations" and "people-operations" compare equal. */
const squash = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");

/**
 * Replaces each user's group names by ids where unambiguous; reports the rest once per value.
 * `final` (plan: every group is known): a name nothing matches is an error; else (validate,
 * offline) a value that cannot be an id is left for plan, with a warning.
 */
export function resolveGroupNames(
  users: readonly DesiredUser[],
  known: readonly KnownGroup[],
  options: { final: boolean },
): Problem[] {
  const ids = new Set(known.map((g) => g.id));
  const byName = namesOf(known);
  const problems = new ProblemList();
  const reported = new Set<string>();
  const shared = new Map<string, string[]>();
  const report = (u: DesiredUser, value: string, ...[severity, rule, message]: Said): void => {
    if (reported.has(value)) return;
    reported.add(value);
    problems[severity](whereOf(u, "groups"), rule, message);
  };
  for (const u of users) {
    if (u.groups === undefined || u.groups.every((g) => ids.has(g))) continue;
    const resolved = u.groups.map((g) =>
      resolveOne(g, { ids, byName, known, final: options.final }, (...a) => report(u, g, ...a)),
    );
    if (resolved.every((g, i) => g === u.groups![i])) continue;
    // Rows with the same groups keep sharing one list (compact.ts).
    const list = [...new Set(resolved)].sort();
    const key = list.join("\n");
    u.groups = shared.get(key) ?? list;
    shared.set(key, u.groups);
  }
  return problems.items;
}

type Said = [severity: "error" | "warn", rule: string, message: string];

/** One value: an id as it is, a unique name as its group's id; anything else as it is, said. */
function resolveOne(
  g: string,
  o: { ids: Set<string>; byName: Map<string, string[]>; known: readonly KnownGroup[]; final: boolean },
  say: (...said: Said) => void,
): string {
  if (o.ids.has(g)) return g;
  const named = o.byName.get(g.trim().toLowerCase()) ?? [];
  if (named.length === 1) return named[0]!;
  if (named.length > 1)
    say(
      "error",
      "ambiguous-group-name",
      `"${visible(g)}" is the name of ${named.length} groups (${[...named].sort().join(", ")}): write the id of the one you mean (or map the value in source.columns)`,
    );
  else if (o.final && !isValidId(g))
    say(
      "error",
      "unknown-group",
      `"${visible(g)}" is neither a group id nor the name of a group in the desired state or the organization; ${suggestion(g, o.known)}`,
    );
  else if (!o.final && !isValidId(g))
    say(
      "warn",
      "group-name",
      `"${visible(g)}" is not a group id: plan looks it up as a group's name in the organization (or map it to an id in source.columns)`,
    );
  return g;
}

/** Group ids by lower-cased name. */
function namesOf(known: readonly KnownGroup[]): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const g of known) {
    const name = g.name?.trim().toLowerCase();
    if (!name) continue;
    const list = byName.get(name) ?? [];
    if (!list.includes(g.id)) list.push(g.id);
    byName.set(name, list);
  }
  return byName;
}

/** The groups a mistyped or reworded name could be: did you mean `people-ops` for "People Operations"? */
function suggestion(value: string, known: readonly KnownGroup[]): string {
  const v = squash(value);
  const similar = known.filter((g) =>
    [g.id, g.name ?? ""].some((s) => {
      const t = squash(s);
      if (t.length < 3) return false;
      let common = 0;
      while (common < Math.min(v.length, t.length) && v[common] === t[common]) common++;
      return v.includes(t) || t.includes(v) || (common >= 4 && common >= 0.6 * Math.min(v.length, t.length));
    }),
  );
  const near = closest(
    value,
    known.flatMap((g) => [g.id, g.name ?? ""]).filter((s) => s !== ""),
  );
  const nearId = known.find((g) => g.id === near || g.name === near)?.id;
  const candidates = [...new Set([...similar.map((g) => g.id), ...(nearId ? [nearId] : [])])].sort();
  if (candidates.length === 0)
    return "write the group's id, declare the group in the groups file, or map the value to an id in source.columns";
  const named = candidates.map((id) => {
    const name = known.find((g) => g.id === id)?.name;
    return name ? `${id} ("${visible(name)}")` : id;
  });
  return `did you mean ${named.slice(0, 5).join(" or ")}? Write the id, or map the value to it in source.columns`;
}
