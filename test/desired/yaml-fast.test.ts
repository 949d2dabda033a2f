/**
 * The fast YAML reader (js-yaml events) and the precise one (the `yaml` document model) give the
 * same records, lines and problems: on every YAML fixture, and on generated files that vary
 * quoting, flow and block styles, comments, CRLF line breaks and values that look like numbers,
 * booleans or nulls. The fast reader is used for plain files only; the rest go the precise way.
 */
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProblemList } from "../../src/desired/problems.js";
import { readYaml, type YamlRead } from "../../src/desired/read-yaml.js";
import { readFastYaml } from "../../src/desired/yaml-fast.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-yaml-fast-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Everything a read gives, with each field's `where` resolved, so two reads compare with toEqual. */
function picture(read: YamlRead, problems: ProblemList) {
  const records = (rs: YamlRead["users"] | YamlRead["groups"]) =>
    rs.map((r) => ({
      line: r.line,
      text: r.text,
      lists: r.lists,
      where: Object.fromEntries(
        ["email", "id", "displayName", "groups", "state", "name", "parents", "nope"].map((f) => [
          f,
          r.where(f as never),
        ]),
      ),
    }));
  return {
    users: records(read.users),
    groups: records(read.groups),
    allowEmpty: read.allowEmpty,
    parsed: read.parsed,
    problems: problems.items,
  };
}

async function bothWays(file: string, usersAllowed = true) {
  const read = async (precise: boolean) => {
    const problems = new ProblemList();
    return picture(await readYaml({ file, problems, usersAllowed, precise }), problems);
  };
  return { auto: await read(false), precise: await read(true) };
}

describe("fast and precise YAML readers agree", () => {
  it("on every YAML fixture", async () => {
    const files: string[] = [];
    for (const d of ["fixtures/valid", "fixtures/invalid", "fixtures/demo"])
      for (const f of await readdir(d)) if (f.endsWith(".yaml")) files.push(join(d, f));
    expect(files.length).toBeGreaterThan(15);
    for (const file of files) {
      const { auto, precise } = await bothWays(file);
      expect(auto, file).toEqual(precise);
    }
  });

  it("takes the fast way for plain files and the precise way for anchors, tags and duplicates", () => {
    const plain = "version: 1\nusers:\n  - email: a@x.io\n    groups: [g]\n";
    expect(readFastYaml(plain)?.lists.get("users")).toEqual([
      {
        line: 3,
        keys: new Map([
          ["email", 3],
          ["groups", 4],
        ]),
      },
    ]);
    expect(readFastYaml("version: 1\nusers:\n  - &a {email: a@x.io}\n")).toBeUndefined();
    expect(readFastYaml("version: 1\nusers:\n  - email: !!str a@x.io\n")).toBeUndefined();
    expect(readFastYaml("version: 1\nversion: 1\n")).toBeUndefined();
    expect(readFastYaml("version: 1\n---\nversion: 1\n")).toBeUndefined();
    expect(readFastYaml("version: 1\rusers: []\r")).toBeUndefined();
  });

  it("on generated files (fast-check)", async () => {
    const value = fc.oneof(
      fc.constantFrom(
        "a@x.io",
        "B.C@Example.COM",
        "0x1F",
        "1_000",
        "012",
        "1e3",
        "true",
        "no",
        "~",
        "null",
        "",
        "-",
        "é ü",
        "a: b",
        "#x",
        "[a]",
        "'q'",
        '"d"',
      ),
      fc.string({ maxLength: 6 }),
    );
    const quoted = (v: string, style: number): string =>
      style === 0 && /^[A-Za-z][\w.@ -]*$/.test(v) && !/ $/.test(v)
        ? v
        : style === 1
          ? `'${v.replace(/'/g, "''")}'`
          : JSON.stringify(v);
    const item = fc.record({
      fields: fc.subarray(["email", "id", "displayName", "state", "identity", "bogus"] as const),
      values: fc.array(value, { minLength: 6, maxLength: 6 }),
      styles: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 6, maxLength: 6 }),
      groups: fc.option(fc.array(fc.constantFrom("g", "h", "1", "x y"), { maxLength: 3 })),
      flowGroups: fc.boolean(),
      flowItem: fc.boolean(),
      comment: fc.boolean(),
    });
    const file = fc.record({
      items: fc.array(item, { maxLength: 5 }),
      crlf: fc.boolean(),
      blank: fc.boolean(),
    });
    let n = 0;
    let fastAndClean = 0;
    await fc.assert(
      fc.asyncProperty(file, async (f) => {
        const lines = ["version: 1", "users:"];
        for (const it of f.items) {
          const pairs = it.fields.map((k, i) => `${k}: ${quoted(it.values[i]!, it.styles[i]!)}`);
          if (it.groups) {
            const gs = it.groups.map((g) => quoted(g, 2));
            pairs.push(
              it.flowGroups
                ? `groups: [${gs.join(", ")}]`
                : `groups:\n${gs.map((g) => `      - ${g}`).join("\n")}`,
            );
          }
          if (pairs.length === 0) lines.push("  - {}");
          else if (it.flowItem && !pairs.some((p) => p.includes("\n")))
            lines.push(`  - {${pairs.join(", ")}}`);
          else lines.push(`  - ${pairs.join("\n    ")}`);
          if (it.comment) lines.push("    # a comment");
          if (f.blank) lines.push("");
        }
        const path = join(dir, `gen-${n++}.yaml`);
        await writeFile(path, lines.join(f.crlf ? "\r\n" : "\n") + (f.crlf ? "\r\n" : "\n"));
        const { auto, precise } = await bothWays(path);
        expect(auto).toEqual(precise);
        const text = lines.join("\n");
        if (readFastYaml(text) !== undefined && auto.problems.length === 0) fastAndClean++;
      }),
      { numRuns: 150 },
    );
    // The comparison means something only if many files were read the fast way.
    expect(fastAndClean).toBeGreaterThan(30);
  });
});
