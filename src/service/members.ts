/**
 * Bulk membership (profile v1): `POST /api/v1/actions/userManagement/userGroups/{id}/addMembers`
 * and `.../removeMembers` with `{members: [{id}]}` (204), and `GET .../members` to read a group
 * back (`{members: [{id, name}]}`, one answer, not paged). A 404 or 405 is returned, not thrown:
 * the executor decides whether it means "no such group" or "no such endpoint".
 */
import { MEMBERS_ANSWER } from "./answers.js";
import { JSON_MEDIA } from "./codec.js";
import type { Transport } from "./transport.js";
import type { CallOptions, MembersRead, MembersResult } from "./types.js";

const groupPath = (base: string, groupId: string, action: string): string =>
  `${base}/userGroups/${encodeURIComponent(groupId)}/${action}`;

/** `base`: the profile's userManagement path, or undefined when it has none (nothing is sent). */
export async function readGroupMembers(
  t: Transport,
  base: string | undefined,
  groupId: string,
): Promise<MembersRead> {
  if (base === undefined) return { status: "unavailable" };
  const path = groupPath(base, groupId, "members");
  // The read-back decides whether a change landed: it is checked like every answer (answers.ts).
  const { status, json } = await t.request({
    method: "GET",
    path,
    mediaType: JSON_MEDIA,
    accept: [404, 405],
    answer: MEMBERS_ANSWER,
  });
  if (status === 404) return { status: "notFound" };
  if (status === 405) return { status: "unavailable" };
  const ids = json.members.map((m) => m.id);
  return { status: "read", members: [...new Set(ids)].sort() };
}

export async function changeGroupMembers(
  t: Transport,
  base: string | undefined,
  change: { groupId: string; op: "add" | "remove"; userIds: readonly string[] },
  opts?: CallOptions,
): Promise<MembersResult> {
  if (base === undefined) return "unavailable";
  const { status } = await t.request({
    method: "POST",
    path: groupPath(base, change.groupId, change.op === "add" ? "addMembers" : "removeMembers"),
    mediaType: JSON_MEDIA,
    body: { members: change.userIds.map((id) => ({ id })) },
    idempotent: true,
    accept: [404, 405],
    call: opts,
  });
  return status === 404 ? "notFound" : status === 405 ? "unavailable" : "done";
}
