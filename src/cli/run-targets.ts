/**
 * Running plan or apply for the targets of a config with `targets:` (docs/multi-org.md). Each
 * target runs with its own config (URL, token, policy, output and state paths), a logger that
 * labels every line with `organization`, and its slice of the source. The shared source is read
 * once and sliced for each target that selects from it. With `--all-targets` the targets run one
 * after another in this process and one target's failure, whatever its exit code, is that
 * target's only: the next one starts as if nothing happened; the summary and the exit code say
 * which did what.
 */
import { configForTarget, type TargetEntry } from "../config/index.js";
import { ConfigError, ExitCode, exitCodeFor } from "../errors.js";
import { sliceDesired, type DesiredState } from "../desired/index.js";
import type { ParsedCommand } from "./args.js";
import type { Io } from "./io.js";
import { EXIT_CODE_HELP } from "./options.js";
import { loadDesired, loadRuntime, type Runtime } from "./pipeline.js";
import { combinedExitCode, selectTargets } from "./target-selection.js";

/** A command's body for one runtime (one organization, or a config without targets). */
export type CommandBody = (runtime: Runtime, command: ParsedCommand) => Promise<number>;
/** How a fatal error is written (main.ts's `fatalOutput`, without the arguments). */
export type FatalWriter = (err: unknown, exitCode: number) => string;

/** The shared source, read at most once whatever the number of targets that slice it. */
function sharedSource(runtime: Runtime): () => Promise<DesiredState> {
  let read: Promise<DesiredState> | undefined;
  return () => (read ??= loadDesired(runtime));
}

async function targetRuntime(
  base: Runtime,
  name: string,
  shared: () => Promise<DesiredState>,
): Promise<Runtime> {
  const logger = base.logger.child({ organization: name });
  const config = await configForTarget(base.config, name, base.io.env);
  const entry = base.config.targets.find((t) => t.name === name) as TargetEntry;
  const select = entry.select;
  const others = base.config.targets.filter((t) => t.name !== name).flatMap((t) => t.select?.groups ?? []);
  // A target with its own desired file reads it like a config without targets.
  const flags = { allowEmptyGroups: base.allowEmptyGroups ?? false };
  if (select === undefined) return { config, logger, io: base.io, ...flags };
  return {
    config,
    logger,
    io: base.io,
    ...flags,
    desired: async () => sliceDesired(await shared(), select, others),
  };
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
  const shared = sharedSource(base);
  /** One target's run to its exit code; its fatal error written here, naming it. */
  const runOne = async (name: string): Promise<number> => {
    try {
      return await body(await targetRuntime(base, name, shared), command);
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
  return summarize(base, selection.names, codes);
}

/** The fatal error of one target, saying which: a JSON line gets `organization`, text a prefix. */
function withOrganization(text: string, name: string): string {
  if (text.startsWith("{")) {
    const line = JSON.parse(text) as Record<string, unknown>;
    return `${JSON.stringify({ ...line, organization: name })}\n`;
  }
  return text.replace(/^usersync: /, `usersync: [target ${name}] `);
}

function summarize(runtime: Runtime, names: readonly string[], codes: ReadonlyMap<string, number>): number {
  const exitCode = combinedExitCode([...codes.values()]);
  const meaning = new Map(EXIT_CODE_HELP);
  const width = Math.max(...names.map((n) => n.length));
  const lines = names.map((n) => {
    const code = codes.get(n);
    const what =
      code === undefined ? "not started (interrupted)" : `exit ${code}  ${meaning.get(code) ?? ""}`;
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
