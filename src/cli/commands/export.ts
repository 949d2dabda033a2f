/** `usersync export`: the organization as a desired-state file, the first step of adopting usersync. */
import { listActualState } from "../../service/index.js";
import { configForTarget, sortedTargetNames, toPolicy, unknownTarget } from "../../config/index.js";
import { exportFilterListing, exportListing } from "../../plan/index.js";
import { groupsPathFor, renderDesiredYaml, renderExport } from "../../desired/index.js";
import { ConfigError, ExitCode } from "../../errors.js";
import { choiceOption, stringOption, type ParsedCommand } from "../args.js";
import type { Io } from "../io.js";
import { prepareOutputPaths, writeFileAtomic } from "../../files.js";
import { loadRuntime, readFromSource, reportProblems, type Runtime } from "../pipeline.js";
import { connect } from "../target.js";

/** With targets: (docs/multi-org.md), the organization `--target` names, with its own URL and token. */
async function exportRuntime(runtime: Runtime, target: string | undefined): Promise<Runtime> {
  const names = sortedTargetNames(runtime.config);
  if (target === undefined && names.length === 0) return runtime;
  if (target === undefined)
    throw new ConfigError({
      message: `the config lists ${names.length} targets (${names.join(", ")}): export one with --target NAME.`,
    });
  if (!names.includes(target)) throw unknownTarget(runtime.config, target);
  const config = await configForTarget(runtime.config, target, runtime.io.env);
  return { ...runtime, config, logger: runtime.logger.child({ organization: target }) };
}

export async function runExport({ values }: ParsedCommand, io: Io): Promise<number> {
  const format = choiceOption(values, "format", ["yaml", "csv"] as const) ?? "yaml";
  const out = stringOption(values, "out");
  const runtime = await exportRuntime(await loadRuntime(values, io), stringOption(values, "target"));
  await prepareOutputPaths({ "--out": out });
  const { logger } = runtime;
  const from = choiceOption(values, "source", ["service", "ldap"] as const) ?? "service";
  if (from === "ldap") {
    if (format !== "yaml")
      throw new ConfigError({ message: "export --source ldap writes YAML only: drop --format csv." });
    const { state, problems } = await readFromSource({
      ...runtime,
      config: { ...runtime.config, source: { ...runtime.config.source, type: "ldap" } },
    });
    reportProblems(problems, logger);
    const text = renderDesiredYaml(state);
    if (out === undefined) io.stdout.write(text);
    else {
      await writeFileAtomic(out, text);
      logger.info(
        { users: state.users.length, groups: state.groups.length, file: out },
        `exported ${state.files[0]}`,
      );
    }
    return ExitCode.ok;
  }
  const connection = await connect({ config: runtime.config, logger });
  try {
    const policy = toPolicy(runtime.config);
    const permissions =
      connection.client.profile === "v1"
        ? exportListing(policy, runtime.config.execution.pageSize)
        : undefined;
    const dataFilters = connection.client.profile === "v1" ? exportFilterListing(policy) : undefined;
    const actual = await listActualState(connection.client, { permissions, dataFilters });
    const exported = renderExport(actual, {
      format,
      profile: connection.client.profile,
      allowOrganizationManage: policy.permissions.allowOrganizationManage,
    });
    for (const w of exported.warnings) logger.warn(w);
    if (out === undefined) {
      io.stdout.write(exported.users);
      if (exported.groups !== undefined && format === "csv") {
        logger.warn("the groups CSV is only written with --out FILE (beside it, as FILE-groups.csv)");
      }
    } else {
      await writeFileAtomic(out, exported.users);
      if (exported.groups !== undefined) await writeFileAtomic(groupsPathFor(out), exported.groups);
      logger.info(
        { users: actual.mappings.length, groups: actual.groups.length, file: out },
        `exported ${connection.label}`,
      );
    }
    return ExitCode.ok;
  } finally {
    await connection.close();
  }
}
