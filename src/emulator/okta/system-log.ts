/**
 * The stand-in's System Log (`GET /api/v1/logs`), written from Okta's management OpenAPI
 * (okta/okta-management-openapi-spec, dist/current/management-oneOfInheritance.yaml:
 * `listLogEvents`, `LogEvent`, `LogTarget`; scope `okta.logs.read`) and the "System Log query"
 * guide (okta-developer-docs, docs/reference/system-log-query): a request without `until` and
 * with `sortOrder=ASCENDING` (the default) is a polling request: events filtered by their
 * persistence time, a `next` link on every page even when it is empty; `since` and `after` are
 * mutually exclusive; `limit` 0-1000, default 100; a `since` more than 180 days back is 400
 * E0000053; events older than 90 days are no longer returned (data retention).
 *
 * The stand-in's changes (`OktaChanges`) change its store and log the event Okta logs for them:
 * `user.lifecycle.suspend`/`unsuspend`/`deactivate`/`activate`, `group.user_membership.add`/
 * `remove`, `user.account.update_profile`.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { attributesOf, matches, parseSearch, SearchSyntaxError } from "./search.js";
import { oktaError, type RouteReply, type Store } from "./routes.js";
import type { OktaStatus } from "./types.js";

const DAY = 86_400_000;
const RETENTION_MS = 90 * DAY;
const SINCE_LIMIT_MS = 180 * DAY;

export interface LogTarget {
  id: string;
  type: "User" | "UserGroup";
  alternateId: string;
  displayName: string;
}

export interface LogEvent {
  uuid: string;
  published: string;
  eventType: string;
  displayMessage: string;
  severity: "INFO";
  version: "0";
  actor: { id: string; type: "User"; alternateId: string; displayName: string };
  outcome: { result: "SUCCESS" };
  target: LogTarget[];
}

const ADMIN = {
  id: "00u1admin0stand0in00",
  type: "User" as const,
  alternateId: "admin@example.com",
  displayName: "Admin",
};

export class SystemLog {
  readonly events: { event: LogEvent; persisted: number }[] = [];
  private readonly cursors = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  record(eventType: string, displayMessage: string, target: LogTarget[], at = this.now()): void {
    const event: LogEvent = {
      uuid: randomUUID(),
      published: new Date(at).toISOString(),
      eventType,
      displayMessage,
      severity: "INFO",
      version: "0",
      actor: ADMIN,
      outcome: { result: "SUCCESS" },
      target,
    };
    this.events.push({ event, persisted: at });
  }

  private cursor(index: number): string {
    const token = randomBytes(12).toString("base64url");
    this.cursors.set(token, index);
    return token;
  }

  /** `GET /api/v1/logs`: a polling query (the only kind usersync asks), its page and next link. */
  list(query: URLSearchParams): RouteReply {
    const since = query.get("since");
    const after = query.get("after");
    if (since !== null && after !== null)
      return oktaError(400, "E0000001", "Api validation failed: 'since' and 'after' are mutually exclusive");
    const limit = Number(query.get("limit") ?? 100);
    if (!Number.isInteger(limit) || limit < 0 || limit > 1000)
      return oktaError(400, "E0000001", "Api validation failed: limit must be between 0 and 1000");
    const now = this.now();
    let from = 0;
    if (since !== null) {
      const t = Date.parse(since);
      if (Number.isNaN(t))
        return oktaError(
          400,
          "E0000001",
          "Api validation failed: 'since': The date format in your query is not recognized.",
        );
      if (now - t > SINCE_LIMIT_MS)
        return oktaError(
          400,
          "E0000053",
          "Invalid parameter: The since parameter is over 180 days prior to the current day.",
        );
      from = this.events.findIndex((e) => e.persisted >= t);
      if (from < 0) from = this.events.length;
    } else if (after !== null) {
      const at = this.cursors.get(after);
      if (at === undefined)
        return oktaError(400, "E0000001", "Api validation failed: 'after': not a cursor of this log");
      from = at;
    }
    let keep: (e: LogEvent) => boolean = () => true;
    const filter = query.get("filter");
    if (filter !== null) {
      try {
        const tree = parseSearch(filter);
        if (attributesOf(tree).some((a) => a !== "eventType"))
          throw new SearchSyntaxError("the stand-in filters on eventType only");
        keep = (e) => matches(tree, () => e.eventType);
      } catch (err) {
        if (!(err instanceof SearchSyntaxError)) throw err;
        return oktaError(400, "E0000053", `Invalid filter '${filter}': ${err.message}`);
      }
    }
    const items: LogEvent[] = [];
    let i = from;
    for (; i < this.events.length && items.length < limit; i++) {
      const e = this.events[i]!;
      if (now - e.persisted <= RETENTION_MS && keep(e.event)) items.push(e.event);
    }
    const next = new URLSearchParams(query);
    next.delete("since");
    next.set("after", this.cursor(i));
    return { status: 200, body: items, next: `/api/v1/logs?${next.toString()}` };
  }
}

const userTarget = (store: Store, id: string): LogTarget => {
  const u = store.users.get(id);
  const login = String(u?.profile.login ?? id);
  return { id, type: "User", alternateId: login, displayName: login };
};
const groupTarget = (store: Store, id: string): LogTarget => {
  const name = store.groups.get(id)?.profile.name ?? id;
  return { id, type: "UserGroup", alternateId: name, displayName: name };
};

/** Changes made on the stand-in as an admin would make them, each logged as Okta logs it. */
export class OktaChanges {
  constructor(
    private readonly store: Store,
    private readonly log: SystemLog,
  ) {}

  private status(id: string, status: OktaStatus, eventType: string, message: string): void {
    const u = this.store.users.get(id);
    if (u === undefined) throw new Error(`no user ${id}`);
    u.status = status;
    this.log.record(eventType, message, [userTarget(this.store, id)]);
  }

  suspend(id: string): void {
    this.status(id, "SUSPENDED", "user.lifecycle.suspend", "Suspend Okta user");
  }
  unsuspend(id: string): void {
    this.status(id, "ACTIVE", "user.lifecycle.unsuspend", "Unsuspend Okta user");
  }
  deactivate(id: string): void {
    this.status(id, "DEPROVISIONED", "user.lifecycle.deactivate", "Deactivate Okta user");
  }

  updateProfile(id: string, profile: Record<string, unknown>): void {
    const u = this.store.users.get(id);
    if (u === undefined) throw new Error(`no user ${id}`);
    u.profile = { ...u.profile, ...profile } as typeof u.profile;
    this.log.record("user.account.update_profile", "Update user profile for Okta", [
      userTarget(this.store, id),
    ]);
  }

  member(groupId: string, userId: string, add: boolean): void {
    const g = this.store.groups.get(groupId);
    if (g === undefined) throw new Error(`no group ${groupId}`);
    g.members = add ? [...new Set([...g.members, userId])] : g.members.filter((m) => m !== userId);
    this.log.record(
      add ? "group.user_membership.add" : "group.user_membership.remove",
      add ? "Add user to group membership" : "Remove user from group membership",
      [userTarget(this.store, userId), groupTarget(this.store, groupId)],
    );
  }
}
