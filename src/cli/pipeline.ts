/**
 * The steps every planning command shares, in the order of the data: config → desired state
 * (validated, all problems at once, before any request) → the service (actual state) → plan.
 */
import type { Logger } from "pino";
import { InputError, formatProblem, type Problem } from "../errors.js";
import { validateForProfile, isError, type DesiredState } from "../desired/index.js";
import { runDay } from "./run-day.js";
import {
  checkOneSource,
  evidenceLine,
  readSource,
  resolveSignIn,
  type SourceResult,
} from "../desired/sources/index.js";
export { checkOneSource } from "../desired/sources/index.js";
import { ineffectiveSettings, loadConfig, toPolicy, type LoadedConfig } from "../config/index.js";
import { createLogger } from "../logging.js";
import type { ActualState } from "../service/index.js";
import {
  plan as makePlan,
  checkPermissionPolicy,
  checkDataFilterPolicy,
  type GraceInput,
  type RecentInput,
  type Plan,
  type Policy,
} from "../plan/index.js";
import { countOrPercentOption, intOption, stringOption, type ParsedValues } from "./args.js";
import { setLogFormat, type Io } from "./io.js";
import { connect, type Connection } from "./target.js";
import type { EmulatorSeed } from "../emulator/index.js";
import { checkMinUsersCount, checkMinUsersShare } from "./min-users.js";
import { lastGroupSizes, loadGrace } from "./run-state.js";
import { loadRecentChanges } from "./recent-changes.js";
import { changesInput, keepAfterApply } from "./changes-file.js";
import { probeBulkMembership } from "./bulk-probe.js";
import { listLeaverTokens } from "./leaver-tokens.js";
import { bindPlan } from "./plan-organization.js";
import { warnGuardTripped } from "./guard-warning.js";
import { listChecked } from "./listing.js";

export interface Runtime {
  config: LoadedConfig;
  logger: Logger;
  io: Io;
  /** `--allow-empty-groups`: believe a picked directory group that emptied since the last successful run. */
  allowEmptyGroups?: boolean;
  /** `--target NAME` of a config with targets: the state file whose changes file the shared read keeps. */
  changesState?: string | undefined;
  /** `plan`/`apply` of one organization: a changes-only read may build the touched people only. */
  partialDesired?: boolean;
  /** A target's slice of the shared source, checked (run-targets.ts); else the config's source is read. */
  desired?: () => Promise<DesiredState>;
  /**
   * `changesPlanned` and `stepsApplied` (steps that succeeded): for `--all-targets`'s summary;
   * `metricsRecorded`: else run-targets.ts records.
   */
  outcome?: { changesPlanned?: boolean; stepsApplied?: number; metricsRecorded?: boolean };
}

export async function loadRuntime(values: ParsedValues, io: Io): Promise<Runtime> {
  const overrides = {
    ...optional("baseUrl", stringOption(values, "base-url")),
    ...optional("desired", stringOption(values, "desired")),
    ...optional("groups", stringOption(values, "groups")),
    ...optional("logLevel", stringOption(values, "log-level")),
    ...optional("logFormat", stringOption(values, "log-format")),
    ...optional("mode", stringOption(values, "mode")),
    ...optional("minUsers", countOrPercentOption(values, "min-users")),
  };
  const config = await loadConfig({
    ...optional("file", stringOption(values, "config")),
    env: io.env,
    cwd: io.cwd,
    overrides,
  });
  const logger = runLogger(io, config.logging);
  for (const warning of config.warnings) logger.warn(warning);
  return { config, logger, io, allowEmptyGroups: values["allow-empty-groups"] === true };
}

/**
 * The run's logger on stderr: `auto` is pretty on a terminal, JSON lines otherwise. The choice
 * is kept for the stream, so a fatal error is written the same way (main.ts).
 */
