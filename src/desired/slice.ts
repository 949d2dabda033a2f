/**
 * One organization's slice of a shared desired state (`targets[].select`, docs/multi-org.md),
 * cut after the source was read, so it works the same for every source (a file, LDAP, and the
 * directories read through the shared reader). Pure: the slice is a deep copy, so nothing one
 * target's run does to its desired state reaches another's.
 *
 * A person belongs to the slice when a selector says so: a member of a selected group or of any
 * group below one (`groups`), a users-file column holding a value (`column`), or everyone (`all`).
 * A person who is not selected is not in the slice at all: not created, not updated, and (in
 * `policy.mode: full`) deleted there like anyone else the source does not list for that
 * organization. The slice's groups are the selected groups and those below them, the groups its
 * people are in, and every parent of those, so the slice is a whole desired state. A group another
 * target selects (and this one does not) is that organization's: it is taken out of the
 * memberships of a person both select, and never planned here.
 *
 * A leaver (a person the source marks `state: absent`: an absent row, an account disabled or
 * suspended in the directory) is in every slice, whatever the selector: a leaver has no groups to
 * be selected by any more, yet must leave every organization where they hold a mapping (DESIGN
 * section 11). Where they hold none their row plans nothing. A leaver no selector picks comes
 * without groups (their groups are kept: a leaver is revoked per policy.deletions, not moved), so
 * they bring no group into the slice.
 */
import type { DesiredGroup, DesiredState, DesiredUser } from "./types.js";

export interface SliceSelector {
  groups?: readonly string[] | undefined;
  column?: { name: string; value: string } | undefined;
  all?: true | undefined;
}

/** `*` matches any run of characters; everything else is literal. */
function globMatcher(patterns: readonly string[]): (id: string) => boolean {
  const res = patterns.map(
    (p) =>
      new RegExp(
        `^${p
          .split("*")
          .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
          .join(".*")}$`,
      ),
  );
  return (id) => res.some((re) => re.test(id));
}

/** The selected group ids and every group below them (through `parents`). */
function selectedGroups(groups: readonly DesiredGroup[], patterns: readonly string[]): Set<string> {
  const match = globMatcher(patterns);
  const selected = new Set(groups.filter((g) => match(g.id)).map((g) => g.id));
  // A group named by a person only (not in the groups list) can still be selected by its id.
  const below = (g: DesiredGroup): boolean => (g.parents ?? []).some((p) => selected.has(p));
  for (let grew = true; grew;) {
    grew = false;
    for (const g of groups)
      if (!selected.has(g.id) && below(g)) {
        selected.add(g.id);
        grew = true;
      }
  }
  return selected;
}

function selectsUser(state: DesiredState, selector: SliceSelector): (u: DesiredUser) => boolean {
  if (selector.all === true) return () => true;
  if (selector.column !== undefined) {
    const { name, value } = selector.column;
    return (u) => u.columns?.[name] === value;
  }
  const patterns = selector.groups ?? [];
  const match = globMatcher(patterns);
  const groups = selectedGroups(state.groups, patterns);
  return (u) => (u.groups ?? []).some((g) => groups.has(g) || match(g));
}

/** The groups a slice keeps: the selected ones, its people's, and all their parents. */
function keptGroups(
  state: DesiredState,
  users: readonly DesiredUser[],
  selector: SliceSelector,
): Set<string> {
  if (selector.all === true) return new Set(state.groups.map((g) => g.id));
  const kept = selector.groups ? selectedGroups(state.groups, selector.groups) : new Set<string>();
  for (const u of users) for (const g of u.groups ?? []) kept.add(g);
  const byId = new Map(state.groups.map((g) => [g.id, g]));
  const queue = [...kept];
  while (queue.length > 0) {
    for (const p of byId.get(queue.pop()!)?.parents ?? [])
      if (!kept.has(p)) {
        kept.add(p);
        queue.push(p);
      }
  }
  return kept;
}

/**
 * `others`: the group patterns the other targets select by; the groups they pick (and those below
 * them) that this selector does not are theirs.
 */
export function sliceDesired(
  state: DesiredState,
  selector: SliceSelector,
  others: readonly string[] = [],
): DesiredState {
  const own = selector.groups ? selectedGroups(state.groups, selector.groups) : new Set<string>();
  const ownMatch = globMatcher(selector.groups ?? []);
  const otherMatch = globMatcher(others);
  const theirs = selectedGroups(state.groups, others);
  const foreign = (g: string): boolean => (theirs.has(g) || otherMatch(g)) && !own.has(g) && !ownMatch(g);
  const selects = selectsUser(state, selector);
  const picked = new Set(state.users.filter(selects));
  // In the source's order: the picked people, and every leaver (without groups when not picked).
  const users: DesiredUser[] = [];
  const pickedCopies: DesiredUser[] = [];
  for (const u of state.users) {
    if (picked.has(u)) {
      const copy = structuredClone(u);
      if (copy.groups !== undefined) copy.groups = copy.groups.filter((g) => !foreign(g));
      users.push(copy);
      pickedCopies.push(copy);
    } else if (u.state === "absent") {
      const { groups: _kept, ...leaver } = structuredClone(u);
      users.push(leaver);
    }
  }
  const groups = keptGroups(state, pickedCopies, selector);
  const slice: DesiredState = {
    users,
    groups: structuredClone(state.groups.filter((g) => groups.has(g.id) && !foreign(g.id))),
    files: [...state.files],
    // What the shared source read, and its proof of a whole read, holds for every slice of it.
    ...(state.evidence !== undefined ? { evidence: state.evidence } : {}),
  };
  // Who signs in as whom depends on each target's organization: the slice keeps the source's step.
  if (state.signIn !== undefined)
    Object.defineProperty(slice, "signIn", { value: state.signIn, enumerable: false });
  return slice;
}
