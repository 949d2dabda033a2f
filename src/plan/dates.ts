/**
 * Start and end dates (issue 49, docs/onboarding.md): the run's day decides. Before a person's
 * `startDate` they get no login at all (planned as not there yet: a login that exists, made by
 * an earlier batch for a start since delayed, is revoked like a leaver's); from `startDate` to
 * `endDate` (both included) they are present as the file says; after `endDate` they are a
 * leaver (`state: absent`). Pure: the day comes in as an argument (the CLI's `--today` or the
 * machine's local date), never from a clock.
 */
import type { DesiredState, DesiredUser } from "../desired/types.js";

const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** One dated person of the plan. */
export interface DatedPerson {
  id: string;
  email: string;
  /** The day that decides: the start date (starting) or the end date (ending). */
  date: string;
}

/** Who the run's day holds back, lets in today, and lets go (Plan.dates). */
export interface PlanDates {
  /** The day the plan was made for (YYYY-MM-DD). */
  today: string;
  /** Start later: no login until their start date. */
  notYetStarted: DatedPerson[];
  /** Their start date is today: the plan gives them their login and access. */
  startingToday: DatedPerson[];
  /** Their end date has passed: leavers, revoked as `policy.deletions` says. */
  ended: DatedPerson[];
  /** Their last day is today or later: present until then. */
  endingLater: DatedPerson[];
}

/** Fields a person not (or no longer) there does not carry: an absent row holds no access. */
function notThere(u: DesiredUser): DesiredUser {
  const copy: DesiredUser = { ...u, state: "absent" };
  delete copy.workspaces;
  delete copy.organization;
  delete copy.dataFilters;
  delete copy.groups;
  return copy;
}

/**
 * The desired state as of `today`, and who is dated. Without `today` (a caller that plans without
 * a day) or without any dated person, the state is returned as it is and `dates` is undefined.
 */
export function applyDates(
  desired: DesiredState,
  today: string | undefined,
): { desired: DesiredState; dates: PlanDates | undefined } {
  if (today === undefined || !desired.users.some((u) => u.startDate !== undefined || u.endDate !== undefined))
    return { desired, dates: undefined };
  const dates: PlanDates = { today, notYetStarted: [], startingToday: [], ended: [], endingLater: [] };
  const person = (u: DesiredUser, date: string): DatedPerson => ({ id: u.id, email: u.email, date });
  const users = desired.users.map((u) => {
    if (u.state !== "present") return u;
    if (u.startDate !== undefined && u.startDate > today) {
      dates.notYetStarted.push(person(u, u.startDate));
      return notThere(u);
    }
    if (u.endDate !== undefined && u.endDate < today) {
      dates.ended.push(person(u, u.endDate));
      return notThere(u);
    }
    if (u.startDate === today) dates.startingToday.push(person(u, u.startDate));
    if (u.endDate !== undefined) dates.endingLater.push(person(u, u.endDate));
    return u;
  });
  const byDate = (a: DatedPerson, b: DatedPerson): number =>
    compareStrings(a.date, b.date) || compareStrings(a.id, b.id);
  for (const list of [dates.notYetStarted, dates.startingToday, dates.ended, dates.endingLater])
    list.sort(byDate);
  // The signIn step is non-enumerable: a copy keeps it as the slice does (desired/slice.ts).
  const dated: DesiredState = { ...desired, users };
  if (desired.signIn !== undefined)
    Object.defineProperty(dated, "signIn", { value: desired.signIn, enumerable: false });
  return { desired: dated, dates };
}
