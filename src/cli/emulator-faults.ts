/**
 * `usersync emulator --faults FILE`: the emulator's `faults` option (src/emulator/types.ts) read
 * from a YAML or JSON file and validated before the server starts, every problem at once with its
 * key, line and what is allowed (a ConfigError: exit 4), in the config loader's style.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { keyLines, parseYaml } from "../desired/index.js";
import {
  BROKEN_ANSWER_MODES,
  DEFAULT_OVERSIZE_BYTES,
  DEFAULT_TRICKLE_MS,
  RESET_HEADER_MODES,
  type BrokenAnswerRule,
  type EmulatorFaults,
  type ResetHeaderMode,
} from "../emulator/index.js";
import { ConfigError, formatProblem, type Problem } from "../errors.js";
import { closest } from "../suggest.js";

const SHARE = "must be a share of requests between 0 and 1 (e.g. 0.05 for 5%)";
const share = z.number({ error: SHARE }).min(0, SHARE).max(1, SHARE);
const MS = "must be a number of milliseconds, 0 or more";
const ms = z.number({ error: MS }).min(0, MS);
const whole = (min: number, what: string) => {
  const message = `must be a whole number of ${what}, ${min} or more`;
  return z.number({ error: message }).int(message).min(min, message);
};

const pathPattern = z
  .string({ error: 'must be a regular expression as a string, e.g. "^/api/v1/entities/"' })
  .transform((source, ctx) => {
    try {
      return new RegExp(source);
    } catch (err) {
      const why = (err as Error).message.replace(/^Invalid regular expression: /, "");
      ctx.issues.push({
        code: "custom",
        input: source,
        message: `is not a valid regular expression (${why}): write a JavaScript regular expression matched against the request path, e.g. "^/api/v1/entities/"`,
      });
      return z.NEVER;
    }
  });

const rateLimitShape = {
  limit: whole(0, "requests per window"),
  windowSeconds: whole(1, "seconds"),
  resetHeader: z
    .enum(RESET_HEADER_MODES, { error: `must be one of ${RESET_HEADER_MODES.join(", ")}` })
    .optional(),
};

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

// Every key of BrokenAnswerRule, and no other.
const brokenRuleShape = {
  mode: z.enum(BROKEN_ANSWER_MODES, { error: `must be one of ${BROKEN_ANSWER_MODES.join(", ")}` }),
  pathPattern: pathPattern.optional(),
  methods: z
    .array(z.enum(METHODS, { error: `must be one of ${METHODS.join(", ")}` }), {
      error: "must be a list of methods, e.g. [GET]",
    })
    .optional(),
  share: share.optional(),
  intervalMs: whole(1, "milliseconds").optional(),
  bytes: whole(1, "bytes").optional(),
} satisfies Record<keyof BrokenAnswerRule, z.ZodType>;

// Every key of EmulatorFaults, and no other: the compiler keeps the file's keys in step.
const faultsShape = {
  latencyMs: ms.optional(),
  jitterMs: ms.optional(),
  error500: share.optional(),
  error503: share.optional(),
  throttle429: share.optional(),
  retryAfterSeconds: whole(0, "seconds").optional(),
  dropConnection: share.optional(),
  loseAnswer: share.optional(),
  rateLimit: z
    .strictObject(rateLimitShape, { error: "must be a mapping of limit, windowSeconds, resetHeader" })
    .optional(),
  duplicateIdpAs400: z.boolean({ error: "must be true or false" }).optional(),
  pathPattern: pathPattern.optional(),
  brokenAnswers: z
    .array(z.strictObject(brokenRuleShape, { error: "must be a mapping with mode and its settings" }), {
      error: "must be a list of rules, each with a mode (see docs/emulator.md)",
    })
    .optional(),
  seed: z.number({ error: "must be a whole number" }).int("must be a whole number").optional(),
} satisfies Record<keyof EmulatorFaults, z.ZodType>;

const faultsSchema = z.strictObject(faultsShape);

/** The keys a mapping may have, by its path in the file (for "did you mean"). */
const KEYS: Record<string, readonly string[]> = {
  "": Object.keys(faultsShape),
  rateLimit: Object.keys(rateLimitShape),
  "brokenAnswers.*": Object.keys(brokenRuleShape),
};
/** The KEYS entry of a mapping's path: list items share one (`brokenAnswers.2` -> `brokenAnswers.*`). */
const keysOf = (base: string): readonly string[] => KEYS[base.replace(/\.\d+$/, ".*")] ?? [];

