/**
 * The steps every planning command shares, in the order of the data: config → desired state
 * (validated, all problems at once, before any request) → the service (actual state) → plan.
 */
import type { Logger } from "pino";
import { InputError, formatProblem, type Problem } from "../errors.js";
import { validateForProfile, isError, type DesiredState } from "../desired/index.js";
import { serviceChecks } from "./service-checks.js";
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
import { listActualState, type ActualState } from "../service/index.js";
import { signInForRevoke } from "./sign-in-read.js";
import {
  plan as makePlan,
  checkPermissionPolicy,
  checkDataFilterPolicy,
  permissionListing,
  dataFilterListing,
  type GraceInput,
  type Plan,
  type Policy,
} from "../plan/index.js";
import { intOption, stringOption, type ParsedValues } from "./args.js";
import { setLogFormat, type Io } from "./io.js";
import { connect, type Connection } from "./target.js";
import type { EmulatorSeed } from "../emulator/index.js";
import { checkMinUsersCount, checkMinUsersShare } from "./min-users.js";
import { lastGroupSizes, loadGrace } from "./run-state.js";
import { probeBulkMembership } from "./bulk-probe.js";
import { listingCounts } from "./listing-counts.js";
import { warnGuardTripped } from "./guard-warning.js";
import { narrowForPlan, reviewListings } from "./review-listing.js";

export interface Runtime {
  config: LoadedConfig;
  logger: Logger;
  io: Io;
  /** `--allow-empty-groups`: believe a picked directory group that emptied since the last successful run. */
  allowEmptyGroups?: boolean;
  /** A target's slice of the shared source, checked (run-targets.ts); else the config's source is read. */
  desired?: () => Promise<DesiredState>;
  /** Set by `plan` when its plan has steps, so `--all-targets`'s summary can say "changes planned". */
  outcome?: { changesPlanned?: boolean };
}

export async function loadRuntime(values: ParsedValues, io: Io): Promise<Runtime> {
  const overrides = {
    ...optional("baseUrl", stringOption(values, "base-url")),
    ...optional("desired", stringOption(values, "desired")),
    ...optional("groups", stringOption(values, "groups")),
    ...optional("logLevel", stringOption(values, "log-level")),
    ...optional("logFormat", stringOption(values, "log-format")),
    ...optional("mode", stringOption(values, "mode")),
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

/**
 * The configured source, read and proved whole (src/desired/sources/): a directory down, a read cut
 * or inconsistent, a picked group suddenly empty is a SourceUnavailableError (exit 5), wrong
 * settings a ConfigError or InputError (exit 4). Logs what was read and how it was proved whole.
 */
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
  });
  const { state, evidence } = read;
  // A file's read says nothing a person needs; a directory's says what was read and how it was proved whole.
  if (config.source.type !== "file")
    logger.info(
      {
        users: state.users.length,
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
 * service turns out to have no bulk membership endpoints (bulk-probe.ts).
 */
async function planChecked(
  runtime: Runtime,
  input: {
    client: Connection["client"];
    desired: DesiredState;
    actual: ActualState;
    policy: Policy;
    grace?: GraceInput | undefined;
    today: string;
  },
): Promise<{ actual: ActualState; plan: Plan }> {
  const { config, logger } = runtime;
  const planFor = (actual: ActualState): Plan =>
    withEvidence(
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
        today: input.today,
      }),
      input.desired,
    );
  const plan = planFor(input.actual);
  const withoutBulk = await probeBulkMembership({ client: input.client, actual: input.actual, plan, logger });
  return withoutBulk ? { actual: withoutBulk, plan: planFor(withoutBulk) } : { actual: input.actual, plan };
}

/** The source's evidence rides on the plan, so every format shows what the plan was made from. */
function withEvidence(plan: Plan, desired: DesiredState): Plan {
  if (desired.evidence !== undefined) plan.source = desired.evidence;
  return plan;
}

/** Connects, lists the actual state and plans. The caller closes `connection`. */
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
  const policy: Policy = toPolicy(config, {
    ...optional("allowDeletes", intOption(options.values, "allow-deletes")),
    ...optional("allowPermissionRemovals", intOption(options.values, "allow-permission-removals")),
    ...optional("allowFilterWidenings", intOption(options.values, "allow-filter-widenings")),
  });
  for (const note of ineffectiveSettings(policy)) logger.warn({ notice: "no-effect" }, note);
  // What the config allows: its errors stop the run before any request, its warnings come later.
  const byConfig = [checkPermissionPolicy, checkDataFilterPolicy].flatMap((f) => f(options.desired, policy));
  reportProblems(byConfig.filter(isError), logger);
  const grace = await loadGrace(runtime, policy);
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
    // What the profile allows, before any listing; and the config's warnings.
    reportProblems(
      [...validateForProfile(options.desired, profile), ...byConfig.filter((p) => !isError(p))],
      logger,
    );
    const { listed, actual } = await listChecked(runtime, { ...options, connection, policy });
    const planned = await planChecked(runtime, {
      client: connection.client,
      desired: options.desired,
      actual,
      policy,
      ...optional("grace", grace),
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

/** Lists the service (and the permissions the desired state needs) and checks the desired state against it. */
async function listChecked(
  runtime: Runtime,
  o: { connection: Connection; desired: DesiredState; policy: Policy; review?: boolean | undefined },
): Promise<{ listed: ActualState; actual: ActualState }> {
  const { config, logger } = runtime;
  const { connection, desired, policy } = o;
  const started = performance.now();
  const { permissions, dataFilters } = o.review
    ? reviewListings(connection.client.profile, config.execution.pageSize)
    : {
        permissions: permissionListing(desired, policy, config.execution.pageSize),
        dataFilters: dataFilterListing({ desired, policy }),
      };
  const jit = config.source.type !== "file"; // a directory's people, made at sign-in too?
  const actual = await listActualState(connection.client, { permissions, dataFilters, jit });
  const signIn = await signInForRevoke(connection.client, actual, policy);
  if (signIn !== undefined) actual.signIn = signIn;
  const durationMs = Math.round(performance.now() - started);
  logger.info(listingCounts(actual, connection.client.profile, durationMs), `listed ${connection.label}`);
  if (actual.builtinIdp === false)
    logger.warn("this service has no built-in identity provider (its user listing answered 404)");
  reportProblems(serviceChecks({ desired, actual, policy, connection, config, logger }), logger);
  // The review lists everything; its plan is made from the part `plan` reads (review-listing.ts).
  const pageSize = config.execution.pageSize;
  return { listed: actual, actual: o.review ? narrowForPlan(actual, { desired, policy, pageSize }) : actual };
}
