/**
 * Running plan or apply for the targets of a config with `targets:` (docs/multi-org.md). Each
 * target runs with its own config (URL, token, policy, output and state paths), a logger that
 * labels every line with `organization`, and its slice of the source. The shared source is read
 * once, before any organization is asked anything, and sliced for each target that selects from
 * it; every select is checked against what was read first. With `--all-targets` the targets run one
 * after another in this process and one target's failure, whatever its exit code, is that
 * target's only: the next one starts as if nothing happened; the summary and the exit code say
 * which did what.
 */
import { configForTarget } from "../config/index.js";
import { tokenSourceOf } from "../config/targets.js";
import { ConfigError, ExitCode, exitCodeFor } from "../errors.js";
import type { DesiredState } from "../desired/index.js";
import type { ParsedCommand } from "./args.js";
import type { Io } from "./io.js";
import { EXIT_CODE_HELP } from "./options.js";
import { loadRuntime, type Runtime } from "./pipeline.js";
import { checkedSlice, checkedSlices } from "./target-slices.js";
import { combinedExitCode, selectTargets, type TargetSelection } from "./target-selection.js";
import { recordUnreached } from "./unreached.js";

/** A command's body for one runtime (one organization, or a config without targets). */
export type CommandBody = (runtime: Runtime, command: ParsedCommand) => Promise<number>;
/**
 * How a fatal error is written (main.ts's `fatalOutput`, without the arguments); `hint.token`
 * names where the target's token is read, for a refused token.
 */
export type FatalWriter = (err: unknown, exitCode: number, hint?: { token: string }) => string;

async function targetRuntime(
  base: Runtime,
  name: string,
  slices: ReadonlyMap<string, DesiredState>,
): Promise<Runtime> {
  const logger = base.logger.child({ organization: name });
  const config = await configForTarget(base.config, name, base.io.env);
  const slice = slices.get(name);
  // A target with its own desired file reads it like a config without targets.
  const flags = { allowEmptyGroups: base.allowEmptyGroups ?? false };
  if (slice === undefined) return { config, logger, io: base.io, ...flags };
  return { config, logger, io: base.io, ...flags, desired: () => checkedSlice(config, slice, flags) };
}

export async function runForTargets(
  command: ParsedCommand,
  io: Io,
  body: CommandBody,
  fatal: FatalWriter,
  /** `false`: the command reads no desired state (export): the shared source is not read. */
  o: { slices?: boolean } = {},
): Promise<number> {
  let base: Runtime | undefined;
  let started: Started;
  try {
    base = await loadRuntime(command.values, io);
    const selection = selectTargets(command.values, base.config);
    if (selection === undefined) return body(base, command);
    if (selection.all) refuseJsonForAll(command);
    const names = selection.all ? selection.names : selection.names.slice(0, 1);
    const slices = o.slices === false ? new Map<string, DesiredState>() : await checkedSlices(base, names);
    started = { base, selection, slices };
  } catch (err) {
    // Reached no organization: the failure of every one this run was meant for (unreached.ts).
    const at = { config: base?.config, logger: base?.logger, exitCode: exitCodeFor(err) };
    await recordUnreached({ command: command.command, values: command.values, io, ...at });
    throw err;
  }
  return runStarted(command, started, body, fatal);
}

interface Started {
  base: Runtime;
  selection: TargetSelection;
  slices: ReadonlyMap<string, DesiredState>;
}

