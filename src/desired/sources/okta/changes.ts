/**
 * Okta's changes since a position (docs/okta.md, "Changes-only runs"): the System Log
 * (`GET /api/v1/logs`, scope `okta.logs.read`) read as a polling request (no `until`,
 * `sortOrder=ASCENDING`), which filters by the events' persistence time so none is skipped for a
 * delay, and always answers a `next` link, even on an empty page: the last one is the position.
 *
 * Only the events that change what a run reads are asked for (`LOG_FILTER`); for each person an
 * event names who is in the picture (or joins a picked group), the person is read as they are now
 * (`GET /api/v1/users/{id}`, one request each, 404: deleted), so the batch holds the directory's
 * state rather than a replay. Every request goes through the run's pacer, in its own rate-limit
 * family (`/api/v1/logs`, `/api/v1/users/{id}`) with the same headroom.
 *
 * Falls back to a whole read (never a partial plan): no position it can read, a position older
 * than the log keeps (90 days) or that Okta refuses (400), a page that is not a list, a page
 * without its next link, a next link seen before or to another origin, a group created or renamed
 * while a rule picks by name or search. A page failing after its retries is exit 5 (DirectoryHttp).
 */
import type { ChangeBatch, DirectoryChange, Picture, Position, WholeReason } from "../changes/feed.js";
import type { DirectoryHttp } from "../directory-http.js";
import { DirectoryHttpError } from "../errors.js";
import { DirectoryError } from "../../../errors.js";
import { OKTA_LOG_SCOPE } from "./credentials.js";
import type { ReadTally } from "../../types.js";
import { nextLink, type OktaUserJson } from "./api.js";
import { personOf } from "./picture.js";
import type { OktaConfig } from "./schema.js";

/** How far before the read's start the first position reaches back (clocks differ). */
export const CLOCK_MARGIN_MS = 5 * 60_000;
const RETENTION_MS = 90 * 86_400_000;
const MAX_LOG_PAGES = 1000;
const LOG_PAGE = 1000;

export const LOG_FILTER = [
  'eventType sw "user.lifecycle."',
  'eventType eq "user.account.update_profile"',
  'eventType sw "group.user_membership."',
  'eventType sw "group.lifecycle."',
  'eventType eq "group.profile.update"',
].join(" or ");

export function oktaPosition(now: number): Position {
  return {
    kind: "okta",
    streams: { since: new Date(now - CLOCK_MARGIN_MS).toISOString() },
    takenAt: new Date(now).toISOString(),
  };
}

class Fallback extends Error {
  constructor(
    readonly reason: WholeReason,
    readonly detail: string,
  ) {
    super(detail);
  }
}

interface LogEvent {
  eventType?: unknown;
  target?: { id?: unknown; type?: unknown }[] | null;
}

function firstUrl(config: OktaConfig, since: Position, now: number): string {
  if (since.kind !== "okta")
    throw new Fallback("position-unknown", `the kept position is a ${since.kind} one`);
  if (now - Date.parse(since.takenAt) > RETENTION_MS || Number.isNaN(Date.parse(since.takenAt)))
    throw new Fallback(
      "position-expired",
      `the position of ${since.takenAt} is older than the System Log keeps (90 days)`,
    );
  const next = since.streams["next"];
  if (next !== undefined) {
    if (!next.startsWith("/api/v1/logs?"))
      throw new Fallback("position-unknown", `the kept log link ${next} is not Okta's`);
    return `${config.orgUrl}${next}`;
  }
  const from = since.streams["since"];
  if (from === undefined || Number.isNaN(Date.parse(from)))
    throw new Fallback("position-unknown", "the kept position has neither a log link nor a time");
  const q = new URLSearchParams({
    since: from,
    sortOrder: "ASCENDING",
    limit: String(LOG_PAGE),
    filter: LOG_FILTER,
  });
  return `${config.orgUrl}/api/v1/logs?${q.toString()}`;
}