export function runLogger(io: Io, logging: { level: string; format: "auto" | "json" | "pretty" }): Logger {
  const format = logging.format === "auto" ? (io.stderr.isTTY ? "pretty" : "json") : logging.format;
  setLogFormat(io.stderr, format);
  return createLogger({ level: logging.level, format, destination: io.stderr as NodeJS.WritableStream });
}

export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** Read problems plan checks against the organization once it is listed (service-checks.ts). */
const LATER = new Set(["unknown-parent", "group-name"]);

/**
 * Reads the configured source (src/desired/sources/) and validates what it read: every error at
 * once as an InputError (exit 4); a source that cannot be read, or not wholly, is exit 5.
 */
export async function loadDesired(runtime: Runtime): Promise<DesiredState> {
  // A target's slice, checked as run-targets.ts cuts it.
  if (runtime.desired !== undefined) return runtime.desired();
  checkOneSource(runtime.config);
  const { state, problems } = await readFromSource(runtime);
  // An undeclared parent, a group's name: checked against the organization once listed, not here.
  reportProblems(
    problems.filter((p) => !LATER.has(p.rule)),
    runtime.logger,
  );
  // A count needs nothing from the service: checked before the first request.
  checkMinUsersCount(state, runtime.config);
  return state;
}

/** The source read and proved whole (src/desired/sources/; exit 5 when not, 4 for settings), logged. */
export async function readFromSource(runtime: Runtime): Promise<SourceResult> {
  const { config, logger } = runtime;
  const started = performance.now();
  // With targets:, the shared read is checked per target, against each one's state file (checkedSlice).
  const lastGood =
    config.source.type === "file" || config.targets.length > 0 ? undefined : await lastGroupSizes(config);
  const read = await readSource({
    config,
    ctx: { env: runtime.io.env, logger, defaultIdentity: config.identity.default },
    lastGroupSizes: lastGood,
    allowEmptyGroups: runtime.allowEmptyGroups ?? false,
    changes: await changesInput(config, logger, runtime.changesState, runtime.partialDesired),
  });
  const { keep, touched, groupsChanged } = read;
  const stateFile = runtime.changesState ?? config.state.file;
  keepAfterApply(read.state, { config, logger, keep, touched, groupsChanged, stateFile });
  const { state, evidence } = read;
  // A file's read says nothing a person needs; a directory's says what was read and how it was proved whole.
  if (config.source.type !== "file")
    logger.info(
      {
        users: read.partial?.users ?? state.users.length,
        groups: state.groups.length,
        pages: evidence.reads.reduce((n, r) => n + r.pages, 0),
        skipped: evidence.skipped.reduce((n, s) => n + s.count, 0),
        durationMs: Math.round(performance.now() - started),
      },
      `read ${evidenceLine(evidence)}`,
    );
  return read;
}

/** Logs warnings; throws an InputError listing every error. */
export function reportProblems(problems: Problem[], logger: Logger): void {
  for (const p of problems.filter((p) => !isError(p))) logger.warn({ problem: p.rule }, formatProblem(p));
  const errors = problems.filter(isError);
  if (errors.length > 0) {
    throw new InputError({
      message: `${errors.length} problem${errors.length === 1 ? "" : "s"} in the desired state`,
      problems: errors,
    });
  }
}

export interface Planned {
  connection: Connection;
  desired: DesiredState;
  actual: ActualState;
  policy: Policy;
  plan: Plan;
  /** What was listed: `actual`, or with `review` all the review needs (the plan made from `plan`'s part). */
  listed: ActualState;
}

/**
 * The plan, made again with one mapping PUT per person when it would move people in bulk and the
 * service turns out to have no bulk membership endpoints (bulk-probe.ts), and again with the API
 * tokens of the leavers it revokes when any holds one (leaver-tokens.ts).
 */
