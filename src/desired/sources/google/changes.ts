/**
 * Google's changes since a position (docs/google.md, "Changes-only runs"): the Admin SDK Reports
 * API's admin activity (`reports.activities.list`, `GET /admin/reports/v1/activity/users/all/
 * applications/admin`, scope admin.reports.audit.readonly), the Admin console's audit log: what
 * admins (and the Directory API) did to users and groups. Google reports admin events "near real
 * time (couple of minutes)" after they happen and, rarely, later (support.google.com/a/answer/
 * 7061566), so every window reaches back `REPORT_LAG_MS` before the position: an event reported
 * late is still read, and one read twice is harmless (people are read as they are now).
 *
 * The events name people and groups by email (USER_EMAIL, GROUP_EMAIL). A person of the picture an
 * event names is read as they are now (`users.get`, one request each, 404: deleted); a person who
 * joins a group of the picture's tree is read by email and added to every picked group above it.
 * Falls back to a whole read (never a partial plan): a position it cannot read or older than the
 * reports keep (180 days), a window Google refuses (400: its clock behind the position), a page
 * that is not a list or repeats its token, a group nested or unnested, a group of the tree
 * deleted or changed, a group created or changed while a rule picks by query. A page failing
 * after its retries is exit 5 (DirectoryHttp).
 */
import type { ChangeBatch, Picture, Position } from "../changes/feed.js";
import type { DirectoryHttp } from "../directory-http.js";
import { DirectoryHttpError } from "../errors.js";
import type { ReadTally } from "../../types.js";
import { DirectoryError } from "../../../errors.js";
import { GOOGLE_REPORTS_SCOPE } from "./credentials.js";
import { directoryUrl, GOOGLE, googleError, setupError, type GoogleUserJson } from "./api.js";
import { SkipCounter } from "../contract.js";
import { changesOf, Fallback, type AdminEvent, type ListMembers } from "./events.js";
import { readMembers } from "./people.js";
import type { GoogleConfig } from "./schema.js";

/** How far each window reaches back before its position: Google's reporting lag, with room. */
export const REPORT_LAG_MS = 15 * 60_000;
const KEEP_MS = 180 * 86_400_000;
const MAX_PAGES = 100;
const USER_FIELDS = "id,primaryEmail,name(givenName,familyName,fullName),suspended,archived";

export function googlePosition(now: number): Position {
  const at = new Date(now).toISOString();
  return { kind: "google", streams: { since: at }, takenAt: at };
}

interface Activity {
  id?: { time?: unknown };
  events?: { type?: unknown; name?: unknown; parameters?: { name?: unknown; value?: unknown }[] }[];
}

function windowStart(since: Position, now: number): string {
  const from = Date.parse(since.streams["since"] ?? "");
  if (since.kind !== "google" || Number.isNaN(from))
    throw new Fallback("position-unknown", `the kept position is not a Google one (${since.kind})`);
  const start = from - REPORT_LAG_MS;
  if (now - start > KEEP_MS)
    throw new Fallback(
      "position-expired",
      `the position of ${since.takenAt} is older than the reports keep (180 days)`,
    );
  if (from > now)
    throw new Fallback("position-unknown", `the kept position ${since.takenAt} is in the future`);
  return new Date(start).toISOString();
}

function eventsOf(items: Activity[], what: string): AdminEvent[] {
  const out: AdminEvent[] = [];
  for (const a of items) {
    const time = a.id?.time;
    if (typeof time !== "string" || Number.isNaN(Date.parse(time)) || !Array.isArray(a.events))
      throw new Fallback("broken-page", `an activity of ${what} has no time or no events`);
    for (const e of a.events) {
      const params: Record<string, string> = {};
      for (const p of e.parameters ?? [])
        if (typeof p.name === "string") params[p.name] = String(p.value ?? "");
      out.push({ time, type: String(e.type ?? ""), name: String(e.name ?? ""), params });
    }
  }
  return out;
}

