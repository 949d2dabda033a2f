/** `usersync export`: the organization as a desired-state file, the first step of adopting usersync. */
import { listActualState, type ActualState, type ServiceClient } from "../../service/index.js";
import type { SignInKind } from "../../desired/export-logins.js";
import { toPolicy } from "../../config/index.js";
import { exportFilterListing, exportListing } from "../../plan/index.js";
import { groupsPathFor, renderDesiredYaml, renderExport } from "../../desired/index.js";
import { ConfigError, ExitCode } from "../../errors.js";
import { choiceOption, stringOption, type ParsedCommand } from "../args.js";
import { ownPath } from "../output-paths.js";
import { prepareOutputPaths, writeFileAtomic } from "../../files.js";
import { readFromSource, reportProblems, type Runtime } from "../pipeline.js";
import { connect } from "../target.js";

/**
 * How the organization signs people in, asked only when a mapping's authenticationId matches no
 * built-in login (revoked, or an SSO user: export-logins.ts); two GETs, on v1.
 */
async function signInKind(client: ServiceClient, actual: ActualState): Promise<SignInKind | undefined> {
  if (actual.builtinIdp === false || client.signIn === undefined) return undefined;
  const known = new Set(actual.idpUsers.map((u) => u.authenticationId));
  const unlinked = actual.mappings.some(
    (m) => m.authenticationId !== undefined && !known.has(m.authenticationId),
  );
  return unlinked ? (await client.signIn())?.kind : undefined;
}

/** Lists the organization and renders it. */
async function exportService(
  runtime: Runtime,
  client: ServiceClient,
  o: { format: "yaml" | "csv"; handMade: boolean },
): Promise<{ actual: ActualState; exported: ReturnType<typeof renderExport> }> {
  const policy = toPolicy(runtime.config);
  const v1 = client.profile === "v1";
  const permissions = v1 ? exportListing(policy, runtime.config.execution.pageSize) : undefined;
  const kept = v1 ? exportFilterListing(policy) : undefined;
  // Hand-made filters are listed on every workspace; usersync's are written only where it keeps them.
  const dataFilters = v1 && o.handMade ? { inScope: () => true } : kept;
  const actual = await listActualState(client, { permissions, dataFilters });
  const exported = renderExport(actual, {
    format: o.format,
    profile: client.profile,
    allowOrganizationManage: policy.permissions.allowOrganizationManage,
    signIn: await signInKind(client, actual),
    filterScope: kept?.inScope ?? (() => false),
    handMadeFilters: o.handMade,
  });
  return { actual, exported };
}

/** `usersync export` for one organization (run-targets.ts runs it for each target: `--out` made its own). */
export async function runExport({ values }: ParsedCommand, runtime: Runtime): Promise<number> {
  const format = choiceOption(values, "format", ["yaml", "csv"] as const) ?? "yaml";
  const out = ownPath(stringOption(values, "out"), runtime.config);
  await prepareOutputPaths({ "--out": out });
  const { logger, io } = runtime;
  const from = choiceOption(values, "source", ["service", "ldap"] as const) ?? "service";
  const handMade = values["hand-made-filters"] === true;
  if (handMade && (format !== "yaml" || from === "ldap"))
    throw new ConfigError({
      message:
        "export --hand-made-filters lists them in a YAML comment: use --format yaml and the service as source.",
    });
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
    const { actual, exported } = await exportService(runtime, connection.client, { format, handMade });
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