/** The shares one draw decides between, stacked as bands on [0, 1) (src/emulator/faults.ts). */
const BANDS = ["dropConnection", "error500", "error503", "throttle429", "loseAnswer"] as const;

/** Reads and validates a faults file; throws a ConfigError naming every problem. */
export async function loadFaultsFile(file: string): Promise<EmulatorFaults> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as { code?: string }).code ?? "unknown error";
    throw faultsError(file, [
      {
        file,
        rule: "file-not-found",
        message: `cannot read the faults file (${code}): check the --faults path`,
      },
    ]);
  }
  const parsed = parseYaml(text, file);
  if (parsed.problems) throw faultsError(file, parsed.problems);
  const { data } = parsed.yaml;
  if (data === null || data === undefined) return {};
  if (typeof data !== "object" || Array.isArray(data))
    throw faultsError(file, [
      {
        file,
        line: 1,
        rule: "bad-type",
        message: `a faults file is a mapping of fault settings: ${KEYS[""]!.join(", ")} (see docs/emulator.md)`,
      },
    ]);
  const at = locator(file, keyLines(parsed.yaml));
  const result = faultsSchema.safeParse(data);
  const problems = [
    ...(result.success ? [] : schemaProblems(result.error.issues, data, at)),
    ...bandProblems(data as Record<string, unknown>, at),
  ];
  if (problems.length > 0 || !result.success) throw faultsError(file, problems);
  // Absent keys stay absent in zod's output, so the optional members are never `undefined`.
  return result.data as EmulatorFaults;
}

type Issue = z.ZodError["issues"][number];
type Where = Pick<Problem, "file" | "line" | "field">;
type Locate = (field: string) => Where;

/** Where a key is: its line, or its mapping's when the key is missing. */
function locator(file: string, lines: ReadonlyMap<string, number>): Locate {
  return (field) => {
    for (let p = field; p !== ""; p = p.includes(".") ? p.slice(0, p.lastIndexOf(".")) : "") {
      const line = lines.get(p);
      if (line !== undefined) return { file, line, field };
    }
    return { file, field };
  };
}

function schemaProblems(issues: readonly Issue[], data: unknown, at: Locate): Problem[] {
  const problems: Problem[] = [];
  for (const issue of issues) {
    const base = issue.path.map(String).join(".");
    if (issue.code !== "unrecognized_keys") {
      const missing = valueAt(data, issue.path) === undefined;
      const message = missing ? `is required: it ${issue.message}` : issue.message;
      problems.push({ ...at(base), rule: missing ? "required" : "faults-schema", message });
      continue;
    }
    for (const key of issue.keys) {
      const field = base ? `${base}.${key}` : key;
      const known = keysOf(base);
      const near = closest(key, known);
      const hint = near ? `did you mean ${near}? ` : "";
      const where = base ? `${base} takes` : "the keys are";
      problems.push({
        ...at(field),
        rule: "unknown-key",
        message: `unknown key; ${hint}${where} ${known.join(", ")} (see docs/emulator.md)`,
      });
    }
  }
  return problems;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (v, k) => (v && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    data,
  );
}

/** One draw decides each request's fault, so the shares of the bands may add up to at most 1. */
function bandProblems(data: Record<string, unknown>, at: Locate): Problem[] {
  const set = BANDS.filter((k) => typeof data[k] === "number" && data[k] >= 0 && data[k] <= 1);
  const total = set.reduce((sum, k) => sum + (data[k] as number), 0);
  if (total <= 1 + 1e-9) return [];
  return [
    {
      ...at(set[set.length - 1]!),
      rule: "shares-over-1",
      message: `${set.join(" + ")} add up to ${round(total)}: one draw decides each request's fault (stacked as bands in that order), so together they may be at most 1`,
    },
  ];
}

