/** The desired-state read options a config implies, so every command reads the file the same way. */
import { formatOf, type ReadDesiredOptions } from "../desired/index.js";
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
  // The columns targets select by (targets[].select.column) are kept, not refused as unknown.
  const columns = [
    ...new Set(config.targets.flatMap((t) => (t.select?.column ? [t.select.column.name] : []))),
  ];
  if (columns.length > 0) options.columns = columns;
  if (config.source.columns !== undefined) options.mapping = config.source.columns;
  // For names whose extension does not tell (users.txt): a .yaml, .yml or .csv given as
  // --desired or FILE is read by its extension, whatever the config says for its own file.
  if (config.source.format !== "auto" && formatOf(desired) === undefined)
    options.format = config.source.format;
  return options;
}
