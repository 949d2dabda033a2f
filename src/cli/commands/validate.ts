/** `usersync validate [FILE]`: offline. Prints every problem, or one OK line with counts. */
import { ConfigError, ExitCode, formatProblem } from "../../errors.js";
import { isError, readDesiredState, validateForProfile } from "../../desired/index.js";
import { choiceOption, type ParsedCommand } from "../args.js";
import type { Io } from "../io.js";
import { checkOneSource, loadRuntime, readFromSource } from "../pipeline.js";
import { sourceUnreadable } from "../../desired/sources/index.js";
import { desiredReadOptions, toPolicy } from "../../config/index.js";
import { checkDataFilterPolicy, checkPermissionPolicy } from "../../plan/index.js";
import { checkMinUsersCount } from "../min-users.js";
import { usersyncCommand } from "../invocation.js";
import { validateTargets } from "./validate-targets.js";
import { mappedPreview } from "../mapped-preview.js";

export async function runValidate({ values, positionals }: ParsedCommand, io: Io): Promise<number> {
  const runtime = await loadRuntime(values, io);
  // A config with targets: each target's slice or file (validate-targets.ts); a FILE is checked alone.
  const targets = positionals[0] === undefined ? await validateTargets(values, runtime) : undefined;
  if (targets !== undefined) return targets;
  const { config } = runtime;
  const profile = choiceOption(values, "profile", ["v1", "legacy"] as const);
  const options = desiredReadOptions(config, positionals[0]);
  // A FILE argument wins; otherwise a directory source (source.type: ldap, ...) is read (read-only).
  const fromLdap = config.source.type !== "file" && positionals[0] === undefined;
  if (fromLdap) checkOneSource(config);
  if (options === undefined && !fromLdap) {
    throw new ConfigError({
      message: `nothing to validate: ${usersyncCommand()} validate FILE (or --desired FILE, or source.desired in the config).`,
    });
  }
  const { state, problems } = fromLdap ? await readFromSource(runtime) : await readDesiredState(options!);
  const clean = !problems.some(isError);
  const all = clean
    ? [
        ...problems,
        ...(profile !== undefined ? validateForProfile(state, profile) : []),
        // With the config: permissions within permissions.workspaces, MANAGE only when allowed.
        ...checkPermissionPolicy(state, toPolicy(config)),
        ...checkDataFilterPolicy(state, toPolicy(config)),
      ]
    : problems;
  for (const p of all) io.stdout.write(`${isError(p) ? "error" : "warning"}: ${formatProblem(p)}\n`);
  const errors = all.filter(isError).length;
  const warnings = all.length - errors;
  if (errors > 0) {
    io.stdout.write(
      `${errors} error(s), ${warnings} warning(s): ${state.files.join(", ")} is not valid. Nothing was sent.\n`,
    );
    // A file that is not there (yet) is exit 5, as in plan and apply: the source, not its content.
    return sourceUnreadable(all) ? ExitCode.unavailable : ExitCode.invalid;
  }
  // The directory's read is checked as a run would check it (a count only: a percentage needs the service).
  if (fromLdap) checkMinUsersCount(state, config);
  if (options?.mapping !== undefined && !fromLdap) io.stdout.write(mappedPreview(state.users));
  const absent = state.users.filter((u) => u.state === "absent").length;
  io.stdout.write(
    `OK: ${state.files.join(", ")}: ${state.users.length} user(s)${absent ? ` (${absent} marked absent)` : ""}, ` +
      `${state.groups.length} group(s), ${warnings} warning(s).\n`,
  );
  return ExitCode.ok;
}
