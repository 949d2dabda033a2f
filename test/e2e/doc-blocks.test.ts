/**
 * The markers of executed documentation (doc-blocks.ts): a block runnable in the background is
 * read with its ready text (or none: a line starting with http), and becomes one script with the
 * page's walk after it, the command started and waited for, the walk's commands checked, and the
 * command stopped by its pid; a background block of two commands is refused.
 */
import { describe, expect, it } from "vitest";
import { sessionScript, shellBlocks } from "./doc-blocks.js";

const PAGE = [
  "<!-- runnable in the background -->",
  "```sh",
  "npx usersync emulator --port 8080 --directory okta   # in a terminal of its own",
  "```",
  "",
  '<!-- runnable in the background: ready when it prints "paste into your config" -->',
  "```sh",
  "npx usersync emulator --port 8080",
  "npx usersync emulator --port 8081",
  "```",
  "",
  "<!-- runnable -->",
  "```sh",
  "npx usersync plan --config .usersync/stand-in/rehearsal.yaml --detailed-exitcode   # exit 2: changes",
  "```",
].join("\n");

describe("blocks runnable in the background", () => {
  const [first, second, walk] = shellBlocks(PAGE, "docs/page.md");

  it("are read with their ready text, or none", () => {
    expect(first!.marker).toEqual({ runnable: true, background: { ready: undefined } });
    expect(second!.marker).toEqual({ runnable: true, background: { ready: "paste into your config" } });
    expect(walk!.marker).toEqual({ runnable: true });
  });

  it("become one script: started and waited for, the walk checked, stopped by pid", () => {
    const script = sessionScript(first!, [walk!], { port: 41234 });
    expect(script).toContain(
      "__bg_start 'http' 'docs/page.md:3' npx usersync emulator --port 41234 --directory okta\n",
    );
    expect(script).toContain('__check $? 2 "docs/page.md:14:');
    expect(script.indexOf("__bg_start 'http'")).toBeLessThan(script.indexOf("npx usersync plan"));
    expect(script.trimEnd().split("\n").slice(-2)).toEqual(["__bg_stop", "exit $__fail"]);
    expect(script).toContain("trap '__emu_stop; __bg_stop' EXIT");
    expect(script).not.toMatch(/pkill|killall/);
  });

  it("hold exactly one command", () => {
    expect(() => sessionScript(second!, [walk!], { port: 1 })).toThrow(
      "docs/page.md:7: a background block has exactly one command",
    );
  });
});
