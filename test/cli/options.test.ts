/**
 * `--help`, the parser and the README say the same: help is rendered from the table the parser
 * uses, every command takes the global options the README says it takes, and the README's
 * exit-code table covers every code the CLI can return.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commandHelp, mainHelp, optionsOf, parseCommandLine } from "../../src/cli/args.js";
import type { GLOBAL_OPTIONS } from "../../src/cli/options.js";
import { COMMANDS, COMMAND_SPECS, EXIT_CODE_HELP } from "../../src/cli/options.js";
import { ExitCode } from "../../src/errors.js";

const ROOT = join(import.meta.dirname, "..", "..");

/** The long options a help text lists, in order. */
const listed = (help: string): string[] =>
  [...help.matchAll(/^ {2}(?:-\w, | {4})--([\w-]+)/gm)].map((m) => m[1]!);

/** A value for an option, so the parser takes it. */
const valueFor = (name: string): string[] => (optionsOf("plan")[name]?.type === "boolean" ? [] : ["x"]);

describe("--help is the parser's table", () => {
  it.each(COMMANDS)("usersync %s --help lists exactly the options the parser takes", (command) => {
    const help = commandHelp(command);
    expect(listed(help).sort()).toEqual(Object.keys(optionsOf(command)).sort());
    // Each listed option (and its short form) parses for this command.
    for (const [name, o] of Object.entries(optionsOf(command))) {
      const value = o.type === "boolean" ? [] : ["x"];
      expect(() => parseCommandLine([command, `--${name}`, ...value]), name).not.toThrow(/Unknown option/);
      if (o.short !== undefined)
        expect(() => parseCommandLine([command, `-${o.short}`, ...value]), name).not.toThrow(
          /Unknown option/,
        );
    }
    // The same help through both ways of asking for it.
    expect(parseCommandLine([command, "--help"])).toEqual({ kind: "help", text: help });
    expect(parseCommandLine(["help", command])).toEqual({ kind: "help", text: help });
  });

  it.each(COMMANDS)(
    "usersync %s refuses an option that is not in its help, naming the command",
    (command) => {
      const others = new Set(COMMANDS.flatMap((c) => Object.keys(optionsOf(c))));
      for (const name of others) {
        if (name in optionsOf(command)) continue;
        expect(() => parseCommandLine([command, `--${name}`, ...valueFor(name)]), name).toThrow(
          new RegExp(`Unknown option '--${name}'.*usersync ${command} does not take it`),
        );
      }
    },
  );

  it("every command takes --log-level, --log-format, --help and --version; --version prints it", () => {
    for (const command of COMMANDS) {
      for (const g of ["log-level", "log-format", "help", "version"] as const)
        expect(COMMAND_SPECS[command].globals, command).toContain(g);
      expect(parseCommandLine([command, "--version"])).toEqual({ kind: "version" });
      expect(parseCommandLine([command, "-V"])).toEqual({ kind: "version" });
    }
    expect(mainHelp()).toContain('"usersync --version" prints the version');
  });

  it("a help line's text starts in one column, continuation lines under it", () => {
    for (const command of COMMANDS) {
      const lines = commandHelp(command).split("\n");
      const starts = lines
        .filter((l) => /^ {2}(-\w, | {4})--/.test(l))
        .map((l) => /^( {2}(?:-\w, | {4})--\S+(?: \S+)? +)/.exec(l)![1]!.length);
      expect(new Set(starts).size, command).toBe(1);
    }
  });
});

describe("the README says what the table says", () => {
  it("which commands take --config, --desired, --groups and --base-url", async () => {
    const readme = (await readFile(join(ROOT, "README.md"), "utf8")).replace(/\s+/g, " ");
    const takers = (option: keyof typeof GLOBAL_OPTIONS) =>
      COMMANDS.filter((c) => COMMAND_SPECS[c].globals.includes(option));
    const without = (option: keyof typeof GLOBAL_OPTIONS) =>
      COMMANDS.filter((c) => !takers(option).includes(c));
    const quoted = (cs: readonly string[]) => cs.map((c) => `\`${c}\``);
    const list = (cs: readonly string[]) => `${quoted(cs).slice(0, -1).join(", ")} and ${quoted(cs).at(-1)}`;
    expect(readme).toContain(
      `all but ${list(without("config"))} (which take no config file: the demo reads its own, \`fixtures/demo/usersync.yaml\`) take \`--config FILE\``,
    );
    expect(takers("desired")).toEqual(takers("groups"));
    expect(readme).toContain(
      `${list(takers("desired"))}, which read the desired state, take \`--desired FILE\` and \`--groups FILE\``,
    );
    expect(readme).toContain(
      `${list(takers("base-url"))}, which talk to the service, take \`--base-url URL\``,
    );
    expect(readme).toContain(
      "Every command takes `--log-level`, `--log-format json|pretty`, `--help` and `--version`",
    );
  });

  it("the exit-code table covers every code the CLI can return, 130 included", async () => {
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    const table = readme.slice(readme.indexOf("### Exit codes"));
    const documented = new Set([...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1])));
    for (const code of Object.values(ExitCode)) expect(documented, `exit ${code}`).toContain(code);
    for (const [code] of EXIT_CODE_HELP) expect(documented, `exit ${code}`).toContain(code);
    expect(documented).toContain(130);
    // --help's line names every code too.
    expect(EXIT_CODE_HELP.map(([code]) => code).sort((a, b) => a - b)).toEqual(
      [...new Set(Object.values(ExitCode))].sort((a, b) => a - b),
    );
  });
});
