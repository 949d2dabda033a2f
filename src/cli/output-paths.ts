/**
 * Where a run writes its files, each path resolved once: from its flag, else its config key, with
 * that name kept for messages ("output.report /x: its folder …", not "--report" when no flag was
 * given). The commands check them all before anything is sent and then write to the same paths.
 */
import { forTarget, type Config } from "../config/index.js";
import { checkAppendTarget, prepareOutputPaths } from "../files.js";
import { stringOption, type ParsedValues } from "./args.js";

export interface OutputFile {
  path: string;
  /** The flag or config key the path came from. */
  name: string;
}

const SOURCES = {
  plan: { flag: "out", key: "plan" },
  report: { flag: "report", key: "report" },
  journal: { flag: "journal", key: "journal" },
  credentials: { flag: "credentials-file", key: "credentialsFile" },
  /** A folder, checked (and made 0700) when the passwords are opened, not with the files. */
  credentialsDir: { flag: "credentials-dir", key: "credentialsDir" },
  metrics: { flag: "metrics-file", key: "metricsFile" },
} as const;

export type OutputKind = keyof typeof SOURCES;
export type Outputs = Partial<Record<OutputKind, OutputFile>>;

/** The output files of a command that writes `kinds`. */
export function resolveOutputs(
  values: ParsedValues,
  config: Config & { targetName?: string },
  kinds: readonly OutputKind[],
): Outputs {
  const outputs: Outputs = {};
  for (const kind of kinds) {
    const { flag, key } = SOURCES[kind];
    const fromFlag = ownPath(stringOption(values, flag), config);
    const fromConfig = config.output[key];
    if (fromFlag !== undefined) outputs[kind] = { path: fromFlag, name: `--${flag}` };
    else if (fromConfig !== undefined) outputs[kind] = { path: fromConfig, name: `output.${key}` };
  }
  return outputs;
}

/**
 * `{date}` in a path of the access review and its campaign: today's date, UTC (2026-10-01), so
 * a schedule keeps each period's files (reviews/{date}/review.json) instead of replacing them.
 */
export function datedPath(path: string | undefined, now: Date = new Date()): string | undefined {
  return path?.replaceAll("{date}", now.toISOString().slice(0, 10));
}

/**
 * A path given as a flag, made the target's own like the config's paths (config/targets.ts):
 * `--report r.json --all-targets` writes r.<target>.json for each; `--plan` reads the same way.
 */
export function ownPath(path: string | undefined, config: { targetName?: string }): string | undefined {
  return path === undefined || config.targetName === undefined ? path : forTarget(path, config.targetName);
}

/**
 * Every output checked before the first request: the files appended to as they are (the
 * credentials file only when generated passwords go to it), then every file's folder made and
 * writable, none of them a folder. Else exit 4 (3 for a credentials file others can read).
 */
export async function prepareOutputs(outputs: Outputs, config?: Config): Promise<void> {
  const { journal, credentials } = outputs;
  if (journal !== undefined) await checkAppendTarget(journal.name, journal.path, false);
  const passwordsToFile =
    config?.identity.passwords === "generate" && config.output.credentialsSecretPrefix === undefined;
  if (credentials !== undefined && passwordsToFile)
    await checkAppendTarget(credentials.name, credentials.path, true);
  const files = Object.entries(outputs).filter(([kind]) => kind !== "credentialsDir");
  await prepareOutputPaths(Object.fromEntries(files.map(([, f]) => [f.name, f.path])));
}
