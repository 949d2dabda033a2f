/**
 * The `userManagement` actions of bulk membership (profile v1), on the same store as the entity
 * API, as the official OpenAPI describes them (media type application/json):
 * - `POST .../userGroups/{id}/addMembers` and `.../removeMembers`, body `{members: [{id}]}`, 204;
 *   idempotent (a member added twice, or a non-member removed, changes nothing); an unknown group
 *   or user answers 404 and changes nothing;
 * - `GET .../userGroups/{id}/members`: `{members: [{id, name?}]}`, sorted by id, not paged;
 * - `POST .../removeUsersUserGroups`, body `[{id, type: "user" | "userGroup"}]`, 200: deletes the
 *   mappings and groups named (unknown ones are skipped; a group with child groups left answers
 *   409 and nothing is deleted; a deleted group's members lose it).
 * What the real service answers for unknown users and ids is not documented: see docs/emulator.md.
 */
import { JSON_TYPE, ProblemError, isObject, problemReply, type Reply } from "./http-util.js";
import type { Handler, Route, RouteContext } from "./route-context.js";
import type { MappingRec, Store } from "./store.js";

type MembersAction = "addMembers" | "removeMembers" | "members";

/** Rows of server.ts's ROUTES. */
export const USER_MANAGEMENT_ROUTES: Route[] = [
  {
    profile: "v1",
    pattern: /^\/api\/v1\/actions\/userManagement\/userGroups\/([^/]+)\/(addMembers|removeMembers|members)$/,
    param: 1,
    userManagement: true,
    handler: (m) => (ctx) => handleGroupMembers(ctx, m[2] as MembersAction),
  },
  {
    profile: "v1",
    pattern: /^\/api\/v1\/actions\/userManagement\/removeUsersUserGroups$/,
    userManagement: true,
    handler: () => (ctx) => handleRemoveUsersUserGroups(ctx),
  },
];

/** What a service that routes these paths but serves no method on them answers (option `userManagement: 405`). */
export const notAllowed: Handler = (ctx) => problemReply(405, `${ctx.method} is not allowed here`);

function allowOnly(ctx: RouteContext, method: "GET" | "POST", what: string): void {
  if (ctx.method !== method)
    throw new ProblemError(405, `${ctx.method} is not allowed on ${what} (${method})`);
}

export function handleGroupMembers(ctx: RouteContext, action: MembersAction): Reply {
  allowOnly(ctx, action === "members" ? "GET" : "POST", `userGroups/{userGroupId}/${action}`);
  const group = ctx.param ?? "";
  const { store } = ctx;
  if (!store.groups.has(group)) throw new ProblemError(404, `userGroup ${group} not found`);
  if (action === "members") return { status: 200, contentType: JSON_TYPE, body: membersDoc(store, group) };
  const ids = memberIds(ctx.body(JSON_TYPE));
  const unknown = ids.filter((id) => !store.mappings.has(id));
  if (unknown.length > 0)
    throw new ProblemError(
      404,
      `user(s) not found: ${unknown.slice(0, 5).join(", ")}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ""}; nothing was changed`,
    );
  for (const id of ids) {
    const rec = store.mappings.get(id) as MappingRec;
    const member = rec.groups.includes(group);
    if (action === "addMembers" && !member) store.putMapping({ ...rec, groups: [...rec.groups, group] });
    if (action === "removeMembers" && member)
      store.putMapping({ ...rec, groups: rec.groups.filter((g) => g !== group) });
  }
  return { status: 204 };
}

function membersDoc(store: Store, group: string): { members: Array<{ id: string; name?: string }> } {
  const ids = [...store.membersOf(group)].sort();
  return {
    members: ids.map((id) => {
      const rec = store.mappings.get(id) as MappingRec;
      const name = [rec.firstname, rec.lastname].filter((n) => n).join(" ");
      return name === "" ? { id } : { id, name };
    }),
  };
}

/** The ids of a `UserManagementUserGroupMembers` body; 400 naming what is wrong. */
function memberIds(body: unknown): string[] {
  if (!isObject(body) || !Array.isArray(body["members"]))
    throw new ProblemError(400, "body must be {members: [{id}, ...]}");
  for (const key of Object.keys(body))
    if (key !== "members") throw new ProblemError(400, `body: unknown property ${key}`);
  return body["members"].map((m: unknown, i) => {
    if (!isObject(m) || typeof m["id"] !== "string" || m["id"] === "")
      throw new ProblemError(400, `members[${i}] must be {id: string}`);
    return m["id"];
  });
}

export function handleRemoveUsersUserGroups(ctx: RouteContext): Reply {
  allowOnly(ctx, "POST", "removeUsersUserGroups");
  const body = ctx.body(JSON_TYPE);
  if (!Array.isArray(body)) throw new ProblemError(400, "body must be a list of {id, type}");
  const users: string[] = [];
  const groups = new Set<string>();
  body.forEach((a: unknown, i) => {
    if (!isObject(a) || typeof a["id"] !== "string" || (a["type"] !== "user" && a["type"] !== "userGroup"))
      throw new ProblemError(400, `[${i}] must be {id: string, type: "user" | "userGroup"}`);
    if (a["type"] === "user") users.push(a["id"]);
    else groups.add(a["id"]);
  });
  const { store } = ctx;
  for (const g of groups) {
    const staying = [...store.groups.values()].filter((c) => c.parents.includes(g) && !groups.has(c.id));
    if (store.groups.has(g) && staying.length > 0)
      throw new ProblemError(
        409,
        `userGroup ${g} still has child group(s) ${staying.map((c) => c.id).join(", ")}; nothing was deleted`,
      );
  }
  for (const id of users) store.deleteMapping(id);
  for (const g of groups) {
    if (!store.groups.has(g)) continue;
    for (const id of [...store.membersOf(g)]) {
      const rec = store.mappings.get(id) as MappingRec;
      store.putMapping({ ...rec, groups: rec.groups.filter((x) => x !== g) });
    }
    store.deleteGroup(g);
  }
  return { status: 200 };
}
