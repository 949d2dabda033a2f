/**
 * Issue 46 item 5: the review's writers stream (docs/benchmarks.md figure 16). The pieces join to
 * the bytes one JSON.stringify gives (the page embeds the review), and the file written in
 * batches is the joined text. The whole-command byte identity of each format against the build
 * before streaming is checked by bench/review.mjs (BENCH_REVIEW_BASE).
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { batched, writeChunksAtomic } from "../../src/files.js";
import { jsonChunks } from "../../src/report/review/html-json.js";
import { jsonForScript } from "../../src/report/review/html.js";

const VALUE = {
  a: 1,
  skip: undefined,
  f: () => 1,
  list: [1, undefined, "x<y>&\u2028", { deep: [{ deeper: [1, 2, { z: undefined }] }], n: null }, []],
  empty: {},
  when: new Date(0),
  nested: { people: [{ key: "p1", access: [{ workspace: "w", permissions: ["VIEW"] }] }, { key: "p2" }] },
};

describe("streaming writers", () => {
  it("jsonChunks joins to JSON.stringify's text at every depth", () => {
    for (const depth of [0, 1, 2, 3, 6])
      expect([...jsonChunks(VALUE, depth)].join(""), `depth ${depth}`).toBe(JSON.stringify(VALUE));
    expect([...jsonChunks([], 3)].join("")).toBe("[]");
    expect([...jsonChunks("s", 3)].join("")).toBe('"s"');
  });

  it("the page's embedded JSON escapes what would end its script element, piece by piece", () => {
    const text = jsonForScript(VALUE);
    expect(text).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(VALUE)));
  });

  it("writes the pieces in batches of 64 KiB and replaces the file at once", async () => {
    const dir = await mkdtemp(join(tmpdir(), "usersync-stream-"));
    try {
      const pieces = Array.from({ length: 5000 }, (_, i) => `line ${i} ${"é".repeat(i % 50)}\n`);
      expect([...batched(pieces)].every((b, i, all) => i === all.length - 1 || b.length >= 65536)).toBe(true);
      await writeChunksAtomic(join(dir, "out.csv"), pieces);
      expect(await readFile(join(dir, "out.csv"), "utf8")).toBe(pieces.join(""));
      expect(await readdir(dir)).toEqual(["out.csv"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
