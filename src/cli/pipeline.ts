/**
 * The steps every planning command shares, in the order of the data: config → desired state
 * (validated, all problems at once, before any request) → the service (actual state) → plan.
 */
import type { Logger } from "pino";
import { ConfigError, InputError, SourceUnavailableError, formatProblem, type Problem } from "../errors.js";
import {
  readDesiredState,
  readLdapDesired,
  validateForProfile,
  isError,
  type DesiredState,
} from "../desired/index.js";
import {
  desiredReadOptions,
  ineffectiveSettings,
  loadConfig,
  toPolicy,
  type LoadedConfig,
} from "../config/index.js";
import { createLogger } from "../logging.js";
import { listActualState, type ActualState } from "../service/index.js";
import {
  plan as makePlan,
  checkBuiltinIdentity,
  checkGroupReferences,
  checkPermissionPolicy,
  checkDataFilterPolicy,
  checkWorkspaceReferences,
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
import { loadGrace } from "./run-state.js";
import { probeBulkMembership } from "./bulk-probe.js";
import { listingCounts } from "./listing-counts.js";

export interface Runtime {
  config: LoadedConfig;
  logger: Logger;
  io: Io;
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
  return { config, logger, io };
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

/** Reads and validates the desired state; every error at once as an InputError (exit 4). */
export async function loadDesired(runtime: Runtime): Promise<DesiredState> {
  if (runtime.config.source.type === "ldap") {
    checkOneSource(runtime.config);
    const { state, problems } = await readLdap(runtime);
    reportProblems(problems, runtime.logger);
    // A count needs nothing from the service: checked before the first request.
    checkMinUsersCount(state, runtime.config);
    return state;
  }
  const options = desiredReadOptions(runtime.config);
  if (options === undefined) {
    throw new ConfigError({
      message:
        "no desired-state file: pass --desired FILE, set source.desired in the config, or read a directory with source.type: ldap (see config.example.yaml).",
    });
  }
  const { state, problems } = await readDesiredState(options);
  if (sourceUnreadable(problems)) throw unreadableSource(problems);
  reportProblems(problems, runtime.logger);
  checkMinUsersCount(state, runtime.config);
  return state;
}

/**
 * A desired-state or groups file that is missing, not a file, or cannot be read: the source is not
 * there now (a share not mounted, a ConfigMap key missing), not wrong. Exit 5, every problem
 * listed; it wins over the other problems, which a partial read may have caused.
 */
const UNREADABLE_RULES: ReadonlySet<string> = new Set(["file-not-found", "file-unreadable"]);

export const sourceUnreadable = (problems: readonly Problem[]): boolean =>
  problems.some((p) => isError(p) && UNREADABLE_RULES.has(p.rule));

function unreadableSource(problems: readonly Problem[]): SourceUnavailableError {
  const errors = problems.filter(isError);
  return new SourceUnavailableError({
    message: `the desired state could not be read (${errors.length} problem${errors.length === 1 ? "" : "s"})`,
    problems: errors,
  });
}

/**
 * A desired-state file and `source.type: ldap` name two sources of the truth: one of them is a
 * mistake, so neither wins silently (exit 4, before anything is read or sent).
 */
export function checkOneSource(config: Runtime["config"]): void {
  const file = config.source.desired;
  if (config.source.type !== "ldap" || file === undefined) return;
  throw new ConfigError({
    message: `two sources of the desired state: the file ${file} (--desired or source.desired) and the directory (source.type: ldap${config.configFile ? ` in ${config.configFile}` : ""}). Use one: drop --desired (and source.desired) to read the directory, or set source.type: file to read the file.`,
  });
}

/**
 * The directory as a desired state (`source.type: ldap`): a directory down or unreachable is a
 * SourceUnavailableError (exit 5), wrong settings an InputError (exit 4).
 */
export async function readLdap(runtime: Runtime): ReturnType<typeof readLdapDesired> {
  const ldap = runtime.config.source.ldap;
  if (ldap === undefined)
    throw new ConfigError({
      message: "source.type is ldap but source.ldap is not set: see docs/ldap.md and config.example.yaml.",
    });
  const started = performance.now();
  const read = await readLdapDesired({
    config: ldap,
    env: runtime.io.env,
    defaultIdentity: runtime.config.identity.default,
  });
  runtime.logger.info(
    {
      users: read.state.users.length,
      groups: read.state.groups.length,
      durationMs: Math.round(performance.now() - started),
    },
    `read ${read.state.files[0]}`,
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
  },
): Promise<{ actual: ActualState; plan: Plan }> {
  const { config, logger } = runtime;
  const planFor = (actual: ActualState): Plan =>
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
    });
  const plan = planFor(input.actual);
  const withoutBulk = await probeBulkMembership({ client: input.client, actual: input.actual, plan, logger });
  return withoutBulk ? { actual: withoutBulk, plan: planFor(withoutBulk) } : { actual: input.actual, plan };
}

