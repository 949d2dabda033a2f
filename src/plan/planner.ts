/**
 * plan(desired, actual, policy, profile) → Plan. Pure and deterministic: no I/O, no clock, no
 * randomness; the same inputs (in any order) give byte-identical JSON. The rules are written
 * down in docs/plan-format.md, "Planning rules".
 */
import { createHash } from "node:crypto";
import type { DesiredState } from "../desired/types.js";
import type { ActualState, ApiProfile } from "../service/types.js";
import { compareStrings, makeContext, type PlanContext } from "./context.js";
import { planAbsentUser, planUnlisted } from "./deletions.js";
import { defaultLimits, estimate, type Limits } from "./estimate.js";
import {
  ABSENT,
  canonicalJson,
  fingerprintGroup,
  fingerprintIdpUser,
  fingerprintMapping,
} from "./fingerprint.js";
import { planGroupPrune, planGroups } from "./groups.js";
import { applyDeleteGuard } from "./guard.js";
import { orderSteps } from "./order.js";
import type { Policy } from "./policy.js";
import { mappingKey, notice } from "./steps.js";
import { PLAN_FORMAT_VERSION, type Notice, type Plan, type PlanCounts, type Step } from "./types.js";
import { planPresentUser } from "./users.js";

export interface PlanInput {
  desired: DesiredState;
  actual: ActualState;
  policy: Policy;
  profile: ApiProfile;
  limits?: Limits;
}

export function plan(input: PlanInput): Plan {
  const ctx = makeContext(input);
  planGroups(ctx);
  for (const d of input.desired.users) {
    if (d.state === "absent") planAbsentUser(ctx, d);
    else planPresentUser(ctx, d);
  }
  reportSharedAuthenticationIds(ctx);
  const managedUsers = planUnlisted(ctx);
  planGroupPrune(ctx);
  const deleteGuard = applyDeleteGuard(ctx, managedUsers);
  const steps = orderSteps(ctx);
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    profile: input.profile,
    mode: input.policy.mode,
    membership: input.policy.membership,
    deletions: input.policy.deletions,
    inputFingerprint: inputFingerprint(input),
    objects: touchedObjects(ctx, steps),
    steps,
    notices: ctx.notices.sort(compareNotices),
    counts: countSteps(steps),
    deleteGuard,
    estimate: estimate(steps, input.limits ?? defaultLimits),
  };
}

/** Existing mappings sharing one authenticationId: only one of them can log in. */
function reportSharedAuthenticationIds(ctx: PlanContext): void {
  for (const [, holders] of ctx.idx.sharedAuth) {
    const ids = holders.map((m) => m.id).sort(compareStrings);
    const message = `mappings ${ids.join(", ")} share one authenticationId; only one of them can log in`;
    notice(ctx, { kind: "conflict", target: mappingKey(ids[0] ?? ""), message });
  }
}

function compareNotices(a: Notice, b: Notice): number {
  return (
    compareStrings(a.kind, b.kind) ||
    compareStrings(a.target, b.target) ||
    compareStrings(a.message, b.message)
  );
}

export function countSteps(steps: readonly Step[]): PlanCounts {
  const counts: PlanCounts = { create: 0, update: 0, delete: 0, heldBack: 0 };
  for (const s of steps) {
    if (s.status === "heldBack") counts.heldBack++;
    else if (s.kind.startsWith("create")) counts.create++;
    else if (s.kind.startsWith("update")) counts.update++;
    else counts.delete++;
  }
  return counts;
}

/**
 * The fingerprint of every object a step touches, in the order the (sorted) steps first touch
 * them: deterministic without sorting 100k keys again. Computed only for touched objects.
 */
function touchedObjects(ctx: PlanContext, steps: readonly Step[]): Record<string, string> {
  const out = new Map<string, string>();
  const { idpByEmail, mappingById, groupById } = ctx.idx;
  for (const s of steps)
    for (const key of s.touches) {
      if (out.has(key)) continue;
      const sep = key.indexOf(":");
      const kind = key.slice(0, sep);
      const id = key.slice(sep + 1);
      const idp = kind === "idp" ? idpByEmail.get(id) : undefined;
      const mapping = kind === "mapping" ? mappingById.get(id) : undefined;
      const group = kind === "group" ? groupById.get(id) : undefined;
      out.set(
        key,
        idp
          ? fingerprintIdpUser(idp)
          : mapping
            ? fingerprintMapping(mapping)
            : group
              ? fingerprintGroup(group)
              : ABSENT,
      );
    }
  return Object.fromEntries(out);
}

/**
 * Hash of what was asked: the desired state (without source lines, and with a password replaced
 * by a marker that only says one is present), the policy and the profile. Independent of the
 * order of the users: each user is hashed on its own (32-bit FNV-1a, no string built) and the
 * user hashes are added up in two lanes (as they are and mixed), so 100k users cost neither a
 * sort nor 10 MB of text. It identifies the inputs in reports; nothing relies on it for safety
 * (see `objects`).
 */
function inputFingerprint(input: PlanInput): string {
  let sumA = 0;
  let sumB = 0;
  for (const u of input.desired.users) {
    let h = FNV_OFFSET;
    h = text(h, u.id);
    h = text(h, u.email);
    h = tag(h, u.idDerived ? 1 : 2);
    h = text(h, u.displayName);
    h = text(h, u.firstname);
    h = text(h, u.lastname);
    if (u.groups === undefined) h = tag(h, 3);
    else {
      h = tag(h, 0x400 + (u.groups.length & 0xff));
      for (const g of u.groups) h = text(h, g);
    }
    h = text(h, u.identity);
    h = text(h, u.authenticationId);
    h = tag(h, u.password !== undefined ? 5 : 6);
    h = text(h, u.state);
    sumA = (sumA + h) >>> 0;
    sumB = (sumB + mix(h)) >>> 0;
  }
  const groups = input.desired.groups.map((g) => JSON.stringify([g.id, g.name, g.parents]));
  groups.sort();
  return createHash("sha256")
    .update(canonicalJson({ policy: input.policy, profile: input.profile }))
    .update(`\n${input.desired.users.length}:${sumA}:${sumB}\n`)
    .update(groups.join("\n"))
    .digest("hex")
    .slice(0, 16);
}

const FNV_OFFSET = 0x811c9dc5;

/**
 * One FNV-1a step with a value above any char code, so tags never collide with text. Tags in
 * use: 1–6 flags, 0x100–0x201 around text, 0x400–0x4ff the number of groups.
 */
const tag = (h: number, t: number): number => Math.imul(h ^ (0x10000 + t), 0x01000193);

/** A value framed by tags, so "a","b" differs from "ab" and undefined from "". */
function text(h: number, v: string | undefined): number {
  if (v === undefined) return tag(h, 0x100);
  h = tag(h, 0x101);
  for (let i = 0; i < v.length; i++) h = Math.imul(h ^ v.charCodeAt(i), 0x01000193);
  return tag(h, 0x102 + (v.length & 0xff));
}

/** The murmur3 finaliser: the second lane sums the user hashes after mixing. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