/** Every event since the position, and the next position (the last page's next link). */
async function readLog(http: DirectoryHttp, config: OktaConfig, first: string) {
  const what = `Okta System Log ${config.orgUrl}/api/v1/logs`;
  const seen = new Set<string>();
  const events: LogEvent[] = [];
  let url = first;
  for (let pages = 1; pages <= MAX_LOG_PAGES; pages++) {
    seen.add(url);
    let answer;
    try {
      answer = await http.get<unknown>(url, what);
    } catch (err) {
      if (err instanceof DirectoryHttpError && err.status === 400)
        throw new Fallback(
          "position-expired",
          `Okta refused the kept position (400 ${JSON.stringify(err.body).slice(0, 160)})`,
        );
      if (err instanceof DirectoryHttpError && err.status === 403)
        throw new DirectoryError({
          message: `${what} answered 403: changes-only runs read the System Log: grant the service app the scope ${OKTA_LOG_SCOPE} (or use an API token of an admin who may read it), or set source.changes.mode: off (docs/okta.md)`,
        });
      throw err;
    }
    if (!Array.isArray(answer.body))
      throw new Fallback("broken-page", `a page of ${what} is not a JSON array`);
    const next = nextLink(answer.headers);
    if (next === undefined) throw new Fallback("broken-page", `a page of ${what} came without its next link`);
    if (!next.startsWith(`${config.orgUrl}/api/v1/logs?`))
      throw new Fallback("broken-page", `a next link of ${what} leads elsewhere (${next.split("?")[0]})`);
    events.push(...(answer.body as LogEvent[]));
    const read: ReadTally = { what, pages, announced: "unknown", read: events.length };
    if (answer.body.length === 0) return { events, next: next.slice(config.orgUrl.length), read };
    if (seen.has(next)) throw new Fallback("broken-page", `${what} gave a next link it gave before (a loop)`);
    url = next;
  }
  throw new Fallback(
    "too-many-changes",
    `more than ${MAX_LOG_PAGES} pages of the System Log since the last run`,
  );
}

const targetOf = (e: LogEvent, type: string): string | undefined => {
  const t = (e.target ?? []).find((x) => x.type === type);
  return typeof t?.id === "string" ? t.id : undefined;
};

/** One person as they are now, once per run; null when Okta no longer has them (404). */
function userReader(http: DirectoryHttp, config: OktaConfig): (id: string) => Promise<OktaUserJson | null> {
  const now = new Map<string, OktaUserJson | null>();
  return async (id) => {
    if (!now.has(id)) {
      try {
        const url = `${config.orgUrl}/api/v1/users/${encodeURIComponent(id)}`;
        now.set(id, (await http.get<OktaUserJson>(url, `Okta user ${id}`)).body);
      } catch (err) {
        if (!(err instanceof DirectoryHttpError && err.status === 404)) throw err;
        now.set(id, null);
      }
    }
    return now.get(id)!;
  };
}

/** The changes the events make, people read as they are now. */
async function changesOf(o: {
  http: DirectoryHttp;
  config: OktaConfig;
  picture: Picture;
  events: LogEvent[];
}): Promise<DirectoryChange[]> {
  const { config, picture } = o;
  const known = new Set(picture.people.map((p) => p.id));
  const picked = new Set(picture.groups.map((g) => g.id));
  const byQuery = config.groups.some((r) => r.groupId === undefined);
  const read = userReader(o.http, config);
  const out: DirectoryChange[] = [];
  for (const e of o.events) {
    const type = String(e.eventType ?? "");
    const user = targetOf(e, "User");
    const group = targetOf(e, "UserGroup");
    if (
      type.startsWith("group.user_membership.") &&
      user !== undefined &&
      group !== undefined &&
      picked.has(group)
    ) {
      if (type.endsWith(".remove"))
        out.push({ type: "member-removed", group, member: user, memberKind: "person" });
      else {
        const u = await read(user);
        if (u !== null)
          out.push({ type: "member-added", group, member: user, memberKind: "person", person: personOf(u) });
      }
    } else if (
      (type.startsWith("user.lifecycle.") || type === "user.account.update_profile") &&
      user !== undefined
    ) {
      if (!known.has(user)) continue;
      const u = await read(user);
      out.push(
        u === null ? { type: "person-removed", id: user } : { type: "person-upserted", person: personOf(u) },
      );
    } else if (type === "group.lifecycle.delete" && group !== undefined && picked.has(group))
      out.push({ type: "group-removed", id: group });
    else if (
      (type === "group.lifecycle.create" || type === "group.profile.update") &&
      (byQuery || (group !== undefined && picked.has(group)))
    )
      throw new Fallback(
        "groups-changed",
        `a group was ${type.endsWith("create") ? "created" : "renamed or changed"} (${type}${group ? ` ${group}` : ""}), and what the rules pick may have changed`,
      );
  }
  return out;
}

/** ChangeFeed.readChanges for Okta. */
export async function readOktaChanges(o: {
  http: DirectoryHttp;
  config: OktaConfig;
  since: Position;
  picture: Picture;
  now: number;
}): Promise<ChangeBatch> {
  try {
    const log = await readLog(o.http, o.config, firstUrl(o.config, o.since, o.now));
    const changes = await changesOf({ ...o, events: log.events });
    return {
      kind: "changes",
      changes,
      position: { kind: "okta", streams: { next: log.next }, takenAt: new Date(o.now).toISOString() },
      reads: [log.read],
    };
  } catch (err) {
    if (err instanceof Fallback) return { kind: "fallback", reason: err.reason, detail: err.detail };
    throw err;
  }
}
