/**
 * The stand-in's Reports API admin activity (`reports.activities.list`:
 * `GET /admin/reports/v1/activity/users/{userKey}/applications/{applicationName}`), written from
 * the Admin SDK Reports API discovery document (`admin/reports/v1/admin-api.json` in
 * googleapis/google-api-go-client; read, never copied): `startTime`/`endTime` (RFC 3339; the
 * start must be before the end and the time of the request), `eventName`, `maxResults` (1-1000,
 * default 1000), `pageToken`/`nextPageToken`; scope `admin.reports.audit.readonly`. The answer
 * is `Activities` {kind, etag, items: Activity[], nextPageToken}, an Activity {kind, id: {time,
 * uniqueQualifier, applicationName, customerId}, actor: {email, profileId, callerType}, events:
 * [{type, name, parameters: [{name, value}]}]}, newest first. Only `applicationName=admin` has
 * events here; reports keep 180 days.
 *
 * The events are those of "Admin Audit Activity Events" (User Settings: SUSPEND_USER,
 * UNSUSPEND_USER, DELETE_USER with USER_EMAIL; Group Settings: ADD_GROUP_MEMBER,
 * REMOVE_GROUP_MEMBER with USER_EMAIL and GROUP_EMAIL, DELETE_GROUP with GROUP_EMAIL). Google
 * reports an event some time after it happened: `lagMs` holds each one back that long, as a real
 * report lags, so a reader must overlap its windows. The stand-in's faults (faults.ts) apply here
 * as on the Directory API: `repeat-token` answers a page whose `nextPageToken` serves that same
 * page again (a looping report), `empty` one with neither `items` nor `nextPageToken`.
 */
import { randomBytes } from "node:crypto";
import type { GoogleDirectory, ListReply } from "./directory.js";
import { apiError } from "./token.js";

const KEEP_MS = 180 * 86_400_000;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[-+]\d{2}:\d{2})$/;

export interface AdminEvent {
  type: "USER_SETTINGS" | "GROUP_SETTINGS";
  name: string;
  parameters: Record<string, string>;
}

interface Logged {
  at: number;
  qualifier: string;
  event: AdminEvent;
}

const invalid = (message: string) => apiError(400, message, "invalid", "INVALID_ARGUMENT");

export class AdminActivity {
  readonly logged: Logged[] = [];
  private readonly tokens = new Map<string, { key: string; offset: number }>();
  private sequence = 0;

  constructor(private readonly o: { customerId: string; actor: string; lagMs: number; now: () => number }) {}

  record(event: AdminEvent, at = this.o.now()): void {
    this.sequence += 1;
    this.logged.push({ at, qualifier: String(1_000_000 + this.sequence), event });
  }

  private activity(l: Logged) {
    const params = Object.entries(l.event.parameters).map(([name, value]) => ({ name, value }));
    return {
      kind: "admin#reports#activity",
      etag: '"stand-in"',
      id: {
        time: new Date(l.at).toISOString(),
        uniqueQualifier: l.qualifier,
        applicationName: "admin",
        customerId: this.o.customerId,
      },
      actor: { callerType: "USER", email: this.o.actor, profileId: "100000000000000000009" },
      events: [{ type: l.event.type, name: l.event.name, parameters: params }],
    };
  }

  /** `reports.activities.list` for `path` below /admin/reports/v1. */
  list(path: string, q: URLSearchParams): ListReply {
    const m = /^\/activity\/users\/([^/]+)\/applications\/([^/]+)$/.exec(path);
    if (!m) return apiError(404, "Not Found", "notFound", "NOT_FOUND");
    const now = this.o.now();
    const start = q.get("startTime");
    const end = q.get("endTime");
    for (const t of [start, end]) if (t !== null && !RFC3339.test(t)) return invalid(`Invalid value '${t}'`);
    const from = start === null ? now - KEEP_MS : Math.max(Date.parse(start), now - KEEP_MS);
    const to = end === null ? now : Date.parse(end);
    if (start !== null && (Date.parse(start) > now || Date.parse(start) > to))
      return invalid("Start time must be less than or equal to the end time and the time of the request");
    const max = Number(q.get("maxResults") ?? 1000);
    if (!Number.isInteger(max) || max < 1 || max > 1000)
      return invalid(
        `Invalid value '${q.get("maxResults") ?? ""}'. Values must be within the range: [1, 1000]`,
      );
    const eventName = q.get("eventName");
    const visible =
      decodeURIComponent(m[2]!) !== "admin"
        ? []
        : this.logged
            .filter((l) => l.at <= now - this.o.lagMs && l.at >= from && l.at <= to)
            .filter((l) => eventName === null || l.event.name === eventName)
            .sort((a, b) => b.at - a.at || (a.qualifier < b.qualifier ? 1 : -1));
    const key = `${path}?${[...q]
      .filter(([k]) => k !== "pageToken")
      .map(([k, v]) => `${k}=${v}`)
      .sort()
      .join("&")}`;
    let offset = 0;
    const token = q.get("pageToken");
    if (token !== null) {
      const at = this.tokens.get(token);
      if (at === undefined || at.key !== key) return invalid("Invalid page token");
      offset = at.offset;
    }
    const items = visible.slice(offset, offset + max).map((l) => this.activity(l));
    const body: Record<string, unknown> = { kind: "admin#reports#activities", etag: '"stand-in"', items };
    const next = offset + max < visible.length ? this.token(key, offset + max) : undefined;
    if (next !== undefined) body.nextPageToken = next;
    // For the faults (faults.ts): the page as listed, and a token that serves it again (a loop).
    const again = () => this.token(key, offset);
    const list = { key, items, again, ...(next ? { next } : {}), ...(token !== null ? { token } : {}) };
    return { status: 200, body, list };
  }

  private token(key: string, offset: number): string {
    const t = randomBytes(18).toString("base64url");
    this.tokens.set(t, { key, offset });
    return t;
  }
}

/** Changes made on the stand-in as an admin makes them in the Admin console, each reported. */
export class GoogleChanges {
  constructor(
    private readonly directory: GoogleDirectory,
    private readonly activity: AdminActivity,
  ) {}

  private user(id: string) {
    const u = this.directory.users.get(id);
    if (u === undefined) throw new Error(`no user ${id}`);
    return u;
  }

  suspend(id: string, suspended = true): void {
    const u = this.user(id);
    u.suspended = suspended;
    this.directory.usersChanged();
    this.activity.record({
      type: "USER_SETTINGS",
      name: suspended ? "SUSPEND_USER" : "UNSUSPEND_USER",
      parameters: { USER_EMAIL: u.primaryEmail },
    });
  }

  member(groupId: string, userId: string, add: boolean): void {
    const g = this.directory.groups.get(groupId);
    if (g === undefined) throw new Error(`no group ${groupId}`);
    const u = this.user(userId);
    g.members = add
      ? [...g.members.filter((m) => m.id !== userId), { id: userId, type: "USER" }]
      : g.members.filter((m) => m.id !== userId);
    this.activity.record({
      type: "GROUP_SETTINGS",
      name: add ? "ADD_GROUP_MEMBER" : "REMOVE_GROUP_MEMBER",
      parameters: { USER_EMAIL: u.primaryEmail, GROUP_EMAIL: g.email },
    });
  }
}
