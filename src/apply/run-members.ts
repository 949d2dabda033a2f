/**
 * Carries out one bulk membership step (src/plan/bulk.ts): one POST of `addMembers` or
 * `removeMembers`, which the client retries like a PUT (both are idempotent). What can go wrong,
 * and what follows (docs/architecture.md, "Bulk membership"):
 * - the answer is lost, or 5xx until the retries ran out: the group's members are read back, and
 *   the step succeeded when they show the change (`recovered: "readBack"`);
 * - 405, or 404 for a group that exists but whose members cannot be read: the service has no
 *   such endpoints. One notice, and from then on every bulk step of the run moves its people one
 *   mapping PUT each (read the mapping, change its groups, write it back: `recovered: "perPerson"`);
 * - 404 for a group whose members can be read: a member is unknown (deleted since the plan), so
 *   this step moves its people one by one and the others still move;
 * - 404 for a group that is gone: the step fails (re-run plan).
 */
import { AnswerError, HttpError, NetworkError } from "../errors.js";
import type { MembersStep } from "../plan/types.js";
import type { CallOptions, Mapping, ServiceClient } from "../service/types.js";
import { StepFailure } from "./step-failure.js";

/** What running a bulk step needs (a part of run-step.ts's StepContext). */
export interface MembersContext {
  client: ServiceClient;
  callOptions: CallOptions;
  members: MembersRun;
  /** Aborted: the per-person fallback moves nobody more. */
  signal?: AbortSignal | undefined;
}
type StepContext = MembersContext;

/** What the bulk steps of one run share. */
export interface MembersRun {
  /** Set (with the evidence) once a bulk request showed the service has no such endpoint. */
  perPerson?: string;
  /** Each person's fallback writes, chained, so two steps never read-modify-write one mapping at once. */
  locks: Map<string, Promise<unknown>>;
  /** Says it once, when `perPerson` is first set. */
  notice(message: string): void;
}

export function createMembersRun(notice: (message: string) => void): MembersRun {
  return { locks: new Map(), notice };
}

type Op = "add" | "remove";
const opOf = (step: MembersStep): Op => (step.kind === "addMembers" ? "add" : "remove");
const action = (op: Op): string => (op === "add" ? "addMembers" : "removeMembers");

export async function runMembersStep(
  step: MembersStep,
  ctx: StepContext,
): Promise<{ recovered?: "readBack" | "perPerson" }> {
  const run = ctx.members;
  if (run.perPerson === undefined) {
    const sent = await sendBulk(step, ctx);
    if (sent === "done") return {};
    if (sent === "readBack") return { recovered: "readBack" };
    if (sent === "unavailable" && run.perPerson === undefined) {
      run.perPerson = `POST .../${step.target}/${action(opOf(step))} showed no such endpoint`;
      run.notice(
        `the service has no bulk membership endpoints (${run.perPerson}): the rest of this run moves people between groups one mapping PUT each (a read and a write per person)`,
      );
    }
  }
  await movePerPerson(step, ctx);
  return { recovered: "perPerson" };
}

/** One bulk request: done, settled by a read-back, or what a 404/405 turned out to mean. */
async function sendBulk(
  step: MembersStep,
  ctx: StepContext,
): Promise<"done" | "readBack" | "unavailable" | "memberUnknown"> {
  const { client } = ctx;
  const op = opOf(step);
  let answer;
  try {
    answer = await client.changeGroupMembers(
      { groupId: step.target, op, userIds: step.members },
      ctx.callOptions,
    );
  } catch (err) {
    if (mayHaveLanded(err) && (await landed(step, ctx).catch(() => false))) return "readBack";
    throw err;
  }
  if (answer !== "notFound") return answer;
  // 404: no such group, a member unknown, or no such endpoint. Reads tell them apart.
  const read = await client.getGroupMembers(step.target);
  if (read.status === "read") return "memberUnknown";
  if (read.status === "unavailable" || (await client.getGroup(step.target)) !== undefined)
    return "unavailable";
  throw new StepFailure({
    message: `group ${step.target} disappeared since the plan was made (POST .../${action(op)} answered 404); re-run plan`,
    status: 404,
  });
}

/** A failure after which the change may still have been carried out: no answer, or a transient error. */
function mayHaveLanded(err: unknown): boolean {
  return (
    (err instanceof HttpError || err instanceof NetworkError || err instanceof AnswerError) && err.retryable
  );
}

/** The group's members, read back, show the step's change. */
async function landed(step: MembersStep, ctx: StepContext): Promise<boolean> {
  const read = await ctx.client.getGroupMembers(step.target);
  if (read.status !== "read") return false;
  const members = new Set(read.members);
  return opOf(step) === "add"
    ? step.members.every((id) => members.has(id))
    : step.members.every((id) => !members.has(id));
}

/** Every person of the step by their own mapping PUT; the step fails when anyone was not moved. */
async function movePerPerson(step: MembersStep, ctx: StepContext): Promise<void> {
  const op = opOf(step);
  const errors: unknown[] = [];
  await Promise.all(
    step.members.map((id) =>
      withLock(ctx.members.locks, id, async () => {
        if (ctx.signal?.aborted) throw new StepFailure({ message: `${id} not moved: interrupted` });
        await movePerson({ id, group: step.target, op }, ctx);
      }).catch((err: unknown) => void errors.push(err)),
    ),
  );
  if (errors.length === 0) return;
  const fatal = errors.find((e) => e instanceof HttpError && e.fatal);
  if (fatal) throw fatal;
  const first = errors[0] instanceof Error ? errors[0].message : String(errors[0]);
  throw new StepFailure({
    message: `${errors.length} of ${step.members.length} people not moved ${op === "add" ? "into" : "out of"} group ${step.target} one by one; the first: ${first}`,
  });
}

async function movePerson(p: { id: string; group: string; op: Op }, ctx: StepContext): Promise<void> {
  const found = await ctx.client.getMapping(p.id);
  if (found === undefined) {
    if (p.op === "remove") return;
    throw new StepFailure({ message: `mapping ${p.id} disappeared since the plan was made; re-run plan` });
  }
  const member = found.groups.includes(p.group);
  if (member === (p.op === "add")) return;
  const groups =
    p.op === "add" ? [...found.groups, p.group].sort() : found.groups.filter((g) => g !== p.group);
  const mapping: Mapping = { ...found, groups };
  await ctx.client.updateMapping(mapping, ctx.callOptions);
}

/** Runs `fn` after every earlier call for `key` settled. */
function withLock<T>(locks: Map<string, Promise<unknown>>, key: string, fn: () => Promise<T>): Promise<T> {
  const next = (locks.get(key) ?? Promise.resolve()).then(fn, fn);
  const tail = next.catch(() => undefined);
  locks.set(key, tail);
  void tail.then(() => {
    if (locks.get(key) === tail) locks.delete(key);
  });
  return next;
}
