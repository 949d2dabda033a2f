/**
 * Generated hostile input (fast-check) never ends in an unexpected error or a stack overflow:
 * YAML built from structural characters, tags, anchors, escapes, control and invisible
 * characters and deep nesting; CSV built from separators, quotes and mixed line ends; config
 * files built the same way. The readers report problems (never throw), the config loader throws
 * nothing but a ConfigError, and no problem is an error in disguise.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadFaultsFile } from "../../src/cli/emulator-faults.js";
import { loadConfig } from "../../src/config/index.js";
import { readDesiredState } from "../../src/desired/index.js";
import { parseYaml } from "../../src/desired/yaml-text.js";
import { ConfigError, type Problem } from "../../src/errors.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-hostile-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What an unexpected error looks like when it is caught and passed off as a problem. */
const DISGUISED =
  /call stack|RangeError|TypeError|ReferenceError|is not a function|Cannot read propert|undefined/;

function expectHonest(problems: readonly Problem[]): void {
  for (const p of problems) {
    expect(p.message).not.toMatch(DISGUISED);
    // The files exist and are readable: this rule would mean a reader threw.
    expect(p.rule).not.toBe("file-unreadable");
  }
}

const nasty = fc.constantFrom(
  "\u0000",
  "\u001b[2J",
  "\u0085",
  "\u200B",
  "\u202E",
  "\u2066",
  "\uFEFF",
  "\u00AD",
  "\uD800",
  "\r",
  "\t",
  "é",
  "👩‍💻",
);
const hostileString = fc
  .array(fc.oneof(nasty, fc.string({ maxLength: 4 }), fc.string({ unit: "binary", maxLength: 4 })), {
    maxLength: 6,
  })
  .map((parts) => parts.join(""));

/** Deep nesting by brackets, flow mappings, compact block lists or indentation. */
const nesting = fc
  .record({
    open: fc.constantFrom("[", "{a: ", "- ", "? ", "\n  - ", "&x [", "!!seq ["),
    n: fc.integer({ min: 50, max: 2_000 }),
    closed: fc.boolean(),
  })
  .map(({ open, n, closed }) => {
    const close = open.includes("[") ? "]" : open.includes("{") ? "}" : "";
    return `${open.repeat(n)}x${closed ? close.repeat(n) : ""}`;
  });

const yamlFragment = fc.oneof(
  fc.constantFrom(
    ...[
      "[",
      "]",
      "{",
      "}",
      "- ",
      ": ",
      "? ",
      ",",
      "#",
      "|\n",
      ">-\n",
      "'",
      '"',
      "\n",
      "\r\n",
      "\r",
      "  ",
      "\t",
    ],
    ...["&a ", "*a", "<<: *a\n", "!!js/function ", "!x ", "!!str ", "!!int ", "!!binary ", "! "],
    ...["%TAG ! tag:example.com,2000:\n---\n", "%YAML 1.1\n---\n", "---\n", "...\n", "\uFEFF"],
    ...['"\\0"', '"\\x1b"', '"\\u200B"', '"\\U0010FFFF"', '"\\uD800"', '"\\N\\L\\P\\_"', '"\\q"'],
    ...["version: 1\n", "users:\n", "  - email: a@example.com\n", "    groups: [", "allowEmpty: true\n"],
  ),
  hostileString,
  nesting,
);
const yamlText = fc.array(yamlFragment, { maxLength: 20 }).map((parts) => parts.join(""));

/** A file shaped like a desired state, with hostile values where the records are read. */
const shapedYaml = fc
  .array(
    fc.record({
      field: fc.constantFrom(
        "email",
        "id",
        "displayName",
        "authenticationId",
        "identity",
        "groups",
        "password",
      ),
      value: hostileString,
      style: fc.constantFrom("json", "plain", "list"),
    }),
    { maxLength: 8 },
  )
  .map((fields) => {
    const items = fields.map(({ field, value, style }) => {
      const v = JSON.stringify(value);
      return `  - ${field}: ${style === "list" ? `[${v}]` : style === "json" ? v : value.replace(/\n/g, " ")}`;
    });
    return `version: 1\nusers:\n${items.join("\n")}\n`;
  });

const csvText = fc
  .array(
    fc.oneof(
      fc.constantFrom(",", '"', '""', ";", "\n", "\r\n", "\r", "email", "id", "groups", "a@example.com", "x"),
      hostileString,
    ),
    { maxLength: 40 },
  )
  .map((parts) => `email,id,displayName,groups,authenticationId\n${parts.join("")}`);

let n = 0;
async function fileWith(ext: string, text: string): Promise<string> {
  const file = join(dir, `h${n++}.${ext}`);
  await writeFile(file, text);
  return file;
}

describe("hostile input never ends in an unexpected error (fast-check)", () => {
  it("YAML desired-state files", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(yamlText, shapedYaml), async (text) => {
        const { problems } = await readDesiredState({ file: await fileWith("yaml", text) });
        expectHonest(problems);
      }),
      { numRuns: 150 },
    );
  });

  it("CSV desired-state files", async () => {
    await fc.assert(
      fc.asyncProperty(csvText, async (text) => {
        const { problems } = await readDesiredState({ file: await fileWith("csv", text) });
        expectHonest(problems);
      }),
      { numRuns: 150 },
    );
  });

  it("config and emulator faults files: a ConfigError or a config, nothing else", async () => {
    const configText = fc.oneof(
      yamlText,
      fc
        .record({
          key: fc.constantFrom(
            "policy:\n  maxDeletes",
            "source:\n  minUsers",
            "policy:\n  protect",
            "target:\n  baseUrl",
          ),
          value: fc.oneof(
            hostileString.map((s) => JSON.stringify(s)),
            yamlText,
          ),
        })
        .map(({ key, value }) => `${key}: ${value}\n`),
    );
    await fc.assert(
      fc.asyncProperty(configText, async (text) => {
        const file = await fileWith("yaml", text);
        for (const load of [() => loadConfig({ file, cwd: dir, env: {} }), () => loadFaultsFile(file)]) {
          const err = await load().then(
            () => undefined,
            (e: unknown) => e,
          );
          if (err === undefined) continue;
          expect(err).toBeInstanceOf(ConfigError);
          expectHonest((err as ConfigError).problems);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("parseYaml itself never throws", () => {
    fc.assert(
      fc.property(yamlText, (text) => {
        const r = parseYaml(text, "f.yaml");
        expectHonest(r.problems ?? []);
      }),
      { numRuns: 150 },
    );
  });
});