async function planChecked(
  runtime: Runtime,
  input: {
    client: Connection["client"];
    desired: DesiredState;
    actual: ActualState;
    policy: Policy;
    grace?: GraceInput | undefined;
    recent?: RecentInput | undefined;
    today: string;
  },
): Promise<{ actual: ActualState; plan: Plan }> {
  const { config, logger } = runtime;
  const planFor = (actual: ActualState): Plan =>
    bindPlan(
      makePlan({
        desired: input.desired,
        actual,
        policy: input.policy,
        profile: input.client.profile,
        limits: {
          concurrency: config.execution.concurrency,
          requestsPerSecond: config.execution.requestsPerSecond,
        },
        ...optional("grace", input.grace),
        ...optional("recent", input.recent),
        ...optional("knownManagedUsers", input.desired.targeted?.managedUsers),
        today: input.today,
      }),
      { desired: input.desired, actual, config },
    );
  let [actual, plan] = [input.actual, planFor(input.actual)];
  // Each may change what the plan is made from: then it is made again.
  for (const refine of [probeBulkMembership, listLeaverTokens]) {
    const next = await refine({ client: input.client, actual, plan, logger });
    if (next) [actual, plan] = [next, planFor(next)];
  }
  return { actual, plan };
}

/** Connects, lists the actual state and plans. The caller closes `connection`. */
/** The config's policy with this run's allowances (the --allow-* flags). */
const runPolicy = (config: LoadedConfig, values: ParsedValues): Policy =>
  toPolicy(config, {
    ...optional("allowDeletes", intOption(values, "allow-deletes")),
    ...optional("allowPermissionRemovals", intOption(values, "allow-permission-removals")),
    ...optional("allowFilterWidenings", intOption(values, "allow-filter-widenings")),
    ...optional("allowReverts", intOption(values, "allow-reverts")),
  });

export async function planAgainstService(
  runtime: Runtime,
  options: {
    values: ParsedValues;
    desired: DesiredState;
    embeddedSeed?: EmulatorSeed;
    connection?: Connection;
    /** List everything the access review needs (cli/review-listing.ts), and plan from `plan`'s part of it. */
    review?: boolean;
  },
): Promise<Planned> {
  const { config, logger } = runtime;
  const policy = runPolicy(config, options.values);
  for (const note of ineffectiveSettings(policy)) logger.warn({ notice: "no-effect" }, note);
  // What the config allows: its errors stop the run before any request, its warnings come later.
  const byConfig = [checkPermissionPolicy, checkDataFilterPolicy].flatMap((f) => f(options.desired, policy));
  reportProblems(byConfig.filter(isError), logger);
  const grace = await loadGrace(runtime, policy);
  const recent = await loadRecentChanges(runtime, policy);
  const today = runDay(options.values); // checked before any request
  const connection =
    options.connection ??
    (await connect({ config, logger, ...optional("embeddedSeed", options.embeddedSeed) }));
  try {
    const profile = connection.client.profile;
    // Who signs in as whom: the source's own step, given the organization's claim (oauthSubjectIdClaim).
    await resolveSignIn({
      state: options.desired,
      signIn: connection.client.signIn?.bind(connection.client),
      defaultIdentity: config.identity.default,
      logger,
    });
    reportProblems(
      [...validateForProfile(options.desired, profile), ...byConfig.filter((p) => !isError(p))],
      logger,
    );
    const listing = await listChecked(runtime, { ...options, connection, policy });
    const { listed, actual, desired } = listing;
    reportProblems(listing.problems, logger);
    const planned = await planChecked(runtime, {
      client: connection.client,
      desired,
      actual,
      policy,
      ...optional("grace", grace),
      ...optional("recent", recent),
      today,
    });
    // A percentage of the managed users needs the listing (read-only); still before any write.
    checkMinUsersShare(options.desired, config, planned.plan.deleteGuard.managedUsers);
    warnGuardTripped(logger, planned.plan);
    return { connection, desired: options.desired, policy, ...planned, listed };
  } catch (err) {
    if (!options.connection) await connection.close();
    throw err;
  }
}
