/**
 * The one table of commands and their options. The parser (args.ts) builds `parseArgs`'s
 * options from it and `--help` is rendered from it, so a command never lists an option it does
 * not take, nor takes one it does not list. The README's option sentences are checked against
 * it (test/cli/options.test.ts).
 */

import { reviewSpec } from "./review-spec.js";
import { TARGET_OPTIONS } from "./target-options.js";
import { campaignSpec } from "./campaign-spec.js";
import { credentialsSpec } from "./credentials-spec.js";

import { COMMANDS } from "./command-names.js";
export { COMMANDS };
import { TODAY_OPTION } from "./today-option.js";
import { DIRECTORY_STAND_IN_OPTIONS } from "./stand-in-options.js";
export type CommandName = (typeof COMMANDS)[number];

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  /** The value's name in --help (FILE, URL, N); string options only. */
  value?: string;
  /** Help text; each further line is aligned under the first. */
  help: string;
}

type OptionTable = Readonly<Record<string, OptionSpec>>;

/** Options several commands share, listed under "Global options:" in the order here. */
export const GLOBAL_OPTIONS = {
  config: {
    type: "string",
    short: "c",
    value: "FILE",
    help: "config file (default: $USERSYNC_CONFIG, else usersync.yaml in the current folder, if present)",
  },
  desired: {
    type: "string",
    short: "d",
    value: "FILE",
    help: "desired-state file, YAML or CSV (config: source.desired; or read an\nLDAP/AD directory with source.type: ldap, see docs/ldap.md, or Okta:\ndocs/okta.md)",
  },
  groups: {
    type: "string",
    value: "FILE",
    help: "groups file for a CSV desired state (config: source.groups)",
  },
  "base-url": {
    type: "string",
    value: "URL",
    help: 'the service\'s root URL, or "embedded" for the built-in emulator (config: target.baseUrl)',
  },
  "log-level": {
    type: "string",
    value: "LEVEL",
    help: "trace|debug|info|warn|error|fatal|silent (default info)",
  },
  "log-format": {
    type: "string",
    value: "FMT",
    help: "json|pretty (default: pretty on a terminal, json otherwise)",
  },
  help: { type: "boolean", short: "h", help: "this help" },
  version: { type: "boolean", short: "V", help: "print the version and exit" },
} as const satisfies OptionTable;

export type GlobalOption = keyof typeof GLOBAL_OPTIONS;

/** Every command takes these: how it logs, its help, the version. */
const ALWAYS: readonly GlobalOption[] = ["log-level", "log-format", "help", "version"];
const READS_SOURCE: readonly GlobalOption[] = ["config", "desired", "groups", ...ALWAYS];
const READS_AND_TALKS: readonly GlobalOption[] = ["config", "desired", "groups", "base-url", ...ALWAYS];

export interface CommandSpec {
  /** One line for the command list of `usersync --help`. */
  summary: string;
  usage: string;
  description: string;
  options: OptionTable;
  globals: readonly GlobalOption[];
  /** Positional arguments taken (validate's FILE); none when absent. */
  positional?: { name: string; max: number };
  /** Text after the options (the token note, exit codes). */
  footer?: string;
}

const TOKEN_NOTE = `The API token comes only from the environment (USERSYNC_TOKEN, or target.tokenEnv) or from
target.tokenFile; never from a flag or the config file.`;

const planOptions = {
  mode: { type: "string", value: "M", help: "incremental|full for this run (config: policy.mode)" },
  "allow-deletes": {
    type: "string",
    value: "N",
    help: "allow up to N user deletions in this run, over policy.maxDeletes",
  },
  "allow-reverts": {
    type: "string",
    value: "N",
    help: "let up to N steps through that undo what a run within\npolicy.revertWindow changed (the revert guard; docs/configuration.md)",
  },
  "allow-permission-removals": {
    type: "string",
    value: "N",
    help: "allow up to N permission removals in this run, over\npermissions.maxRemovals (docs/permissions.md)",
  },
  "min-users": {
    type: "string",
    value: "N",
    help: "this run's source.minUsers, a count or \"90%\", over the config's and\nevery target's (a rollback to a smaller desired state; docs/multi-org.md)",
  },
  "allow-empty-groups": {
    type: "boolean",
    help: "believe, for this run, a picked directory group that reads empty\nwhile the last successful run saw members (docs/sources.md)",
  },
  "allow-filter-widenings": {
    type: "string",
    value: "N",
    help: "allow up to N data filter removals or widenings while access\nremains, over dataFilters.maxWidenings (docs/data-filters.md)",
  },
  ...TODAY_OPTION,
  "metrics-file": {
    type: "string",
    value: "FILE",
    help: "write Prometheus metrics (textfile collector format) at the end",
  },
  ...TARGET_OPTIONS,
} as const satisfies OptionTable;

