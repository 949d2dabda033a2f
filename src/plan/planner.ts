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
 * order of the users: each user is hashed on its own (FNV-1a, two 32-bit lanes, no string
 * built) and the user hashes are added up, so 100k users cost neither a sort nor 10 MB of text.
 * It identifies the inputs in reports; nothing relies on it for safety (see `objects`).
 */
function inputFingerprint(input: PlanInput): string {
  let sumA = 0;
  let sumB = 0;
  for (const u of input.desired.users) {
    const h = new UserHasher();
    h.text(u.id).text(u.email).flag(u.idDerived).text(u.displayName).text(u.firstname).text(u.lastname);
    h.list(u.groups)
      .text(u.identity)
      .text(u.authenticationId)
      .flag(u.password !== undefined)
      .text(u.state);
    sumA = (sumA + h.a) >>> 0;
    sumB = (sumB + h.b) >>> 0;
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

/** FNV-1a in two lanes with different offsets; every value is tagged so "a","b" differs from "ab". */
class UserHasher {
  a = 0x811c9dc5;
  b = 0x01000193 ^ 0x5bd1e995;
  private byte(c: number): void {
    this.a = Math.imul(this.a ^ c, 0x01000193) >>> 0;
    this.b = Math.imul(this.b ^ c, 0x0100019d) >>> 0;
  }
  text(v: string | undefined): this {
    if (v === undefined) {
      this.byte(0x100);
      return this;
    }
    this.byte(0x101);
    for (let i = 0; i < v.length; i++) this.byte(v.charCodeAt(i));
    this.byte(0x102 + (v.length & 0xff));
    return this;
  }
  flag(v: boolean): this {
    this.byte(v ? 0x103 : 0x104);
    return this;
  }
  list(v: readonly string[] | undefined): this {
    if (v === undefined) {
      this.byte(0x105);
      return this;
    }
    this.byte(0x106 + (v.length & 0xff));
    for (const x of v) this.text(x);
    return this;
  }
}