/** Connects, lists the actual state and plans. The caller closes `connection`. */
export async function planAgainstService(
  runtime: Runtime,
  options: {
    values: ParsedValues;
    desired: DesiredState;
    embeddedSeed?: EmulatorSeed;
    connection?: Connection;
  },
): Promise<Planned> {
  const { config, logger } = runtime;
  const policy: Policy = toPolicy(config, {
    ...optional("allowDeletes", intOption(options.values, "allow-deletes")),
    ...optional("allowPermissionRemovals", intOption(options.values, "allow-permission-removals")),
    ...optional("allowFilterWidenings", intOption(options.values, "allow-filter-widenings")),
  });
  for (const note of ineffectiveSettings(policy)) logger.warn({ notice: "no-effect" }, note);
  const grace = await loadGrace(runtime, policy);
  const connection =
    options.connection ??
    (await connect({ config, logger, ...optional("embeddedSeed", options.embeddedSeed) }));
  try {
    const profile = connection.client.profile;
    // What the profile and the config allow (permissions: scope, MANAGE), before any listing.
    reportProblems(
      [
        ...validateForProfile(options.desired, profile),
        ...checkPermissionPolicy(options.desired, policy),
        ...checkDataFilterPolicy(options.desired, policy),
      ],
      logger,
    );
    const actual = await listChecked(runtime, { connection, desired: options.desired, policy });
    const planned = await planChecked(runtime, {
      client: connection.client,
      desired: options.desired,
      actual,
      policy,
      ...optional("grace", grace),
    });
    // A percentage of the managed users needs the listing (read-only); still before any write.
    checkMinUsersShare(options.desired, config, planned.plan.deleteGuard.managedUsers);
    return { connection, desired: options.desired, policy, ...planned };
  } catch (err) {
    if (!options.connection) await connection.close();
    throw err;
  }
}

/** Lists the service (and the permissions the desired state needs) and checks the desired state against it. */
async function listChecked(
  runtime: Runtime,
  o: { connection: Connection; desired: DesiredState; policy: Policy },
): Promise<ActualState> {
  const { config, logger } = runtime;
  const { connection, desired, policy } = o;
  const started = performance.now();
  const permissions = permissionListing(desired, policy, config.execution.pageSize);
  const dataFilters = dataFilterListing({ desired, policy });
  const actual = await listActualState(connection.client, { permissions, dataFilters });
  const durationMs = Math.round(performance.now() - started);
  logger.info(listingCounts(actual, connection.client.profile, durationMs), `listed ${connection.label}`);
  if (actual.builtinIdp === false)
    logger.warn("this service has no built-in identity provider (its user listing answered 404)");
  reportProblems(
    [
      ...checkBuiltinIdentity(desired, actual),
      ...checkGroupReferences(desired, actual, policy),
      ...(actual.permissions ? checkWorkspaceReferences(desired, actual.permissions.workspaces, policy) : []),
    ],
    logger,
  );
  return actual;
}
