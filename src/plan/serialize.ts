/**
 * A saved plan is versioned data: written deterministically, and a file of another
 * `formatVersion` or of the wrong shape is rejected with an InputError naming the file. Version
 * 2 added step kinds only, so a version-1 plan is read as the version-2 plan it also is.
 */
import { InputError, type Problem } from "../errors.js";
import { isStepKind, nounOf } from "./kinds.js";
import { summarizePlan } from "./summary.js";
import { PLAN_FORMAT_VERSION, type Plan } from "./types.js";

/** Every version this usersync reads: each one's plans are valid plans of the next. */
const READABLE_VERSIONS: readonly unknown[] = [1, PLAN_FORMAT_VERSION];

/** `summary` right after `formatVersion`, so a person opening the file reads it first. */
export function serializePlan(plan: Plan): string {
  const { formatVersion, ...rest } = plan;
  return `${JSON.stringify({ formatVersion, summary: summarizePlan(plan), ...rest }, null, 2)}\n`;
}

export function isEmptyPlan(plan: Plan): boolean {
  return plan.steps.length === 0;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === "string");

/** The first thing wrong with the shape of a parsed plan, or undefined. */
function shapeProblem(v: Record<string, unknown>): { field: string; message: string } | undefined {
  for (const f of ["profile", "mode", "membership", "deletions", "inputFingerprint"])
    if (typeof v[f] !== "string") return { field: f, message: "must be a string" };
  for (const f of ["objects", "counts", "deleteGuard", "estimate"])
    if (!isRecord(v[f])) return { field: f, message: "must be an object" };
  if (!Array.isArray(v["notices"])) return { field: "notices", message: "must be an array" };
  const steps = v["steps"];
  if (!Array.isArray(steps)) return { field: "steps", message: "must be an array" };
  const ids = new Set<string>();
  for (const [i, s] of steps.entries()) {
    const field = `steps[${i}]`;
    if (!isRecord(s)) return { field, message: "must be an object" };
    if (typeof s["id"] !== "string" || ids.has(s["id"]))
      return { field: `${field}.id`, message: "must be a unique string" };
    ids.add(s["id"]);
    if (typeof s["kind"] !== "string" || !isStepKind(s["kind"]))
      return { field: `${field}.kind`, message: "unknown step kind" };
    if (typeof s["target"] !== "string") return { field: `${field}.target`, message: "must be a string" };
    if (s["status"] !== "planned" && s["status"] !== "heldBack")
      return { field: `${field}.status`, message: "must be planned or heldBack" };
    if (!isStringArray(s["dependsOn"]) || !isStringArray(s["touches"]))
      return { field, message: "dependsOn and touches must be lists of strings" };
    if (nounOf(s["kind"]) === "members" && !isStringArray(s["members"]))
      return { field: `${field}.members`, message: "must be a list of user ids" };
    if (nounOf(s["kind"]) === "dataFilter" && !validFilterStep(s))
      return {
        field,
        message: "a data filter step needs workspace, filterId, assignee {type, id} and its maql",
      };
    if (
      s["kind"] === "deleteApiToken" &&
      !(typeof s["userId"] === "string" && typeof s["tokenId"] === "string")
    )
      return { field, message: "an API token step needs userId and tokenId" };
    if (nounOf(s["kind"]) === "permissions" && !validChanges(s["changes"]))
      return {
        field: `${field}.changes`,
        message: "must be a list of {assignee: {type, id}, before, after}",
      };
  }
  for (const [i, s] of steps.entries())
    for (const d of (s as { dependsOn: string[] }).dependsOn)
      if (!ids.has(d)) return { field: `steps[${i}].dependsOn`, message: `names an unknown step '${d}'` };
  const org = v["organization"];
  if (
    org !== undefined &&
    !(isRecord(org) && typeof org["url"] === "string" && ["string", "undefined"].includes(typeof org["id"]))
  )
    return { field: "organization", message: "must be an object with url and, where known, id (strings)" };
  return v["grace"] === undefined ? undefined : graceProblem(v["grace"]);
}

/** What the executor reads of a data filter step (docs/data-filters.md). */
function validFilterStep(s: Record<string, unknown>): boolean {
  const a = s["assignee"];
  const maql = (k: string): boolean =>
    isRecord(s[k]) && typeof (s[k] as Record<string, unknown>)["maql"] === "string";
  return (
    typeof s["workspace"] === "string" &&
    typeof s["filterId"] === "string" &&
    isRecord(a) &&
    (a["type"] === "user" || a["type"] === "userGroup") &&
    typeof a["id"] === "string" &&
    (s["kind"] === "deleteDataFilter" || maql("after")) &&
    (s["kind"] === "createDataFilter" || maql("before"))
  );
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** `grace` decides what `apply --plan` writes to the state file: its shape is checked too. */
function graceProblem(g: unknown): { field: string; message: string } | undefined {
  if (!isRecord(g) || typeof g["revokeAfter"] !== "string" || !ISO_TIME.test(String(g["now"])))
    return { field: "grace", message: "must be an object with revokeAfter and now (ISO 8601)" };
  for (const list of ["pending", "due"] as const) {
    const people = g[list];
    if (!Array.isArray(people)) return { field: `grace.${list}`, message: "must be an array" };
    for (const [i, p] of people.entries()) {
      const times = list === "pending" ? [p?.since, p?.until] : [p?.since];
      if (
        !isRecord(p) ||
        typeof p["target"] !== "string" ||
        !times.every((t) => ISO_TIME.test(String(t))) ||
        (p["reason"] !== "missing" && p["reason"] !== "created")
      )
        return { field: `grace.${list}[${i}]`, message: "must have a target, ISO 8601 times and a reason" };
    }
  }
  return undefined;
}

/** The changes of a permission step: each names an assignee and carries what it holds before and after. */
function validChanges(v: unknown): boolean {
  return (
    Array.isArray(v) &&
    v.every((c) => {
      if (!isRecord(c) || !isRecord(c["assignee"])) return false;
      const a = c["assignee"];
      return (
        (a["type"] === "user" || a["type"] === "userGroup") &&
        typeof a["id"] === "string" &&
        "before" in c &&
        "after" in c
      );
    })
  );
}

export function parsePlan(text: string, file: string): Plan {
  const fail = (p: Omit<Problem, "file">): never => {
    throw new InputError({
      message: `${file} is not a usable plan: ${p.message}`,
      problems: [{ file, ...p }],
    });
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return fail({
      rule: "plan-json",
      message: `not valid JSON (${(err as Error).message}); save a plan with 'usersync plan --out'`,
    });
  }
  if (!isRecord(value)) return fail({ rule: "plan-shape", message: "not a JSON object" });
  if (!READABLE_VERSIONS.includes(value["formatVersion"]))
    return fail({
      rule: "plan-format-version",
      field: "formatVersion",
      message: `formatVersion is ${JSON.stringify(value["formatVersion"])}, this usersync reads ${READABLE_VERSIONS.join(" and ")}; make the plan again with this version`,
    });
  const problem = shapeProblem(value);
  if (problem)
    return fail({ rule: "plan-shape", field: problem.field, message: `${problem.field} ${problem.message}` });
  // `summary` is derived from the steps (and absent from plans saved before it existed):
  // recomputed when needed, never trusted from the file.
  const { summary: _summary, ...plan } = value;
  return { ...plan, formatVersion: PLAN_FORMAT_VERSION } as unknown as Plan;
}
