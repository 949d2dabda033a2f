/**
 * Whole people first: the scheduler's bookkeeping of whom a step belongs to. A person (a user's
 * credentials, mapping and group steps) is *opened* when their first step starts and *closed*
 * when all of their steps have an outcome. Ready steps of opened people (and steps that belong
 * to nobody, such as group creations) start before a new person is opened, and at most about
 * `concurrency` people are open at once, so an interrupt or a deadline leaves whole people
 * rather than hundreds of logins without a user. Plan order alone would not: every credentials
 * creation comes before every mapping creation.
 */
import { STEP_KINDS } from "../plan/kinds.js";
import type { Step } from "../plan/types.js";

/** No person: a step of a group, or of a kind that is not about one user. */
export const NOBODY = -1;

export interface People {
  /** Steps without an outcome yet, by person. */
  remaining: number[];
  /** A step of the person has started (or was handed ready to start). */
  opened: boolean[];
  /** Ready steps of people not yet opened, by person; moved to the ready queue when they open. */
  parked: Array<number[] | undefined>;
  /** People with parked steps, in the order their first step became ready. */
  waiting: number[];
  waitingHead: number;
  /** Opened people with steps left. */
  open: number;
}

/** Kinds whose steps are about one user: their credentials or their mapping (not groups). */
const isUserStep = (step: Step): boolean => {
  const noun = STEP_KINDS[step.kind]?.noun;
  return noun === "credentials" || noun === "mapping";
};

/**
 * The person index of every step (NOBODY for steps of no one), and the empty bookkeeping. A
 * person is a set of user steps joined by their dependencies (a login and the user that points at
 * it; an email change's new login, re-pointed user and old login deleted): union-find over the
 * graph's edges, integers only, because this runs over 100,000-step plans.
 */
export function indexPeople(nodes: ReadonlyArray<{ step: Step; dependents: readonly number[] }>): {
  personOf: number[];
  people: People;
} {
  const parent = nodes.map((_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  const user = nodes.map((n) => isUserStep(n.step));
  nodes.forEach((n, i) => {
    if (user[i]) for (const d of n.dependents) if (user[d]) parent[root(d)] = root(i);
  });
  const numberOf = new Int32Array(nodes.length).fill(NOBODY);
  const remaining: number[] = [];
  const personOf = nodes.map((_, i) => {
    if (!user[i]) return NOBODY;
    const r = root(i);
    if (numberOf[r] === NOBODY) {
      numberOf[r] = remaining.length;
      remaining.push(0);
    }
    const p = numberOf[r]!;
    remaining[p]! += 1;
    return p;
  });
  const people: People = {
    remaining,
    opened: remaining.map(() => false),
    parked: [],
    waiting: [],
    waitingHead: 0,
    open: 0,
  };
  return { personOf, people };
}

/**
 * A step became ready: startable now when it belongs to nobody or to an opened person (true),
 * else parked until its person is opened (false).
 */
export function admit(people: People, person: number, step: number): boolean {
  if (person === NOBODY || people.opened[person]) return true;
  const parked = people.parked[person];
  if (parked) parked.push(step);
  else {
    people.parked[person] = [step];
    people.waiting.push(person);
  }
  return false;
}

/**
 * People with fewer steps first (in plan order among equals), for the people ready when the run
 * starts: a person a killed run left half-created (a login without its user) has one step left,
 * and is made whole before anyone new is started.
 */
export function fewestStepsFirst(people: People): void {
  people.waiting.sort((a, b) => people.remaining[a]! - people.remaining[b]!);
}

/**
 * Opens the next waiting person and returns their parked steps, or undefined when nobody waits.
 * The caller decides whether one more person may be opened.
 */
export function openNext(people: People): number[] | undefined {
  while (people.waitingHead < people.waiting.length) {
    const p = people.waiting[people.waitingHead++]!;
    const parked = people.parked[p];
    people.parked[p] = undefined;
    people.opened[p] = true;
    if (people.remaining[p]! > 0) people.open += 1;
    if (parked) return parked;
  }
  return undefined;
}

/** A step of `person` has its outcome: the person closes with their last one. */
export function settledFor(people: People, person: number): void {
  if (person === NOBODY) return;
  people.remaining[person]! -= 1;
  if (people.remaining[person] === 0 && people.opened[person]) people.open -= 1;
}
