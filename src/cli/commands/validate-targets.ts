/**
 * `usersync validate` of a config with `targets:` (docs/multi-org.md, "Running targets"): the
 * targets are taken as every command takes them (`--target NAME`, `--all-targets`,
 * `--target-index`; none given: all of them), the shared source is read once (a directory too,
 * unless `--offline`) and each target's select is checked as `plan` checks it: a name the source
 * does not have, a slice of nobody, fewer people than its `minUsers`. A target with its own file
 * has that file validated. One line per target, then the summary `--all-targets` writes.
 * Nothing is sent to any organization and no token is read.
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { ExitCode, exitCodeFor, formatProblem, type Problem } from "../../errors.js";
import { isError, readDesiredState, type DesiredState } from "../../desired/index.js";
import { desiredReadOptions, sortedTargetNames, type TargetEntry } from "../../config/index.js";
import type { ParsedValues } from "../args.js";
import { readFromSource, type Runtime } from "../pipeline.js";
import { checkMinUsersCount } from "../min-users.js";
import { summarize } from "../run-targets.js";
import { selectTargets } from "../target-selection.js";
import { sliceFor } from "../target-slices.js";
import { sourceUnreadable } from "../../desired/sources/index.js";

/** Which targets: those the options name, else all of them; undefined for a config without targets. */
function chosenTargets(values: ParsedValues, runtime: Runtime): string[] | undefined {
  const named = ["target", "all-targets", "target-index"].some((o) => values[o] !== undefined);
  if (named) return selectTargets(values, runtime.config)?.names;
  const names = sortedTargetNames(runtime.config);
  return names.length === 0 ? undefined : names;
}

function line(runtime: Runtime, text: string): void {
  runtime.io.stdout.write(`${text}\n`);
}

/** Prints the problems; the exit code they mean (0: warnings only). */
function printed(runtime: Runtime, problems: readonly Problem[]): number {
  for (const p of problems) line(runtime, `${isError(p) ? "error" : "warning"}: ${formatProblem(p)}`);
  if (!problems.some(isError)) return ExitCode.ok;
  return sourceUnreadable(problems) ? ExitCode.unavailable : ExitCode.invalid;
}

const counts = (s: DesiredState): string => {
  const absent = s.users.filter((u) => u.state === "absent").length;
  return `${s.users.length} user(s)${absent ? ` (${absent} marked absent)` : ""}, ${s.groups.length} group(s)`;
};

/** A target with its own desired file: that file, read and checked like `validate FILE`. */
async function ownFile(runtime: Runtime, entry: TargetEntry): Promise<number> {
  const { config } = runtime;
  const base = config.configFile === undefined ? runtime.io.cwd : dirname(config.configFile);
  const at = (p: string | undefined) => (p === undefined || isAbsolute(p) ? p : resolve(base, p));
  const source = {
    ...config.source,
    type: "file" as const,
    desired: at(entry.desired),
    groups: at(entry.groups),
    format: entry.format ?? config.source.format,
  };
  const { state, problems } = await readDesiredState(desiredReadOptions({ ...config, source }, undefined)!);
  const code = printed(runtime, problems);
  if (code === ExitCode.ok)
    line(runtime, `OK: target ${entry.name}: ${state.files.join(", ")}: ${counts(state)}.`);
  return code;
}

/** A target's slice of the shared read: its select, its emptiness and its minUsers count. */
function sliceCheck(runtime: Runtime, entry: TargetEntry, shared: DesiredState | undefined): number {
  if (shared === undefined) {
    line(runtime, `OK: target ${entry.name}: select not checked (--offline: the directory is not read).`);
    return ExitCode.ok;
  }
  const { slice, problems } = sliceFor(shared, runtime.config, entry);
  for (const p of problems) line(runtime, `error: ${p}`);
  if (problems.length > 0 || slice === undefined) return ExitCode.invalid;
  try {
    const minUsers = entry.minUsers ?? runtime.config.source.minUsers;
    const config = {
      ...runtime.config,
      targetName: entry.name,
      source: { ...runtime.config.source, minUsers },
    };
    checkMinUsersCount(slice, config, true);
  } catch (err) {
    line(runtime, `error: ${(err as Error).message}`);
    return exitCodeFor(err);
  }
  line(runtime, `OK: target ${entry.name}: slice of ${shared.files.join(", ")}: ${counts(slice)}.`);
  return ExitCode.ok;
}

/** Validates the targets; undefined when the config has none (validate goes on as for one organization). */
export async function validateTargets(values: ParsedValues, runtime: Runtime): Promise<number | undefined> {
  const names = chosenTargets(values, runtime);
  if (names === undefined) return undefined;
  const { config } = runtime;
  const entries = config.targets.filter((t) => names.includes(t.name));
  const offline = values["offline"] === true && config.source.type !== "file";
  let shared: DesiredState | undefined;
  if (entries.some((e) => e.select !== undefined) && !offline) {
    // The shared read is held to a directory's one person; minUsers counts each slice (below).
    const source = { ...config.source, minUsers: undefined };
    const read = await readFromSource({ ...runtime, config: { ...config, source } });
    const code = printed(runtime, read.problems);
    if (code !== ExitCode.ok) {
      line(runtime, `${read.state.files.join(", ")} is not valid: no target was checked. Nothing was sent.`);
      return code;
    }
    shared = read.state;
  }
  const codes = new Map<string, number>();
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1)))
    codes.set(e.name, e.select === undefined ? await ownFile(runtime, e) : sliceCheck(runtime, e, shared));
  return summarize(runtime, [...codes.keys()], codes, new Map());
}
