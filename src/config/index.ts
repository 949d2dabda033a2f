/**
 * Loading the config: defaults < config file < `USERSYNC_…` environment < CLI flags, validated by
 * one schema, then the cross-field rules; every problem is reported at once with its key path and
 * where the value came from. The API token comes only from the environment or a token file.
 */
import { stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { Problem } from "../errors.js";
import { characterProblems } from "./characters.js";
import { envLayer, fileLayer, flagLayer, getPath, merge, resolvePaths } from "./layers.js";
import type { Layer, Origin, Tree } from "./layers.js";
import { configError } from "./config-error.js";
import { readToken, withoutScheme } from "./token.js";
import { crossFieldProblems } from "./cross-field.js";
import { configSchema, oktaSecretEnv } from "./schema.js";
import { targetTokenEnvNames } from "./targets.js";
import { didYouMean, keysAt } from "./known-keys.js";
import type { Config } from "./schema.js";

export type { Config } from "./schema.js";
export { configSchema, envNameOf, LEAVES } from "./schema.js";
export { ineffectiveSettings, toPolicy } from "./policy.js";
export { durationSeconds } from "./values.js";
export { desiredReadOptions } from "./desired-options.js";
export {
  configForTarget,
  forTarget,
  sortedTargetNames,
  unknownTarget,
  TARGET_NAME,
  type TargetConfig,
  type TargetEntry,
} from "./targets.js";

export const DEFAULT_CONFIG_FILE = "usersync.yaml";

/** Values from CLI flags; each wins over the environment and the file. */
export interface ConfigOverrides {
  baseUrl?: string;
  apiProfile?: string;
  desired?: string;
  groups?: string;
  format?: string;
  logLevel?: string;
  logFormat?: string;
  mode?: string;
  concurrency?: number;
  requestsPerSecond?: number;
  plan?: string;
  report?: string;
  journal?: string;
  credentialsFile?: string;
  metricsFile?: string;
  /** `--min-users`: a count or a percentage, over source.minUsers and every targets[].minUsers. */
  minUsers?: number | string;
}

const FLAGS: Record<keyof ConfigOverrides, { leaf: string; flag: string }> = {
  baseUrl: { leaf: "target.baseUrl", flag: "--base-url" },
  apiProfile: { leaf: "target.apiProfile", flag: "--api-profile" },
  desired: { leaf: "source.desired", flag: "--desired" },
  groups: { leaf: "source.groups", flag: "--groups" },
  format: { leaf: "source.format", flag: "--format" },
  logLevel: { leaf: "logging.level", flag: "--log-level" },
  logFormat: { leaf: "logging.format", flag: "--log-format" },
  mode: { leaf: "policy.mode", flag: "--mode" },
  concurrency: { leaf: "execution.concurrency", flag: "--concurrency" },
  requestsPerSecond: { leaf: "execution.requestsPerSecond", flag: "--requests-per-second" },
  plan: { leaf: "output.plan", flag: "--out" },
  report: { leaf: "output.report", flag: "--report" },
  journal: { leaf: "output.journal", flag: "--journal" },
  credentialsFile: { leaf: "output.credentialsFile", flag: "--credentials-file" },
  metricsFile: { leaf: "output.metricsFile", flag: "--metrics-file" },
  minUsers: { leaf: "source.minUsers", flag: "--min-users" },
};

export interface LoadConfigOptions {
  /**
   * `--config FILE`; else the environment's `USERSYNC_CONFIG`; else `usersync.yaml` in `cwd` when
   * it exists (no file at all: defaults).
   */
  file?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  overrides?: ConfigOverrides;
}

/**
 * The validated config. `token` is a non-enumerable property: JSON.stringify, util.inspect,
 * object spread and loggers never see it.
 */
export type LoadedConfig = Config & {
  /** Absolute path of the config file read, if any. */
  configFile?: string;
  readonly token?: string;
  /** Non-fatal notes, e.g. an unknown `USERSYNC_…` variable. */
  warnings: string[];
  /** The target this config is for (targets.ts), when the config has targets. */
  targetName?: string;
};

const TOKEN_KEYS = /^(token|apiToken|api_token|bearerToken|password)$/i;

export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const configFile = await findConfigFile(options);
  const file: Layer = configFile
    ? await fileLayer(configFile)
    : { data: {}, origins: new Map(), problems: [] };
  if (file.problems.length > 0) throw configError(file.problems);
  const fileProblems = tokenKeyProblems(file, configFile ?? "");
  if (configFile) resolvePaths(file.data, dirname(configFile));

  const env = envLayer(options.env, tokenEnvNames(file, options.env));
  resolvePaths(env.data, options.cwd);
  const flags = flagLayer(
    Object.entries(options.overrides ?? {}).map(([key, value]) => ({
      ...FLAGS[key as keyof ConfigOverrides],
      value,
    })),
  );
  resolvePaths(flags.data, options.cwd);

  const layers = [file, env, flags];
  const merged = layers.reduce<Tree>((acc, l) => merge(acc, l.data), {});
  const originOf = originFinder(layers, configFile);

  const problems: Problem[] = [...fileProblems, ...env.problems, ...characterProblems(merged, originOf)];
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) problems.push(...schemaProblems(parsed.error.issues, originOf));
  if (problems.length > 0 || !parsed.success) throw configError(problems, configFile);
  const config = parsed.data;
  problems.push(...crossFieldProblems(config, originOf));
  if (problems.length > 0) throw configError(problems, configFile);

  // --min-users is this run's floor for every organization: a target's own minUsers gives way.
  if (options.overrides?.minUsers !== undefined) for (const t of config.targets) delete t.minUsers;
  const read = await readToken(config, options.env, originOf);
  const { token, warning } = withoutScheme(read, config.target);
  const warnings = [...env.warnings, ...(warning !== undefined ? [warning] : [])];
  const loaded: LoadedConfig = { ...config, warnings, ...(configFile ? { configFile } : {}) };
  Object.defineProperty(loaded, "token", { value: token, enumerable: false, writable: false });
  return loaded;
}

