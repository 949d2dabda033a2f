/**
 * Command-line arguments, parsed with `node:util` parseArgs from the one table of options
 * (options.ts); `--help` is rendered from the same table.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { ConfigError } from "../errors.js";
import { closest } from "../suggest.js";
import {
  COMMANDS,
  COMMAND_SPECS,
  EXIT_CODE_HELP,
  GLOBAL_OPTIONS,
  type CommandName,
  type OptionSpec,
} from "./options.js";
import { usersyncCommand } from "./invocation.js";

export { COMMANDS, type CommandName } from "./options.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

export type ParsedValues = Record<string, string | boolean | string[] | undefined>;

export interface ParsedCommand {
  command: CommandName;
  values: ParsedValues;
  positionals: string[];
}

export type ParseResult =
  { kind: "command"; parsed: ParsedCommand } | { kind: "help"; text: string } | { kind: "version" };

/** A command's own options and the global ones it takes, by name. */
export function optionsOf(command: CommandName): Record<string, OptionSpec> {
  const spec = COMMAND_SPECS[command];
  return { ...spec.options, ...Object.fromEntries(spec.globals.map((g) => [g, GLOBAL_OPTIONS[g]])) };
}

function parserOptions(command: CommandName): Options {
  const out: Options = {};
  for (const [name, o] of Object.entries(optionsOf(command)))
    out[name] = {
      type: o.type,
      ...(o.short !== undefined ? { short: o.short } : {}),
      ...(o.multiple ? { multiple: true } : {}),
    };
  return out;
}

export function parseCommandLine(argv: string[]): ParseResult {
  const [first, ...rest] = argv;
  // No command is a usage error, not success: a script or Job that lost its arguments must fail.
  if (first === undefined)
    throw new ConfigError({
      message: `no command given. Usage: usersync <command> [options]; commands: ${COMMANDS.join(", ")}. See ${usersyncCommand()} --help.`,
    });
  if (first === "--help" || first === "-h" || first === "help") {
    const topic = first === "help" ? rest[0] : undefined;
    return { kind: "help", text: topic && isCommand(topic) ? commandHelp(topic) : mainHelp() };
  }
  if (first === "--version" || first === "-V") return { kind: "version" };
  if (!isCommand(first)) {
    const near = closest(first, COMMANDS);
    const hint = near ? ` Did you mean "${near}"?` : "";
    throw new ConfigError({
      message: `unknown command "${first}".${hint} Commands: ${COMMANDS.join(", ")}. See ${usersyncCommand()} --help.`,
    });
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: parserOptions(first), allowPositionals: true, strict: true });
  } catch (err) {
    throw new ConfigError({
      message: `${parseErrorText(err as Error, first)} See usersync ${first} --help.`,
    });
  }
  if (parsed.values["help"] === true) return { kind: "help", text: commandHelp(first) };
  if (parsed.values["version"] === true) return { kind: "version" };
  checkPositionals(first, parsed.positionals);
  return {
    kind: "command",
    parsed: { command: first, values: parsed.values as ParsedValues, positionals: parsed.positionals },
  };
}

/** A word a command does not take (`plan users.yaml`) is refused, not ignored. */
function checkPositionals(command: CommandName, positionals: readonly string[]): void {
  const max = COMMAND_SPECS[command].positional?.max ?? 0;
  if (positionals.length <= max) return;
  const extra = positionals[max]!;
  const takesDesired = COMMAND_SPECS[command].globals.includes("desired");
  const hint =
    takesDesired && /\.(ya?ml|csv)$/i.test(extra) ? ` To plan from that file: --desired ${extra}.` : "";
  const takes = max === 0 ? "takes no arguments" : `takes at most ${max} argument`;
  throw new ConfigError({
    message: `usersync ${command} ${takes}, got "${extra}".${hint} See usersync ${command} --help.`,
  });
}

