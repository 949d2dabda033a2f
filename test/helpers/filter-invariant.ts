/**
 * The promise of data filters, checked on the emulator's state (issues 29 and 37): nobody reaches
 * a workspace (a direct grant, a group's or a parent group's, a hierarchy grant from above) while a
 * filter they must have there, or on a workspace above it, is missing or says something that is
 * neither its old nor its new condition. Which filters a person must have is given per holder and
 * workspace, with the conditions allowed (compared by meaning).
 */
import { sameMeaning } from "../../src/data-filters.js";
import type { EmulatorState } from "../../src/emulator/types.js";

/** `workspace|user/id` or `workspace|userGroup/id` → the MAQL conditions allowed (old and new). */
export type RequiredFilters = ReadonlyMap<string, readonly string[]>;

const holderOf = (x: { user?: string; userGroup?: string }): string =>
  x.user !== undefined ? `user/${x.user}` : `userGroup/${x.userGroup}`;

/** Each `person workspace holder@where` that breaks the promise; `people` limits whom it checks. */
export function filterLeaks(
  s: EmulatorState,
  required: RequiredFilters,
  people: (id: string) => boolean = () => true,
): string[] {
  const parents = new Map(s.groups.map((g) => [g.id, g.parents ?? []]));
  const wsParent = new Map((s.workspaces ?? []).map((w) => [w.id, w.parent]));
  const upFrom = (ws: string): string[] => {
    const out: string[] = [];
    for (let at: string | undefined = ws; at !== undefined && !out.includes(at); at = wsParent.get(at))
      out.push(at);
    return out;
  };
  const grants = new Set<string>();
  for (const w of s.workspaces ?? [])
    for (const g of w.permissions ?? []) {
      if ((g.permissions ?? []).length > 0) grants.add(`${w.id}|${holderOf(g)}`);
      if ((g.hierarchy ?? []).length > 0)
        for (const c of s.workspaces ?? [])
          if (upFrom(c.id).includes(w.id)) grants.add(`${c.id}|${holderOf(g)}`);
    }
  const filters = new Map<string, string[]>();
  for (const f of s.dataFilters ?? []) {
    const key = `${f.workspace}|${holderOf(f)}`;
    filters.set(key, [...(filters.get(key) ?? []), f.maql]);
  }
  const out: string[] = [];
  for (const m of s.mappings) {
    if (!people(m.id)) continue;
    const groups = new Set<string>();
    const walk = (g: string): void => {
      if (groups.has(g)) return;
      groups.add(g);
      for (const p of parents.get(g) ?? []) walk(p);
    };
    for (const g of m.groups ?? []) walk(g);
    const holders = [`user/${m.id}`, ...[...groups].map((g) => `userGroup/${g}`)];
    for (const w of s.workspaces ?? []) {
      if (!holders.some((h) => grants.has(`${w.id}|${h}`))) continue;
      for (const at of upFrom(w.id))
        for (const h of holders) {
          const allowed = required.get(`${at}|${h}`);
          if (allowed === undefined) continue;
          const have = filters.get(`${at}|${h}`) ?? [];
          if (!have.some((maql) => allowed.some((a) => sameMeaning(a, maql))))
            out.push(`${m.id} reaches ${w.id} without ${h}'s filter on ${at}`);
        }
    }
  }
  return out;
}

/** Adds `maql` to what `workspace|holder` may say. */
export function requireFilter(into: Map<string, string[]>, key: string, maql: string): void {
  into.set(key, [...(into.get(key) ?? []), maql]);
}