/** The variables that may hold the token, so the env layer does not read them as settings. */
function tokenEnvNames(file: Layer, env: NodeJS.ProcessEnv): Set<string> {
  const names = new Set(["USERSYNC_TOKEN", "USERSYNC_CONFIG"]);
  const fileTokenEnv = getPath(file.data, "target.tokenEnv");
  if (typeof fileTokenEnv === "string") names.add(fileTokenEnv);
  if (env.USERSYNC_TARGET_TOKEN_ENV) names.add(env.USERSYNC_TARGET_TOKEN_ENV);
  // The LDAP bind password's and the Okta key's variables (docs/ldap.md, okta.md) are secrets.
  ["USERSYNC_LDAP_PASSWORD", ...oktaSecretEnv(file.data, getPath)].forEach((n) => names.add(n));
  for (const name of targetTokenEnvNames(file.data)) names.add(name);
  const ldapPasswordEnv = getPath(file.data, "source.ldap.passwordEnv");
  if (typeof ldapPasswordEnv === "string") names.add(ldapPasswordEnv);
  if (env.USERSYNC_SOURCE_LDAP_PASSWORD_ENV) names.add(env.USERSYNC_SOURCE_LDAP_PASSWORD_ENV);
  // So is the Entra client secret's (docs/entra.md).
  names.add("USERSYNC_ENTRA_CLIENT_SECRET");
  const entraSecretEnv = getPath(file.data, "source.entra.secretEnv");
  if (typeof entraSecretEnv === "string") names.add(entraSecretEnv);
  return names;
}

/** Where a setting came from: the last layer that sets it or a key above it. */
function originFinder(layers: readonly Layer[], configFile: string | undefined): (path: string) => Origin {
  return (path) => {
    for (const l of [...layers].reverse()) {
      for (let p = path; p !== ""; p = p.includes(".") ? p.slice(0, p.lastIndexOf(".")) : "") {
        const o = l.origins.get(p);
        if (o) return o;
      }
    }
    return { file: configFile ?? "(config)" };
  };
}

type SchemaIssue = NonNullable<ReturnType<typeof configSchema.safeParse>["error"]>["issues"][number];

/** The schema's issues as problems at their origin; an unknown key points at the example file. */
function schemaProblems(issues: readonly SchemaIssue[], originOf: (path: string) => Origin): Problem[] {
  const problems: Problem[] = [];
  for (const issue of issues) {
    const base = issue.path.map(String).join(".");
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [undefined];
    for (const key of keys) {
      if (key !== undefined && TOKEN_KEYS.test(key)) continue; // reported by tokenKeyProblems
      const path = [base, key].filter(Boolean).join(".");
      const message =
        key !== undefined
          ? `unknown key; ${didYouMean(key, keysAt(configSchema, issue.path))}see config.example.yaml for the keys of ${base || "the top level"}`
          : issue.message;
      problems.push({
        ...originOf(path),
        field: path || "(top level)",
        rule: key !== undefined ? "unknown-key" : "config-schema",
        message,
      });
    }
  }
  return problems;
}

async function findConfigFile(options: LoadConfigOptions): Promise<string | undefined> {
  if (options.file !== undefined) return resolve(options.cwd, options.file);
  // The environment's way to say --config (a CronJob's env), read like the flag: a missing file is an error.
  const fromEnv = options.env["USERSYNC_CONFIG"]?.trim();
  if (fromEnv) return resolve(options.cwd, fromEnv);
  const candidate = resolve(options.cwd, DEFAULT_CONFIG_FILE);
  if (await isFile(candidate)) return candidate;
  // A usersync.yml beside it was meant as the config: run without it, usersync would plan in
  // the wrong mode (no safety settings, the wrong source) and say nothing. Refused, exit 4.
  const misnamed = resolve(options.cwd, MISNAMED_CONFIG_FILE);
  if (await isFile(misnamed))
    throw configError([
      {
        file: misnamed,
        rule: "config-file-name",
        message: `usersync reads ${DEFAULT_CONFIG_FILE} from the current folder, not ${MISNAMED_CONFIG_FILE}: rename the file to ${DEFAULT_CONFIG_FILE}, or name it with --config ${MISNAMED_CONFIG_FILE}`,
      },
    ]);
  return undefined;
}

/** The name people also give a YAML file; never read by default, refused when it is there alone. */
const MISNAMED_CONFIG_FILE = "usersync.yml";

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** A token in the config file is refused wherever it is, with where it belongs instead. */
function tokenKeyProblems(file: Layer, configFile: string): Problem[] {
  const out: Problem[] = [];
  for (const [path, origin] of file.origins) {
    const key = path.split(".").pop()!;
    if (TOKEN_KEYS.test(key) && path !== "target.tokenEnv")
      out.push({
        ...origin,
        file: configFile,
        field: path,
        rule: "token-in-config",
        message:
          "secrets never go into the config file: put the API token in the environment variable named by target.tokenEnv (default USERSYNC_TOKEN) or in a file named by target.tokenFile, and remove this key",
      });
  }
  return out;
}
