/**
 * A targeted listing (docs/sources.md, "Changes-only runs"): after a changes-only read that
 * touched at most `source.changes.maxPeople` people, only those people are read on the service
 * (their mapping, their login), with the caller's own mapping and every group, instead of the
 * whole organization; the plan is made for them with the same rules, and the deletion guard's
 * percentage counts the managed users of the last whole listing (the changes file).
 *
 * Whole instead, whenever the narrow view could plan differently from a whole one: a run that
 * manages permissions or data filters (their listings are per workspace), `policy.revokeAfter`
 * (the grace record is written from a whole view), no count of managed users kept yet, or a
 * touched person who is present in the source but has no mapping under their id (a joiner may
 * have to be adopted from a mapping under another id, which only a whole listing finds).
 */
import type { Logger } from "pino";
import type { DesiredState } from "../desired/index.js";
import type { Policy } from "../plan/index.js";
import type { ActualState, IdpUser, Mapping, ServiceClient } from "../service/types.js";

export async function listTargeted(o: {
  client: ServiceClient;
  desired: DesiredState;
  policy: Policy;
  jit: boolean;
  logger: Logger;
}): Promise<{ actual: ActualState; desired: DesiredState } | undefined> {
  const t = o.desired.targeted;
  const read = o.desired.evidence?.read;
  if (t === undefined || read === undefined || read.source !== "changes") return undefined;
  const why = (reason: string) => {
    o.logger.info({ people: t.people.length }, `listing the whole organization: ${reason}`);
    return undefined;
  };
  if (o.policy.revokeAfter !== undefined)
    return why("policy.revokeAfter keeps its record from a whole listing");
  if (t.managedUsers === undefined) return why("no count of managed users kept from a whole listing yet");
  // Nothing the source says changed: nothing to list, nothing to plan (the full reconcile looks at the rest).
  if (t.people.length === 0 && !t.groupsChanged) {
    read.listing = "targeted";
    read.people = 0;
    const desired: DesiredState = { ...o.desired, users: [], groups: [] };
    return { actual: { idpUsers: [], mappings: [], groups: [] }, desired };
  }
  const people = new Set(t.people);
  const desiredUsers = o.desired.users.filter((u) => people.has(u.id));
  const [profile, groups, jit] = await Promise.all([
    o.client.getProfile(),
    o.client.listGroups(),
    o.jit ? o.client.jitProvisioning?.() : undefined,
  ]);
  const ids = [...new Set([...people, ...(profile ? [profile.userId] : [])])].sort();
  const mappings = (await Promise.all(ids.map((id) => o.client.getMapping(id)))).filter(
    (m): m is Mapping => m !== undefined,
  );
  const mapped = new Set(mappings.map((m) => m.id));
  const joiner = desiredUsers.find((u) => u.state === "present" && !mapped.has(u.id));
  if (joiner !== undefined)
    return why(`${joiner.id} has no mapping under that id yet (a joiner is adopted from a whole listing)`);
  const emails = [
    ...new Set([
      ...mappings.filter((m) => m.id !== profile?.userId).map((m) => m.email),
      ...desiredUsers.map((u) => u.email),
    ]),
  ].filter((e): e is string => typeof e === "string" && e !== "");
  const idpUsers = (await Promise.all(emails.map((e) => o.client.getIdpUser(e)))).filter(
    (u): u is IdpUser => u !== undefined,
  );
  const actual: ActualState = { idpUsers, mappings, groups };
  if (profile) actual.callerId = profile.userId;
  if (jit) actual.jit = jit;
  read.listing = "targeted";
  read.people = people.size;
  const desired: DesiredState = { ...o.desired, users: desiredUsers };
  Object.defineProperty(desired, "targeted", { value: t, enumerable: false });
  return { actual, desired };
}
