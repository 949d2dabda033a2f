/**
 * Command-line arguments: one table of options per command, parsed with `node:util` parseArgs.
 * The help texts below are the reference; the README quotes them.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { ConfigError } from "../errors.js";
import { closest } from "../suggest.js";

export const COMMANDS = ["plan", "apply", "validate", "export", "emulator", "demo"] as const;
export type CommandName = (typeof COMMANDS)[number];

type Options = NonNullable<ParseArgsConfig["options"]>;

// Each command takes only the options it uses, so its --help lists nothing that does nothing.
const commonOptions = {
  config: { type: "string", short: "c" },
  "log-level": { type: "string" },
  "log-format": { type: "string" },
  help: { type: "boolean", short: "h" },
} satisfies Options;
const sourceOptions = {
  desired: { type: "string", short: "d" },
  groups: { type: "string" },
} satisfies Options;
const targetOptions = { "base-url": { type: "string" } } satisfies Options;
const globalOptions = { ...commonOptions, ...sourceOptions, ...targetOptions } satisfies Options;

const planOptions = {
  mode: { type: "string" },
  out: { type: "string", short: "o" },
  format: { type: "string", short: "f" },
  detail: { type: "string" },
  "detailed-exitcode": { type: "boolean" },
  "allow-deletes": { type: "string" },
  "metrics-file": { type: "string" },
} satisfies Options;

const commandOptions = {
  plan: { ...globalOptions, ...planOptions, "log-report": { type: "boolean" } },
  apply: {
    ...globalOptions,
    ...planOptions,
    yes: { type: "boolean", short: "y" },
    plan: { type: "string" },
    report: { type: "string" },
    journal: { type: "string" },
    "credentials-file": { type: "string" },
  },
  validate: { ...commonOptions, ...sourceOptions, profile: { type: "string" } },
  export: {
    ...commonOptions,
    ...targetOptions,
    format: { type: "string", short: "f" },
    out: { type: "string", short: "o" },
    source: { type: "string" },
  },
  emulator: {
    help: { type: "boolean", short: "h" },
    port: { type: "string", short: "p" },
    profile: { type: "string" },
    token: { type: "string", multiple: true },
    seed: { type: "string" },
    data: { type: "string" },
    latency: { type: "string" },
    faults: { type: "string" },
  },
  demo: { help: { type: "boolean", short: "h" } },
} satisfies Record<CommandName, Options>;

export type ParsedValues = Record<string, string | boolean | string[] | undefined>;

export interface ParsedCommand {
  command: CommandName;
  values: ParsedValues;
  positionals: string[];
}

export type ParseResult =
  { kind: "command"; parsed: ParsedCommand } | { kind: "help"; text: string } | { kind: "version" };

export function parseCommandLine(argv: string[]): ParseResult {
  const [first, ...rest] = argv;
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    const topic = first === "help" ? rest[0] : undefined;
    return { kind: "help", text: topic && isCommand(topic) ? HELP[topic] : MAIN_HELP };
  }
  if (first === "--version" || first === "-V") return { kind: "version" };
  if (!isCommand(first)) {
    const near = closest(first, COMMANDS);
    const hint = near ? ` Did you mean "${near}"?` : "";
    throw new ConfigError({
      message: `unknown command "${first}".${hint} Commands: ${COMMANDS.join(", ")}. See usersync --help.`,
    });
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: commandOptions[first],
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new ConfigError({
      message: `${parseErrorText(err as Error, first)} See usersync ${first} --help.`,
    });
  }
  if (parsed.values.help === true) return { kind: "help", text: HELP[first] };
  return {
    kind: "command",
    parsed: { command: first, values: parsed.values as ParsedValues, positionals: parsed.positionals },
  };
}

/** Node's parseArgs message, without its "-- positional" advice, plus a "did you mean". */
function parseErrorText(err: Error, command: CommandName): string {
  const text = `${err.message.replace(/\. To specify.*$/s, "").replace(/\.$/, "")}.`;
  const unknown = /^Unknown option '(-{1,2})([^'=]+)/.exec(err.message);
  if (!unknown) return text;
  const names = Object.keys(commandOptions[command]);
  const near = unknown[1] === "--" ? closest(unknown[2]!, names) : undefined;
  if (near) return `${text} Did you mean --${near}?`;
  // "-format": a long option written with one dash.
  if (unknown[1] === "-" && names.includes(unknown[2]!)) return `${text} Did you mean --${unknown[2]}?`;
  return text;
}

function isCommand(name: string): name is CommandName {
  return (COMMANDS as readonly string[]).includes(name);
}

export function stringOption(values: ParsedValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}

