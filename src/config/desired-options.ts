/** The desired-state read options a config implies, so every command reads the file the same way. */
import type { ReadDesiredOptions } from "../desired/index.js";
import type { Config } from "./schema.js";

/**
 * `file` (a command's FILE argument) wins over `source.desired`; `undefined` when neither names a
 * file, so the caller can say how to give one.
 */
export function desiredReadOptions(config: Config, file?: string): ReadDesiredOptions | undefined {
  const desired = file ?? config.source.desired;
  if (desired === undefined) return undefined;
  const options: ReadDesiredOptions = { file: desired, defaults: { identity: config.identity.default } };
  if (config.source.groups !== undefined) options.groupsFile = config.source.groups;
  if (config.source.format !== "auto") options.format = config.source.format;
  return options;
}