/** Every admin event of the window, oldest first; the listing's tally. */
async function readActivity(http: DirectoryHttp, config: GoogleConfig, start: string, actor: string) {
  const what = `Google admin activity (Reports API) since ${start}`;
  // A customer id other than the admin's own is asked for by name (`customerId`); a domain is not
  // a parameter of the report: events of other domains name nobody of the picture.
  const customer =
    config.customer !== undefined && config.customer !== "my_customer"
      ? `&customerId=${encodeURIComponent(config.customer)}`
      : "";
  const first = `${config.apiUrl}/admin/reports/v1/activity/users/all/applications/admin?startTime=${encodeURIComponent(start)}&maxResults=1000${customer}`;
  const seen = new Set<string>();
  const events: AdminEvent[] = [];
  let url = first;
  for (let pages = 1; pages <= MAX_PAGES; pages++) {
    let body: { items?: unknown; nextPageToken?: unknown };
    try {
      body = (await http.get<{ items?: unknown; nextPageToken?: unknown }>(url, what)).body;
    } catch (err) {
      // The first page refused: the window (Google's clock behind it); a later one: its token.
      if (err instanceof DirectoryHttpError && err.status === 400)
        throw new Fallback(
          pages === 1 ? "feed-lagging" : "broken-page",
          `Google refused ${pages === 1 ? `the window since ${start}` : `page ${pages}'s token`} (400 ${googleError(err.body).message})`,
        );
      if (
        err instanceof DirectoryHttpError &&
        err.status === 403 &&
        /scope/i.test(googleError(err.body).message)
      )
        throw new DirectoryError({
          message: `${GOOGLE} answered 403 to ${what}: changes-only runs read the admin activity report: authorise the scope ${GOOGLE_REPORTS_SCOPE} too (domain-wide delegation's scope list), or set source.changes.mode: off (docs/google.md)`,
        });
      throw setupError(err, { config, what, actor });
    }
    const items = body.items ?? [];
    if (!Array.isArray(items))
      throw new Fallback("broken-page", `a page of ${what} has items that are not a list`);
    // Newest first: a page's events, and each page after the one before, are older.
    events.unshift(...eventsOf(items as Activity[], what).reverse());
    const token =
      typeof body.nextPageToken === "string" && body.nextPageToken !== "" ? body.nextPageToken : undefined;
    const read: ReadTally = { what, pages, announced: "unknown", read: events.length };
    if (token === undefined) return { events, read };
    if (seen.has(token))
      throw new Fallback("broken-page", `${what} gave a page token it gave before (a loop)`);
    seen.add(token);
    url = `${first}&pageToken=${encodeURIComponent(token)}`;
  }
  throw new Fallback("too-many-changes", `more than ${MAX_PAGES} pages of admin activity since the last run`);
}

/** A user as they are now (by id or email), once per run; null when Google has no such user (404). */
function userReader(http: DirectoryHttp, config: GoogleConfig, actor: string) {
  const now = new Map<string, GoogleUserJson | null>();
  return async (key: string): Promise<GoogleUserJson | null> => {
    if (!now.has(key)) {
      const url = directoryUrl(config, `users/${encodeURIComponent(key)}`, { fields: USER_FIELDS });
      try {
        now.set(key, (await http.get<GoogleUserJson>(url, `Google user ${key}`)).body);
      } catch (err) {
        if (!(err instanceof DirectoryHttpError && err.status === 404))
          throw setupError(err, { config, what: `Google user ${key}`, actor });
        now.set(key, null);
      }
    }
    return now.get(key)!;
  };
}

/** ChangeFeed.readChanges for Google. */
export async function readGoogleChanges(o: {
  http: DirectoryHttp;
  config: GoogleConfig;
  actor: string;
  since: Position;
  picture: Picture;
  now: number;
}): Promise<ChangeBatch> {
  try {
    const log = await readActivity(o.http, o.config, windowStart(o.since, o.now), o.actor);
    const read = userReader(o.http, o.config, o.actor);
    const list: ListMembers = async (id, email) => {
      const skipped = new SkipCounter();
      const label = JSON.stringify(email);
      const { members } = await readMembers({ ...o, groups: [{ id, label }], skipped });
      const m = members.get(id);
      return { people: m?.people ?? [], groups: (m?.groups ?? []).map((g) => g.id) };
    };
    const changes = await changesOf({ config: o.config, picture: o.picture, events: log.events, read, list });
    return { kind: "changes", changes, position: googlePosition(o.now), reads: [log.read] };
  } catch (err) {
    if (err instanceof Fallback) return { kind: "fallback", reason: err.reason, detail: err.detail };
    throw err;
  }
}