const formatOption = (help: string): OptionSpec => ({ type: "string", short: "f", value: "FMT", help });
const detailOption = (over200: string): OptionSpec => ({
  type: "string",
  value: "D",
  help: `text: full|compact|summary (default ${over200} over 200 steps, else full)`,
});

export const COMMAND_SPECS: Readonly<Record<CommandName, CommandSpec>> = {
  plan: {
    summary: "list the service, compare with the desired state, print the plan (a dry run)",
    usage: "usersync plan [options]",
    description:
      "Lists the service, compares it with the desired state and prints the plan. Writes nothing to\nthe service.",
    options: {
      out: {
        type: "string",
        short: "o",
        value: "FILE",
        help: "also save the plan as JSON (apply it later with apply --plan FILE)",
      },
      format: formatOption("text|json|markdown|html (default text); markdown, html: per person"),
      detail: detailOption("compact"),
      "detailed-exitcode": { type: "boolean", help: "exit 2 when the plan has changes, 0 when it has none" },
      "log-report": {
        type: "boolean",
        help: "also log the drift (the summary and up to 200 steps) as one log\nline, so kubectl logs of a batch job shows it",
      },
      ...planOptions,
    },
    globals: READS_AND_TALKS,
    footer: TOKEN_NOTE,
  },
  apply: {
    summary: "plan, confirm, and carry the plan out (or apply a saved plan with --plan)",
    usage: "usersync apply [options]",
    description:
      "Plans, shows the plan, asks for confirmation, and carries it out. A run without a terminal\nneeds --yes. Ctrl-C (or SIGTERM) starts no new step, lets the running ones finish, writes the\nreport and exits 130; a second one stops at once (the report says what was still running).",
    options: {
      yes: { type: "boolean", short: "y", help: "do not ask for confirmation (required without a terminal)" },
      plan: {
        type: "string",
        value: "FILE",
        help: "apply a saved plan exactly, and only to the organization it was\nmade for (another: exit 4, nothing sent); steps whose objects changed\nsince are reported as stale (exit 3) and not carried out (--mode,\n--allow-deletes, --allow-permission-removals, --allow-filter-widenings\nand --allow-reverts are refused with it: they shape a new plan)",
      },
      "credentials-file": {
        type: "string",
        value: "F",
        help: "where generated passwords are written (mode 0600, appended to);\nin Kubernetes, output.credentialsSecretPrefix writes Secrets instead",
      },
      "credentials-dir": {
        type: "string",
        value: "DIR",
        help: "also write each generated password to one file per person in DIR\n(<email>.txt, mode 0600; the folder 0700, refused if others can read it)",
      },
      report: { type: "string", value: "FILE", help: "write the apply report (JSON): every step's outcome" },
      journal: {
        type: "string",
        value: "FILE",
        help: "append one JSON line per finished step as the run goes",
      },
      out: { type: "string", short: "o", value: "FILE", help: "also save the plan as JSON" },
      format: formatOption("how the plan is shown: text|json|markdown (default text)"),
      detail: detailOption("summary"),
      ...planOptions,
    },
    globals: READS_AND_TALKS,
    footer: TOKEN_NOTE,
  },
  review: reviewSpec({ planOptions, formatOption, globals: READS_AND_TALKS, footer: TOKEN_NOTE }),
  campaign: campaignSpec({ planOptions, globals: READS_AND_TALKS, footer: TOKEN_NOTE }),
  credentials: credentialsSpec({
    planOptions,
    globals: ["config", "base-url", ...ALWAYS],
    footer: TOKEN_NOTE,
  }),
  validate: {
    summary: "check the config and the desired state; nothing is sent",
    usage: "usersync validate [FILE] [options]",
    description:
      "Checks a desired-state file (and the config): every problem with file, line and field. Nothing\nis sent. FILE defaults to --desired or source.desired; a directory source is read (read-only).\nWith targets: each target's select is checked as plan checks it, one line per target and a\nsummary (all targets unless --target, --all-targets or --target-index says; docs/multi-org.md).",
    options: {
      profile: { type: "string", value: "P", help: "also check the rules of an API profile: v1|legacy" },
      offline: {
        type: "boolean",
        help: "with targets: do not read a directory source (each select is then\nnot checked against it)",
      },
      ...TARGET_OPTIONS,
    },
    globals: READS_SOURCE,
    positional: { name: "FILE", max: 1 },
  },
  export: {
    summary: "write the organization's users and groups as a desired-state file",
    usage: "usersync export [options]",
    description:
      "Writes the organization's users and groups as a desired-state file: the first step of adopting\nusersync. With permissions.workspaces set, their permissions on those workspaces too.",
    options: {
      format: formatOption("yaml|csv (default yaml)"),
      out: {
        type: "string",
        short: "o",
        value: "FILE",
        help: "write to FILE (CSV: the groups go beside it, users.csv -> users-groups.csv); default stdout",
      },
      ...TARGET_OPTIONS,
      source: {
        type: "string",
        value: "S",
        help: "service|ldap (default service); ldap writes what the directory of\nsource.ldap says, as YAML (see docs/ldap.md)",
      },
      "hand-made-filters": {
        type: "boolean",
        help: "also list the data filters made outside usersync, every workspace's, as a\ncomment at the end of the YAML, marked as not usersync's (docs/data-filters.md)",
      },
    },
    globals: ["config", "base-url", ...ALWAYS],
    footer: TOKEN_NOTE,
  },
  emulator: {
    summary: "run the local emulator of the service API",
    usage: "usersync emulator [options]",
    description:
      "Runs the local emulator of the service API on 127.0.0.1 until interrupted (then exits 0). It\nreads no config file: its options are all below.",
    options: {
      port: { type: "string", short: "p", value: "N", help: "port (default 8080; 0 picks a free one)" },
      profile: { type: "string", value: "P", help: "v1|legacy|both (default both)" },
      token: {
        type: "string",
        multiple: true,
        value: "T",
        help: "accepted bearer token (repeatable; default dev-token)",
      },
      seed: {
        type: "string",
        value: "FILE",
        help: "initial organization (JSON or YAML: idpUsers, mappings, groups,\nworkspaces with their grants, organizationPermissions, dataFilters;\nhow people sign in: organization, identityProviders,\norganizationSettings)",
      },
      data: { type: "string", value: "FILE", help: "persist the organization to this JSON file" },
      "user-management": {
        type: "string",
        value: "M",
        help: "on|404|405 (default on): 404 or 405 answers every bulk membership\nrequest (userManagement) with that status, like an older service",
      },
      latency: {
        type: "string",
        value: "MS",
        help: "add this latency to every answer (wins over the faults file's latencyMs)",
      },
      faults: {
        type: "string",
        value: "FILE",
        help: "inject faults as FILE says (YAML or JSON: error500, error503,\nthrottle429, dropConnection, loseAnswer, rateLimit, seed, ...;\nsee docs/emulator.md and fixtures/emulator/); checked before it starts",
      },
      ...DIRECTORY_STAND_IN_OPTIONS,
    },
    globals: ALWAYS,
  },
  demo: {
    summary: "plan and apply fixtures/demo on an embedded emulator (what npm start runs)",
    usage: "usersync demo [options]",
    description:
      "Plans and applies fixtures/demo/ against an embedded emulator seeded with a small organization,\nthen plans again to show that nothing is left to do. Needs no token and no set-up; its config\nis fixtures/demo/usersync.yaml (no --config).",
    options: {},
    globals: ALWAYS,
  },
};

export { EXIT_CODE_HELP } from "./exit-codes.js";
