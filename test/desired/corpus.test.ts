/**
 * The corpus of bad inputs: every file in fixtures/invalid/ is read with the default options
 * (from the repo root) and must give exactly the problems listed in expected.json.
 */
import { readdir, readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { readDesiredState } from "../../src/desired/index.js";
import { formatProblem } from "../../src/errors.js";

const dir = "fixtures/invalid";
const expected = JSON.parse(await readFile(`${dir}/expected.json`, "utf8")) as Record<string, string[]>;

describe("fixtures/invalid", () => {
  test("every file has its expected problems, and there are at least 30 files", async () => {
    const files = (await readdir(dir)).filter((f) => f !== "expected.json").sort();
    expect(files.length).toBeGreaterThanOrEqual(30);
    expect(Object.keys(expected).sort()).toEqual(files);
  });

  test.each(Object.entries(expected))("%s", async (name, lines) => {
    const { problems } = await readDesiredState({ file: `${dir}/${name}` });
    expect(problems.map(formatProblem)).toEqual(lines);
    // Each file is invalid: at least one problem is an error, not just a warning.
    expect(problems.some((p) => p.severity !== "warning")).toBe(true);
  });
});