function faultsError(file: string, unsorted: Problem[]): ConfigError {
  const problems = [...unsorted].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const lines = problems.map((p) => `  ${formatProblem(p)}`).join("\n");
  const count = `${problems.length} problem${problems.length === 1 ? "" : "s"}`;
  return new ConfigError({
    message: `invalid faults file ${file} (${count}); nothing was started:\n${lines}`,
    problems,
  });
}

function round(n: number): number {
  return Number(n.toPrecision(6));
}

/** The one line that says which faults are active, e.g. "faults: 7.5% 500, 5% 429 (Retry-After 1 s)". */
export function describeFaults(f: Readonly<EmulatorFaults>): string {
  const pct = (share: number): string => `${round(share * 100)}%`;
  const parts: string[] = [];
  if (f.dropConnection) parts.push(`${pct(f.dropConnection)} dropped connections`);
  if (f.error500) parts.push(`${pct(f.error500)} 500`);
  if (f.error503) parts.push(`${pct(f.error503)} 503`);
  if (f.throttle429) parts.push(`${pct(f.throttle429)} 429 (Retry-After ${f.retryAfterSeconds ?? 1} s)`);
  if (f.loseAnswer)
    parts.push(`${pct(f.loseAnswer)} lost answers to writes (carried out, connection dropped)`);
  if (f.rateLimit) {
    const { limit, windowSeconds, resetHeader } = f.rateLimit;
    parts.push(
      `rate limit ${limit} per ${windowSeconds} s window (${RESET_HEADERS[resetHeader ?? "delta"]})`,
    );
  }
  if (f.latencyMs || f.jitterMs)
    parts.push(`latency ${f.latencyMs ?? 0} ms${f.jitterMs ? ` + up to ${f.jitterMs} ms jitter` : ""}`);
  if (f.duplicateIdpAs400) parts.push("a duplicate IdP create answers 400");
  for (const rule of f.brokenAnswers ?? []) parts.push(describeBroken(rule));
  if (parts.length === 0) return "faults: none";
  const scope = [
    f.pathPattern ? `only on paths matching ${patternText(f.pathPattern)}` : undefined,
    f.seed !== undefined ? `seed ${f.seed}` : undefined,
  ].filter(Boolean);
  return `faults: ${parts.join(", ")}${scope.length > 0 ? `; ${scope.join("; ")}` : ""}`;
}

/** e.g. "trickle answers (a byte every 500 ms) to 100% of GET on paths matching ^/api/v1/auth/users$" */
function describeBroken(rule: BrokenAnswerRule): string {
  const how =
    rule.mode === "trickle"
      ? ` (a byte every ${rule.intervalMs ?? DEFAULT_TRICKLE_MS} ms)`
      : rule.mode === "oversize"
        ? ` (${rule.bytes ?? DEFAULT_OVERSIZE_BYTES} bytes)`
        : "";
  const where = rule.pathPattern ? ` on paths matching ${patternText(rule.pathPattern)}` : "";
  const share = `${round((rule.share ?? 1) * 100)}%`;
  return `${rule.mode} answers${how} to ${share} of ${(rule.methods ?? ["GET"]).join("/")}${where}`;
}

/** The pattern as written in the file (RegExp.source escapes every slash). */
const patternText = (re: RegExp): string => re.source.replace(/\\\//g, "/");

const RESET_HEADERS: Record<ResetHeaderMode, string> = {
  delta: "X-RateLimit-Reset as seconds until the window ends",
  "epoch-seconds": "X-RateLimit-Reset as epoch seconds",
  "epoch-ms": "X-RateLimit-Reset as epoch milliseconds",
  ietf: "IETF RateLimit and RateLimit-Policy headers",
};
