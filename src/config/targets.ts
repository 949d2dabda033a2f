/**
 * One target's config out of a config with `targets:` (docs/multi-org.md): the shared sections
 * with the entry's URL, token, source and overrides, and every output and state path made its
 * own. What is wrong with one entry (a URL, an override, its token) is a ConfigError of that
 * target only: the others run.
 */
import { basename, dirname, extname, isAbsolute, join, resolve } from "node:path";
import type { z } from "zod";
import { ConfigError, type Problem } from "../errors.js";
import { merge, type Tree } from "./layers.js";
import { permissionsSection } from "./permissions-schema.js";
import { policySection, type Config } from "./schema.js";
import type { TargetEntry } from "./targets-schema.js";
import { readTokenFrom, urlProblem } from "./token.js";

export { TARGET_NAME, type TargetEntry } from "./targets-schema.js";

/** The config of one target: what a run of one organization reads. */
export type TargetConfig<C extends Config> = C & { targetName: string; readonly token?: string };

/** `USERSYNC_TOKEN_<NAME>`: the default variable of a target's token, never another target's. */
export const defaultTokenEnv = (name: string): string =>
  `USERSYNC_TOKEN_${name.toUpperCase().replace(/-/g, "_")}`;

/**
 * A path made the target's own: `{target}` replaced by its name, else the name put before the
 * extension (`/var/lib/usersync/report.json` -> `report.acme.json`), so two targets never write
 * one file, even with a config written for one organization.
 */
export function forTarget(path: string, name: string): string {
  if (path.includes("{target}")) return path.replaceAll("{target}", name);
  const ext = extname(path);
  return join(dirname(path), `${basename(path, ext)}.${name}${ext}`);
}

/** The target names in the order an Indexed Job counts them (JOB_COMPLETION_INDEX). */
export const sortedTargetNames = (config: Config): string[] =>
  config.targets.map((t) => t.name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** Where a target's token comes from: its own file or variable, else the {target} file, else USERSYNC_TOKEN_<NAME>. */
export function tokenSourceOf(
  config: Config & { configFile?: string },
  e: TargetEntry,
): { tokenFile?: string; tokenEnv: string } {
  const base = config.configFile === undefined ? undefined : dirname(config.configFile);
  const at = (p: string): string => (isAbsolute(p) || base === undefined ? p : resolve(base, p));
  if (e.tokenFile !== undefined)
    return { tokenFile: at(e.tokenFile), tokenEnv: e.tokenEnv ?? defaultTokenEnv(e.name) };
  if (e.tokenEnv !== undefined) return { tokenEnv: e.tokenEnv };
  const shared = config.target.tokenFile;
  if (shared?.includes("{target}"))
    return { tokenFile: forTarget(shared, e.name), tokenEnv: defaultTokenEnv(e.name) };
  // The shared token only when the entry says so; else the target's own variable.
  if (e.shareToken)
    return { ...(shared !== undefined ? { tokenFile: shared } : {}), tokenEnv: config.target.tokenEnv };
  return { tokenEnv: defaultTokenEnv(e.name) };
}

/** Two targets reading one token (variable or file) without both saying shareToken: a config error. */
export function sharedTokenProblems(config: Config): string[] {
  const users = new Map<string, TargetEntry[]>();
  for (const e of config.targets) {
    const t = tokenSourceOf(config, e);
    const key = t.tokenFile !== undefined ? `the token file ${t.tokenFile}` : `the variable ${t.tokenEnv}`;
    users.set(key, [...(users.get(key) ?? []), e]);
  }
  return [...users]
    .filter(([, es]) => es.length > 1 && es.some((e) => !e.shareToken))
    .map(
      ([key, es]) =>
        `targets ${es.map((e) => e.name).join(", ")} read one token (${key}): give each its own tokenEnv or tokenFile, or set shareToken: true on each of them if one token really serves them all`,
    );
}

/** The variables that hold targets' tokens, so the environment layer does not read them as settings. */
export function targetTokenEnvNames(fileData: Tree): string[] {
  const targets = fileData["targets"];
  if (!Array.isArray(targets)) return [];
  return targets.flatMap((t: unknown) => {
    const e = (t ?? {}) as { name?: unknown; tokenEnv?: unknown };
    return [
      ...(typeof e.tokenEnv === "string" ? [e.tokenEnv] : []),
      ...(typeof e.name === "string" ? [defaultTokenEnv(e.name)] : []),
    ];
  });
}

/** The shared section with the entry's keys merged over it, checked by the section's own schema. */
function overridden<S extends z.ZodType>(
  schema: S,
  shared: unknown,
  over: Record<string, unknown> | undefined,
  field: string,
  problems: string[],
): z.output<S> | undefined {
  if (over === undefined) return shared as z.output<S>;
  const parsed = schema.safeParse(merge(shared as Tree, over as Tree));
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues)
    problems.push(`${[field, ...issue.path.map(String)].join(".")}: ${issue.message}`);
  return undefined;
}