/** Node's parseArgs message, without its "-- positional" advice, plus a "did you mean". */
function parseErrorText(err: Error, command: CommandName): string {
  const text = `${err.message.replace(/\. To specify.*$/s, "").replace(/\.$/, "")}.`;
  const unknown = /^Unknown option '(-{1,2})([^'=]+)/.exec(err.message);
  if (!unknown) return text;
  const names = Object.keys(optionsOf(command));
  // Another command's option (export --desired): say so, rather than guess at a typo.
  const elsewhere = COMMANDS.filter((c) => c !== command && unknown[2]! in optionsOf(c));
  if (unknown[1] === "--" && elsewhere.length > 0)
    return `${text} usersync ${command} does not take it (${elsewhere.map((c) => `usersync ${c}`).join(", ")} ${elsewhere.length === 1 ? "does" : "do"}).`;
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

/** A count as a number, a percentage ("90%") as given: the config's schema checks both. */
export function countOrPercentOption(values: ParsedValues, name: string): number | string | undefined {
  const v = stringOption(values, name)?.trim();
  return v === undefined ? undefined : /^\d+$/.test(v) ? Number(v) : v;
}

export function choiceOption<T extends string>(
  values: ParsedValues,
  name: string,
  choices: readonly T[],
): T | undefined {
  const v = stringOption(values, name);
  if (v === undefined) return undefined;
  if (!(choices as readonly string[]).includes(v)) {
    const near = closest(v, choices);
    throw new ConfigError({
      message: `--${name} must be one of ${choices.join(", ")}, not "${v}".${near ? ` Did you mean ${near}?` : ""}`,
    });
  }
  return v as T;
}

/** `  -c, --config FILE` */
function optionLabel(name: string, o: OptionSpec): string {
  return `  ${o.short !== undefined ? `-${o.short}, ` : "    "}--${name}${o.value !== undefined ? ` ${o.value}` : ""}`;
}

/** The options as aligned lines: label, then the help text, its further lines under its first. */
function optionLines(options: ReadonlyArray<[string, OptionSpec]>, width: number): string {
  return options
    .map(([name, o]) => {
      const label = optionLabel(name, o);
      const [head, ...more] = o.help.split("\n");
      const pad = label.length >= width ? " " : " ".repeat(width - label.length);
      return [`${label}${pad}${head}`, ...more.map((l) => `${" ".repeat(width)}${l}`)].join("\n");
    })
    .join("\n");
}

const EXIT_CODES = `Exit codes: ${EXIT_CODE_HELP.map(([code, meaning]) => `${code} ${meaning}`).join(", ")}.`;

export function commandHelp(command: CommandName): string {
  const spec = COMMAND_SPECS[command];
  const own = Object.entries(spec.options);
  const globals = spec.globals.map((g): [string, OptionSpec] => [g, GLOBAL_OPTIONS[g]]);
  const width = Math.max(...[...own, ...globals].map(([n, o]) => optionLabel(n, o).length)) + 2;
  const sections = [`Usage: ${spec.usage}`, spec.description];
  if (own.length > 0) sections.push(`Options:\n${optionLines(own, width)}`);
  sections.push(`Global options:\n${optionLines(globals, width)}`);
  if (spec.footer !== undefined) sections.push(spec.footer);
  sections.push(wrap(EXIT_CODES));
  return sections.join("\n\n");
}

export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.length)) + 3;
  const list = COMMANDS.map((c) => `  ${c.padEnd(width)}${COMMAND_SPECS[c].summary}`).join("\n");
  return [
    "usersync: keep an organization's users, credentials and user groups in line with a file.",
    "Usage: usersync <command> [options]",
    `Commands:\n${list}`,
    'Run "usersync <command> --help" for a command\'s options; "usersync --version" prints the version.',
    wrap(EXIT_CODES),
  ].join("\n\n");
}

/** Words wrapped at 100 columns. */
function wrap(text: string, columns = 100): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > columns) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line].join("\n");
}
