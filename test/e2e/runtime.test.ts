/**
 * Which Node the end-to-end suite runs the built CLI on: the one running vitest (run-cli.ts
 * starts the CLI with process.execPath). CI runs this suite twice, on the machine's Node and on
 * the image's Node 24 (scripts/ci-node24.sh sets USERSYNC_EXPECT_NODE), and this test is the
 * proof that the second pass really ran on it rather than falling back to the first.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runCli } from "./run-cli.js";

describe("the runtime of the end-to-end suite", () => {
  it("is the Node CI asked for, and the built CLI starts on it", async () => {
    const expected = process.env["USERSYNC_EXPECT_NODE"];
    if (expected !== undefined) expect(process.version).toBe(`v${expected}`);
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string };
    const result = await runCli(["--version"]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(`usersync ${pkg.version}`);
  });
});
