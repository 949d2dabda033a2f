/**
 * What any YAML the tool reads may not do (src/desired/yaml-text.ts): use a tag outside the core
 * schema, or nest lists and mappings deeper than MAX_YAML_DEPTH (by brackets, indentation or
 * aliases). Each is a problem with file and line, never a value used as if the tag were absent,
 * and never a stack overflow.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readDesiredState } from "../../src/desired/index.js";
import { MAX_YAML_DEPTH, parseYaml } from "../../src/desired/yaml-text.js";
import { loadFaultsFile } from "../../src/cli/emulator-faults.js";
import { loadSeedFile } from "../../src/emulator/index.js";
import { formatProblem } from "../../src/errors.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-yaml-limits-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function problemsOf(name: string, text: string): Promise<string[]> {
  const file = join(dir, name);
  await writeFile(file, text);
  const { problems } = await readDesiredState({ file });
  return problems.map((p) => formatProblem(p).replace(dir, "<dir>"));
}

const NOT_ALLOWED =
  "is not allowed: usersync reads plain YAML (text, numbers, true/false, null, lists and mappings); remove the tag [yaml-tag]";

describe("YAML tags: the core schema only", () => {
  test.each([
    ["!!js/function", 'email: !!js/function "a@example.com"'],
    ["!custom", "email: !custom a@example.com"],
    ["!!binary", "email: !!binary YUBleGFtcGxlLmNvbQ=="],
    ["!!timestamp", "email: !!timestamp 2001-12-14"],
    ["!!python/object:os.system", "email: !!python/object:os.system a@example.com"],
  ])("%s is refused with its line, in a desired-state file", async (tag, item) => {
    expect(await problemsOf("tag.yaml", `version: 1\nusers:\n  - id: a\n    ${item}\n`)).toEqual([
      `<dir>/tag.yaml:4: the tag ${tag} ${NOT_ALLOWED}`,
    ]);
  });

  test("every tag in the file is reported, on a list item, a mapping and a key too", async () => {
    const text =
      "version: 1\nusers: !!omap\n  - email: a@example.com\n    groups: [!g x]\n  - !user {email: b@example.com}\n";
    expect(await problemsOf("tags.yaml", text)).toEqual([
      `<dir>/tags.yaml:2: the tag !!omap ${NOT_ALLOWED}`,
      `<dir>/tags.yaml:4: the tag !g ${NOT_ALLOWED}`,
      `<dir>/tags.yaml:5: the tag !user ${NOT_ALLOWED}`,
    ]);
  });

  test("a %TAG directive cannot make a foreign tag look like a core one", () => {
    const r = parseYaml("%TAG !! tag:example.com,2000:\n---\na: !!str x\n", "f.yaml");
    expect(r.problems?.map(formatProblem)).toEqual([
      `f.yaml:3: the tag tag:example.com,2000:str ${NOT_ALLOWED}`,
    ]);
  });

  test("a core tag that does not fit its value is refused, not ignored", () => {
    expect(parseYaml("a: !!int x\n", "f.yaml").problems?.map(formatProblem)).toEqual([
      "f.yaml:1: the tag !!int does not fit its value: remove the tag (quote the value to make it text) [yaml-tag]",
    ]);
    expect(parseYaml("a:\n  b: !!str {c: 1}\n", "f.yaml").problems?.map((p) => p.line)).toEqual([2]);
  });

  test("the core tags, `!` and a %YAML 1.1 directive read as YAML 1.2 core", () => {
    const r = parseYaml(
      "%YAML 1.1\n---\na: !!str 007\nb: ! 42\nc: !!int '7'\nd: yes\ne: !!null ''\n",
      "f.yaml",
    );
    expect(r.problems).toBeUndefined();
    expect("yaml" in r && r.yaml.data).toEqual({ a: "007", b: "42", c: 7, d: "yes", e: null });
  });

  test("a tagged desired state is refused the same way whether or not the fast reader is tried", async () => {
    const file = join(dir, "tag-both.yaml");
    await writeFile(file, "version: 1\nusers:\n  - email: !x a@example.com\n");
    const auto = await readDesiredState({ file });
    expect(auto.problems.map((p) => p.rule)).toEqual(["yaml-tag"]);
    expect(auto.state.users).toEqual([]);
  });

  test("the emulator's seed and faults files follow the same rule", async () => {
    const seed = join(dir, "seed.yaml");
    await writeFile(seed, "idpUsers:\n  - email: !!js/function a@example.com\n");
    await expect(loadSeedFile(seed)).rejects.toThrow(`${seed}:2: the tag !!js/function is not allowed`);
    const faults = join(dir, "faults.yaml");
    await writeFile(faults, "error500: 0.1\nseed: !!js/undefined 7\n");
    await expect(loadFaultsFile(faults)).rejects.toThrow(
      `${faults}:2: the tag !!js/undefined is not allowed`,
    );
  });
});

describe("nesting: a clear problem, never a stack overflow", () => {
  const deep = MAX_YAML_DEPTH * 200;
  test.each([
    ["20,000 [", `version: 1\nusers: ${"[".repeat(deep)}${"]".repeat(deep)}\n`, 2],
    ["20,000 [ never closed", `version: 1\nusers:\n  ${"[".repeat(deep)}\n`, 3],
    ["20,000 { a:", `version: 1\nusers: ${"{a: ".repeat(deep)}1${"}".repeat(deep)}\n`, 2],
    ["20,000 compact block lists", `version: 1\nusers:\n${"- ".repeat(deep)}x\n`, 3],
    [
      "indentation",
      `version: 1\nusers:\n${Array.from({ length: 150 }, (_, i) => `${" ".repeat(i)}- `).join("\n")}x\n`,
      102,
    ],
  ])("%s is nested too deeply, at its line", async (_name, text, line) => {
    const started = performance.now();
    expect(await problemsOf("deep.yaml", text)).toEqual([
      `<dir>/deep.yaml:${line}: nested too deeply: lists and mappings more than ${MAX_YAML_DEPTH} levels inside each other; no usersync file needs more than a few (an unclosed [ or {?) [yaml-too-deep]`,
    ]);
    // Stopped where it goes too deep: 64 MiB of `[` would cost no more (not a timing target).
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test(`${MAX_YAML_DEPTH} levels are still read`, () => {
    const n = MAX_YAML_DEPTH - 1; // under the top-level mapping
    const r = parseYaml(`a: ${"[".repeat(n)}x${"]".repeat(n)}\n`, "f.yaml");
    expect(r.problems).toBeUndefined();
    expect(parseYaml(`a: ${"[".repeat(n + 1)}x${"]".repeat(n + 1)}\n`, "f.yaml").problems?.[0]?.rule).toBe(
      "yaml-too-deep",
    );
  });

  test("aliases that nest anchored values inside each other count once expanded", () => {
    const depth = 60; // each anchor is within the limit; three expanded inside each other are not
    let text = `a0: &a0 ${"[".repeat(depth)}x${"]".repeat(depth)}\n`;
    for (let k = 1; k < 3; k++) text += `a${k}: &a${k} ${"[".repeat(depth)}*a${k - 1}${"]".repeat(depth)}\n`;
    expect(parseYaml(text, "f.yaml").problems?.map(formatProblem)).toEqual([
      `f.yaml: nested too deeply: lists and mappings more than ${MAX_YAML_DEPTH} levels inside each other once its aliases are expanded; no usersync file needs more than a few (an unclosed [ or {?) [yaml-too-deep]`,
    ]);
  });
});
