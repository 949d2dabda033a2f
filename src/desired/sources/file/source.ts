/** The file source (CSV or YAML, with an optional groups file) behind the source contract. */
import { desiredReadOptions } from "../../../config/desired-options.js";
import type { Config } from "../../../config/schema.js";
import { ConfigError, SourceUnavailableError, type Problem } from "../../../errors.js";
import { readDesiredState } from "../../index.js";
import { isError } from "../../problems.js";
import type { SourceReader, SourceResult } from "../contract.js";

/**
 * A desired-state or groups file that is missing, not a file, or cannot be read: the source is not
 * there now (a share not mounted, a ConfigMap key missing), not wrong. Exit 5, every problem
 * listed; it wins over the other problems, which a partial read may have caused.
 */
const UNREADABLE_RULES: ReadonlySet<string> = new Set(["file-not-found", "file-unreadable"]);

export const sourceUnreadable = (problems: readonly Problem[]): boolean =>
  problems.some((p) => isError(p) && UNREADABLE_RULES.has(p.rule));

export function unreadableSource(problems: readonly Problem[]): SourceUnavailableError {
  const errors = problems.filter(isError);
  return new SourceUnavailableError({
    message: `the desired state could not be read (${errors.length} problem${errors.length === 1 ? "" : "s"})`,
    problems: errors,
  });
}

export function openFileSource(config: Config): SourceReader {
  return {
    async read(): Promise<SourceResult> {
      const options = desiredReadOptions(config);
      if (options === undefined)
        throw new ConfigError({
          message:
            "no desired-state file: pass --desired FILE, set source.desired in the config, or read a directory with source.type: ldap (see config.example.yaml).",
        });
      const { state, problems } = await readDesiredState(options);
      if (sourceUnreadable(problems)) throw unreadableSource(problems);
      const reads = [
        {
          what: `users in ${options.file}`,
          pages: 1,
          announced: "unknown" as const,
          read: state.users.length,
        },
      ];
      if (options.groupsFile !== undefined)
        reads.push({
          what: `groups in ${options.groupsFile}`,
          pages: 1,
          announced: "unknown",
          read: state.groups.length,
        });
      return {
        state,
        problems,
        evidence: {
          kind: "file",
          source: state.files.join(", "),
          scope: [],
          reads,
          skipped: [],
          groupSizes: {},
        },
      };
    },
  };
}
