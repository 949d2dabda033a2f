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
import { ConfigError, ExitCode, exitCodeFor } from "../errors.js";
import { sliceDesired, type DesiredState } from "../desired/index.js";
import { unknownSelectNames } from "../desired/select-check.js";
import { checkGroupSizes } from "../desired/sources/index.js";
import { checkMinUsersCount } from "./min-users.js";
import { lastGroupSizes } from "./run-state.js";
import type { ParsedCommand } from "./args.js";
import type { Io } from "./io.js";
import { EXIT_CODE_HELP } from "./options.js";
import { loadDesired, loadRuntime, type Runtime } from "./pipeline.js";
import { combinedExitCode, selectTargets } from "./target-selection.js";

/** A command's body for one runtime (one organization, or a config without targets). */
export type CommandBody = (runtime: Runtime, command: ParsedCommand) => Promise<number>;
/** How a fatal error is written (main.ts's `fatalOutput`, without the arguments). */
export type FatalWriter = (err: unknown, exitCode: number) => string;

/**
 * The slices of the targets this run is for, cut from the shared source read once, and checked
 * before any request to any organization: a name a select does not find in what was read, or a
 * slice of nobody (unless the target says `allowEmptySlice`), is a mistake in the config (exit 4),
 * never an organization emptied. Targets with their own desired file are not here.
 */
async function checkedSlices(base: Runtime, names: readonly string[]): Promise<Map<string, DesiredState>> {
  const slices = new Map<string, DesiredState>();
  const running = base.config.targets.filter((t) => names.includes(t.name) && t.select !== undefined);
  if (running.length === 0) return slices;
  // source.minUsers counts each target's slice (pipeline.ts's checkedSlice); the shared read
  // needs only a directory's one person.
  const source = { ...base.config.source, minUsers: undefined };
  // One organization (the Indexed Job's pod): the shared read keeps its picture beside its state file.
  const one = names.length === 1 ? await configForTarget(base.config, names[0]!, base.io.env) : undefined;
  const changesState = one?.state.file;
  const shared = await loadDesired({ ...base, config: { ...base.config, source }, changesState });
  const problems: string[] = [];
  for (const entry of running) {
    const select = entry.select!;
    const field = `targets[${base.config.targets.indexOf(entry)}] (${entry.name}).select`;
    const unknown = unknownSelectNames(shared, select, field);
    problems.push(...unknown);
    if (unknown.length > 0) continue;
    const others = base.config.targets.filter((t) => t !== entry).flatMap((t) => t.select?.groups ?? []);
    const slice = sliceDesired(shared, select, others);
    // What the changes-only read left for the run (pipeline.ts): the organization's own slice keeps it.
    for (const key of ["afterApply", "targeted"] as const)
      if (shared[key] !== undefined)
        Object.defineProperty(slice, key, { value: shared[key], enumerable: false });
    if (slice.users.length === 0 && !entry.allowEmptySlice)
      problems.push(
        `${field}: gives nobody of the ${shared.users.length} people the source read, so this organization's people would all be leavers; fix the select, or set allowEmptySlice: true on target ${entry.name} if it is meant to be empty`,
      );
    slices.set(entry.name, slice);
  }
  if (problems.length > 0)
    throw new ConfigError({
      message: `targets: ${problems.length} select${problems.length === 1 ? "" : "s"} that the source does not answer (nothing was sent to any organization):\n${problems.map((p) => `  ${p}`).join("\n")}`,
      problems: problems.map((message) => ({
        file: configFile(base),
        field: "targets",
        rule: "select",
        message,
      })),
    });
  return slices;
}

function configFile(runtime: Runtime): string {
  return (runtime.config as { configFile?: string }).configFile ?? "(config)";
}

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

/**
 * A target's slice, checked for that organization: `minUsers` (the target's own, else the shared
 * one) counts the people it receives; and as the shared read is checked against no state file
 * (each target has its own), each target checks the picked groups' sizes against its own state
 * file's record, and records them after its own successful apply.
 */
async function checkedSlice(
  config: Runtime["config"],
  slice: DesiredState,
  o: { allowEmptyGroups: boolean },
): Promise<DesiredState> {
  checkMinUsersCount(slice, config, true);
  if (slice.evidence !== undefined)
    checkGroupSizes({
      evidence: slice.evidence,
      lastGood: await lastGroupSizes(config),
      allowEmpty: o.allowEmptyGroups,
    });
  return slice;
}

export async function runForTargets(
  command: ParsedCommand,
  io: Io,
  body: CommandBody,
  fatal: FatalWriter,
): Promise<number> {
  const base = await loadRuntime(command.values, io);
  const selection = selectTargets(command.values, base.config);
  if (selection === undefined) return body(base, command);
  const slices = await checkedSlices(base, selection.all ? selection.names : selection.names.slice(0, 1));
  const outcomes = new Map<string, NonNullable<Runtime["outcome"]>>();
  /** One target's run to its exit code; its fatal error written here, naming it. */
  const runOne = async (name: string): Promise<number> => {
    const outcome = {};
    outcomes.set(name, outcome);
    try {
      return await body({ ...(await targetRuntime(base, name, slices)), outcome }, command);
    } catch (err) {
      const code = exitCodeFor(err);
      io.stderr.write(withOrganization(fatal(err, code), name));
      return code;
    }
  };
  if (!selection.all) return runOne(selection.names[0]!);
  // A review saved per target (--out FILE gets each target's name) is JSON a file at a time.
  const savedReview = command.command === "review" && command.values["out"] !== undefined;
  if (command.values["format"] === "json" && !savedReview)
    throw new ConfigError({
      message:
        "--all-targets prints one plan after another: for JSON, save one plan per organization with --out FILE (its name gets each target's), or run --target NAME --format json.",
    });
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

/** The fatal error of one target, saying which: a JSON line gets `organization`, text a prefix. */
function withOrganization(text: string, name: string): string {
  if (text.startsWith("{")) {
    const line = JSON.parse(text) as Record<string, unknown>;
    return `${JSON.stringify({ ...line, organization: name })}\n`;
  }
  return text.replace(/^usersync: /, `usersync: [target ${name}] `);
}

function summarize(
  runtime: Runtime,
  names: readonly string[],
  codes: ReadonlyMap<string, number>,
  outcomes: ReadonlyMap<string, NonNullable<Runtime["outcome"]>>,
): number {
  const exitCode = combinedExitCode([...codes.values()]);
  const meaning = new Map(EXIT_CODE_HELP);
  // A plan with changes exits 0 without --detailed-exitcode: "no changes" would be untrue.
  const said = (n: string, code: number): string =>
    code === ExitCode.ok && outcomes.get(n)?.changesPlanned === true
      ? "changes planned"
      : (meaning.get(code) ?? "");
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