export function intOption(values: ParsedValues, name: string): number | undefined {
  const v = stringOption(values, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new ConfigError({ message: `--${name} takes a whole number, not "${v}".` });
  return Number(v);
}

export function choiceOption<T extends string>(
  values: ParsedValues,
  name: string,
  choices: readonly T[],
): T | undefined {
  const v = stringOption(values, name);
  if (v === undefined) return undefined;
  if (!(choices as readonly string[]).includes(v)) {
    throw new ConfigError({ message: `--${name} must be one of ${choices.join(", ")}, not "${v}".` });
  }
  return v as T;
}

const SOURCE_HELP = `
  -d, --desired FILE     desired-state file, YAML or CSV (config: source.desired; or read an
                         LDAP/AD directory with source.type: ldap, see docs/ldap.md)
      --groups FILE      groups file for a CSV desired state (config: source.groups)`;
const TARGET_HELP = `
      --base-url URL     the service, or "embedded" for the built-in emulator (config: target.baseUrl)`;
const TOKEN_HELP = `

The API token comes only from the environment (USERSYNC_TOKEN, or target.tokenEnv) or from
target.tokenFile; never from a flag or the config file.`;

/** The options shared by several commands, listing only those the command takes. */
function globalHelp(parts: { source: boolean; target: boolean }): string {
  return `Global options:
  -c, --config FILE      config file (default: $USERSYNC_CONFIG, else usersync.yaml in the current folder, if present)${
    parts.source ? SOURCE_HELP : ""
  }${parts.target ? TARGET_HELP : ""}
      --log-level LEVEL  trace|debug|info|warn|error|silent (default info)
      --log-format FMT   json|pretty (default: pretty on a terminal, json otherwise)
  -h, --help             this help${parts.target ? TOKEN_HELP : ""}`;
}
const GLOBAL_HELP = globalHelp({ source: true, target: true });

const EXIT_CODES = `Exit codes: 0 done / no changes, 1 some steps failed or the run stopped, 2 the plan has
changes (plan --detailed-exitcode only), 3 refused by a safety guard, 4 invalid config or input,
5 the source could not be read now (directory down, file missing): retry later.`;

export const MAIN_HELP = `usersync: keep an organization's users, credentials and user groups in line with a file.

Usage: usersync <command> [options]

Commands:
  plan       list the service, compare with the desired state, print the plan (a dry run)
  apply      plan, confirm, and carry the plan out (or apply a saved plan with --plan)
  validate   check a desired-state file offline; nothing is sent
  export     write the organization's users and groups as a desired-state file
  emulator   run the local emulator of the service API
  demo       plan and apply fixtures/demo on an embedded emulator (what npm start runs)

Run "usersync <command> --help" for a command's options.

${EXIT_CODES}`;

export const HELP: Record<CommandName, string> = {
  plan: `Usage: usersync plan [options]

Lists the service, compares it with the desired state and prints the plan. Writes nothing to
the service.

Options:
  -o, --out FILE          also save the plan as JSON (apply it later with apply --plan FILE)
  -f, --format FMT        text|json|markdown (default text)
      --detail D          text: full|compact|summary (default compact over 200 steps, else full)
      --detailed-exitcode exit 2 when the plan has changes, 0 when it has none
      --log-report        also log the drift (the summary and up to 200 steps) as one log
                          line, so kubectl logs of a batch job shows it
      --mode M            incremental|full for this run (config: policy.mode)
      --allow-deletes N   allow up to N user deletions in this run, over policy.maxDeletes
      --metrics-file FILE write Prometheus metrics (textfile collector format) at the end

${GLOBAL_HELP}

${EXIT_CODES}`,
  apply: `Usage: usersync apply [options]

Plans, shows the plan, asks for confirmation, and carries it out. A run without a terminal
needs --yes.

Options:
  -y, --yes                 do not ask for confirmation (required without a terminal)
      --plan FILE           apply a saved plan exactly; steps whose objects changed since are
                            reported as stale (exit 3) and not carried out (--mode and
                            --allow-deletes are refused with it: they shape a new plan)
      --credentials-file F  where generated passwords are written (mode 0600, appended to);
                            in Kubernetes, output.credentialsSecretPrefix writes Secrets instead
      --report FILE         write the apply report (JSON): every step's outcome
      --journal FILE        append one JSON line per finished step as the run goes
  -o, --out FILE            also save the plan as JSON
  -f, --format FMT          how the plan is shown: text|json|markdown (default text)
      --detail D            text: full|compact|summary (default summary over 200 steps, else full)
      --mode M              incremental|full for this run (config: policy.mode)
      --allow-deletes N     allow up to N user deletions in this run, over policy.maxDeletes
      --metrics-file FILE   write Prometheus metrics (textfile collector format) at the end

${GLOBAL_HELP}

${EXIT_CODES}`,
  validate: `Usage: usersync validate [FILE] [options]

Checks a desired-state file (and the config) offline: every problem with file, line and field.
Nothing is sent. FILE defaults to --desired or source.desired.

Options:
      --profile P    also check the rules of an API profile: v1|legacy

${globalHelp({ source: true, target: false })}

Exit codes: 0 valid, 4 invalid, 5 the file or directory could not be read.`,
  export: `Usage: usersync export [options]

Writes the organization's users and groups as a desired-state file: the first step of adopting
usersync.

Options:
  -f, --format FMT   yaml|csv (default yaml)
  -o, --out FILE     write to FILE (CSV: the groups go beside it, users.csv -> users-groups.csv); default stdout
      --source S     service|ldap (default service); ldap writes what the directory of
                     source.ldap says, as YAML (see docs/ldap.md)

${globalHelp({ source: false, target: true })}`,
  emulator: `Usage: usersync emulator [options]

Runs the local emulator of the service API on 127.0.0.1 until interrupted.

Options:
  -p, --port N        port (default 8080; 0 picks a free one)
      --profile P     v1|legacy|both (default both)
      --token T       accepted bearer token (repeatable; default dev-token)
      --seed FILE     initial organization (JSON or YAML: idpUsers, mappings, groups)
      --data FILE     persist the organization to this JSON file
      --latency MS    add this latency to every answer (wins over the faults file's latencyMs)
      --faults FILE   inject faults as FILE says (YAML or JSON: error500, error503,
                      throttle429, dropConnection, loseAnswer, rateLimit, seed, ...;
                      see docs/emulator.md and fixtures/emulator/); checked before it starts
  -h, --help          this help`,
  demo: `Usage: usersync demo

Plans and applies fixtures/demo/ against an embedded emulator seeded with a small organization,
then plans again to show that nothing is left to do. Needs no token and no set-up.`,
};