async function runStarted(
  command: ParsedCommand,
  { base, selection, slices }: Started,
  body: CommandBody,
  fatal: FatalWriter,
): Promise<number> {
  const { io } = base;
  const outcomes = new Map<string, NonNullable<Runtime["outcome"]>>();
  /** One target's run to its exit code; its fatal error written here, naming it. */
  const runOne = async (name: string): Promise<number> => {
    const outcome: NonNullable<Runtime["outcome"]> = {};
    outcomes.set(name, outcome);
    try {
      return await body({ ...(await targetRuntime(base, name, slices)), outcome }, command);
    } catch (err) {
      const code = exitCodeFor(err);
      io.stderr.write(withOrganization(fatal(err, code, tokenHint(base, name)), name));
      // A failure before its command recorded anything (its token file, its overrides) is recorded here.
      if (outcome.metricsRecorded !== true)
        await recordUnreached({
          command: command.command,
          values: command.values,
          io,
          config: base.config,
          logger: base.logger,
          exitCode: code,
          names: [name],
        });
      return code;
    }
  };
  if (!selection.all) return runOne(selection.names[0]!);
  const codes = new Map<string, number>();
  for (const name of selection.names) {
    if ([...codes.values()].includes(ExitCode.interrupted)) break;
    const url = base.config.targets.find((t) => t.name === name)?.baseUrl ?? "";
    io.stdout.write(`${codes.size > 0 ? "\n" : ""}=== target ${name} (${url}) ===\n`);
    const code = await runOne(name);
    codes.set(name, code);
    base.logger.info({ organization: name, exitCode: code }, `target ${name} finished: exit ${code}`);
  }
  return summarize(base, selection.names, codes, outcomes);
}

/** `--all-targets` prints one plan after another: JSON only saved one per organization. */
function refuseJsonForAll(command: ParsedCommand): void {
  // A review saved per target (--out FILE gets each target's name) is JSON a file at a time.
  const savedReview = command.command === "review" && command.values["out"] !== undefined;
  if (command.values["format"] === "json" && !savedReview)
    throw new ConfigError({
      message:
        "--all-targets prints one plan after another: for JSON, save one plan per organization with --out FILE (its name gets each target's), or run --target NAME --format json.",
    });
}

/** Where a target's token is read, for the advice on a refused token (main.ts's describeError). */
function tokenHint(base: Runtime, name: string): { token: string } | undefined {
  const entry = base.config.targets.find((t) => t.name === name);
  if (entry === undefined) return undefined;
  const { tokenEnv, tokenFile } = tokenSourceOf(base.config, entry);
  return { token: tokenFile !== undefined ? `the token file ${tokenFile} (or ${tokenEnv})` : tokenEnv };
}

/** The fatal error of one target, saying which: a JSON line gets `organization`, text a prefix. */
export function withOrganization(text: string, name: string): string {
  if (text.startsWith("{")) {
    const line = JSON.parse(text) as Record<string, unknown>;
    return `${JSON.stringify({ ...line, organization: name })}\n`;
  }
  return text.replace(/^usersync: /, `usersync: [target ${name}] `);
}

export function summarize(
  runtime: Runtime,
  names: readonly string[],
  codes: ReadonlyMap<string, number>,
  outcomes: ReadonlyMap<string, NonNullable<Runtime["outcome"]>>,
): number {
  const exitCode = combinedExitCode([...codes.values()]);
  const meaning = new Map(EXIT_CODE_HELP);
  // A plan with changes exits 0 without --detailed-exitcode, an apply that made changes too:
  // "no changes" would be untrue for either.
  const said = (n: string, code: number): string => {
    const applied = outcomes.get(n)?.stepsApplied ?? 0;
    if (code !== ExitCode.ok) return meaning.get(code) ?? "";
    if (applied > 0) return `done: ${applied} step${applied === 1 ? "" : "s"} applied`;
    return outcomes.get(n)?.changesPlanned === true ? "changes planned" : (meaning.get(code) ?? "");
  };
  const width = Math.max(...names.map((n) => n.length));
  const lines = names.map((n) => {
    const code = codes.get(n);
    const what = code === undefined ? "not started (interrupted)" : `exit ${code}  ${said(n, code)}`;
    return `  ${n.padEnd(width)}  ${what}`;
  });
  runtime.io.stdout.write(
    `\nTargets: ${names.length}, exit ${exitCode} (of the targets' codes, the first of 130, 4, 1, 3, 5, 2, 0)\n${lines.join("\n")}\n`,
  );
  runtime.logger.info(
    { targets: Object.fromEntries(codes), notStarted: names.filter((n) => !codes.has(n)), exitCode },
    `targets finished: exit ${exitCode}`,
  );
  return exitCode;
}