/** The entry's parts that can be wrong, checked and read: its URL, overrides and token. */
async function checkedParts(
  config: Config & { configFile?: string },
  e: TargetEntry,
  where: string,
  env: NodeJS.ProcessEnv,
) {
  const problems: string[] = [];
  const bad = urlProblem(e.baseUrl, e.allowInsecureHttp ?? config.target.allowInsecureHttp);
  if (bad !== undefined) problems.push(`${where}.baseUrl: ${bad.message}`);
  const policy = overridden(policySection, config.policy, e.policy, `${where}.policy`, problems);
  const permissions = overridden(
    permissionsSection,
    config.permissions,
    e.permissions,
    `${where}.permissions`,
    problems,
  );
  const tokenSource = tokenSourceOf(config, e);
  const read = await readTokenFrom(tokenSource, env);
  if (read.problem !== undefined) problems.push(`${where}.tokenFile: ${read.problem}`);
  if (problems.length > 0 || policy === undefined || permissions === undefined)
    throw new ConfigError({
      message: `target ${e.name}: invalid configuration (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n${problems.map((p) => `  ${p}`).join("\n")}`,
      problems: problems.map((message): Problem => ({
        file: config.configFile ?? "(config)",
        field: where,
        rule: "target",
        message,
      })),
    });
  return { policy, permissions, tokenSource, token: read.token };
}

/** The config a run of target `name` reads, its token read; a ConfigError names what is wrong with the entry. */
export async function configForTarget<C extends Config & { configFile?: string }>(
  config: C,
  name: string,
  env: NodeJS.ProcessEnv,
): Promise<TargetConfig<C>> {
  const index = config.targets.findIndex((t) => t.name === name);
  const e = config.targets[index];
  if (e === undefined) throw unknownTarget(config, name);
  const base = config.configFile === undefined ? process.cwd() : dirname(config.configFile);
  const at = (p: string): string => (isAbsolute(p) ? p : resolve(base, p));
  const { policy, permissions, tokenSource, token } = await checkedParts(
    config,
    e,
    `targets[${index}] (${name})`,
    env,
  );
  const own = (p: string | undefined): string | undefined =>
    p === undefined ? undefined : forTarget(p, name);
  const out: TargetConfig<C> = {
    ...config,
    targetName: name,
    target: {
      ...config.target,
      baseUrl: e.baseUrl,
      apiProfile: e.apiProfile ?? config.target.apiProfile,
      ...tokenSource,
      caFile: e.caFile !== undefined ? at(e.caFile) : config.target.caFile,
      allowInsecureHttp: e.allowInsecureHttp ?? config.target.allowInsecureHttp,
      embeddedData: e.embeddedData !== undefined ? at(e.embeddedData) : own(config.target.embeddedData),
    },
    source:
      e.desired === undefined
        ? { ...config.source, minUsers: e.minUsers ?? config.source.minUsers }
        : {
            ...config.source,
            minUsers: e.minUsers ?? config.source.minUsers,
            type: "file",
            desired: at(e.desired),
            groups: e.groups === undefined ? undefined : at(e.groups),
            format: e.format ?? config.source.format,
            ldap: undefined,
          },
    policy: { ...policy, mode: policy.mode ?? config.policy.mode },
    permissions,
    output: targetOutput(config.output, name),
    state: { file: own(config.state.file) },
  };
  Object.defineProperty(out, "token", { value: token, enumerable: false, writable: false });
  return out;
}

function targetOutput(output: Config["output"], name: string): Config["output"] {
  const own = (p: string | undefined): string | undefined =>
    p === undefined ? undefined : forTarget(p, name);
  return {
    ...output,
    plan: own(output.plan),
    report: own(output.report),
    journal: own(output.journal),
    credentialsFile: own(output.credentialsFile),
    credentialsDir: own(output.credentialsDir),
    metricsFile: own(output.metricsFile),
    // A person of two organizations gets a Secret in each: the names differ by organization.
    credentialsSecretPrefix:
      output.credentialsSecretPrefix === undefined ? undefined : `${output.credentialsSecretPrefix}-${name}`,
    // Each organization's metrics are their own group on the Pushgateway (one push never replaces another's).
    metricsPushGrouping: [...output.metricsPushGrouping, `organization=${name}`],
  };
}

export function unknownTarget(config: Config, name: string): ConfigError {
  const names = sortedTargetNames(config);
  return new ConfigError({
    message:
      names.length === 0
        ? `--target ${name}: the config has no targets: section (docs/multi-org.md)`
        : `--target ${name}: no such target; the config's targets are ${names.join(", ")}`,
  });
}
