/**
 * Which targets of a config with `targets:` a run is for (docs/multi-org.md): one by name
 * (`--target`), all of them (`--all-targets`), or the one at an Indexed Job's index
 * (`--target-index`, checked against `--target-list`, the names the Job was rendered with), and
 * how their exit codes combine into the process's.
 */
import { sortedTargetNames, unknownTarget, type Config } from "../config/index.js";
import { ConfigError, ExitCode } from "../errors.js";
import { stringOption, type ParsedValues } from "./args.js";

export interface TargetSelection {
  names: string[];
  /** `--all-targets`: every target in one process, with a combined exit code and summary. */
  all: boolean;
}

/** The targets this run is for; undefined for a config without targets run without a target option. */
export function selectTargets(values: ParsedValues, config: Config): TargetSelection | undefined {
  const name = stringOption(values, "target");
  const all = values["all-targets"] === true;
  const index = stringOption(values, "target-index");
  const list = stringOption(values, "target-list");
  const chosen = [name !== undefined, all, index !== undefined].filter(Boolean).length;
  if (chosen > 1)
    throw new ConfigError({
      message: "--target, --all-targets and --target-index each choose the targets: give one of them.",
    });
  if (list !== undefined && index === undefined)
    throw new ConfigError({
      message: "--target-list goes with --target-index (the Indexed Job's names, docs/multi-org.md).",
    });
  const names = sortedTargetNames(config);
  if (chosen === 0) {
    if (names.length === 0) return undefined;
    // A config with targets: has no organization of its own to fall back to.
    throw new ConfigError({
      message: `the config lists ${names.length} targets (${names.join(", ")}): choose one with --target NAME, all of them with --all-targets, or an Indexed Job's with --target-index (docs/multi-org.md).`,
    });
  }
  if (values["base-url"] !== undefined)
    throw new ConfigError({
      message:
        "--base-url names one service; with targets each organization's URL is its targets[].baseUrl. Leave --base-url out.",
    });
  if (name !== undefined) {
    if (!names.includes(name)) throw unknownTarget(config, name);
    return { names: [name], all: false };
  }
  if (all) {
    if (names.length === 0)
      throw new ConfigError({
        message: "--all-targets: the config has no targets: section (docs/multi-org.md).",
      });
    return { names, all: true };
  }
  return { names: [indexedTarget(names, index!, list)], all: false };
}

/**
 * The target at an Indexed Job's JOB_COMPLETION_INDEX, in the order of the sorted names. The Job
 * was rendered for a list (`--target-list`): when the config's list differs (a target added,
 * removed or renamed under a running Job) the same index may name another organization, so the
 * run is refused (exit 4) rather than misread.
 */
function indexedTarget(names: readonly string[], index: string, list: string | undefined): string {
  if (list === undefined)
    throw new ConfigError({
      message: `--target-index needs --target-list, the target names the Job was rendered with (${names.join(",")}), so that a changed list is refused rather than misread.`,
    });
  const rendered = list
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (rendered.join(",") !== names.join(","))
    throw new ConfigError({
      message: `the Job was rendered for the targets ${rendered.join(", ") || "(none)"} (--target-list) but the config lists ${names.join(", ") || "none"}: index ${index} could name another organization, so nothing is run. Make the Job and the config agree: the Job's TARGET_LIST (the value of --target-list) and completions are the config's sorted target names and their count (${names.length}), or change targets: back; then render the overlay again (docs/multi-org.md, "On Kubernetes: an Indexed Job").`,
    });
  const i = /^\d+$/.test(index) ? Number(index) : NaN;
  const target = names[i];
  if (target === undefined)
    throw new ConfigError({
      message: `--target-index ${index}: not an index of the ${names.length} targets ${names.join(", ")} (0 to ${names.length - 1}): the Job's completions must equal the number of targets (${names.length}) and its TARGET_LIST name them (docs/multi-org.md, "On Kubernetes: an Indexed Job").`,
    });
  return target;
}

/**
 * The combined exit code of `--all-targets`: the code that most needs a person, in the order
 * 130 (interrupted), 4 (invalid config or input: a mistake to fix), 1 (failed steps or a fatal
 * error), 3 (a guard refused: a decision), 5 (the source was not there: a later run may pass),
 * 2 (changes, plan --detailed-exitcode), 0. Each target's own code is in the summary and the log.
 */
const SEVERITY = [
  ExitCode.interrupted,
  ExitCode.invalid,
  ExitCode.failed,
  ExitCode.refused,
  ExitCode.unavailable,
  ExitCode.changes,
];

export function combinedExitCode(codes: readonly number[]): number {
  for (const code of SEVERITY) if (codes.includes(code)) return code;
  return codes.find((c) => c !== ExitCode.ok) ?? ExitCode.ok;
}
