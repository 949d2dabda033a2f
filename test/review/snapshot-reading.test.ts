/**
 * A large review in less memory (docs/benchmarks.md figure 16) without a byte of its files
 * changing: a saved snapshot is read a line at a time when laid out as `--format json` writes it
 * (cli/snapshot-lines.ts) and whole otherwise, to the value JSON.parse gives either way; the
 * review's access moves into the snapshot's rows and back (`release`) with the same digest and
 * the same bytes in every format; rows read back share their equal values.
 */
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSnapshotFile } from "../../src/cli/review-snapshot-file.js";
import { readJsonLines } from "../../src/cli/snapshot-lines.js";
import { ConfigError } from "../../src/errors.js";
import { fromSnapshot } from "../../src/review/from-snapshot.js";
import type { Snapshot } from "../../src/review/snapshot.js";
import { toSnapshot } from "../../src/review/to-snapshot.js";
import { REVIEW_FORMATS, renderReview, renderSnapshotJson } from "../../src/report/review/index.js";
import { aReview } from "../report/review-fixture.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-snapshot-reading-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every format of a snapshot, rendered from a model read back from a copy of it. */
const renderAll = (s: Snapshot): string[] =>
  REVIEW_FORMATS.map((f) => renderReview(s, fromSnapshot(structuredClone(s)), f));

async function saved(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

/** The line-at-a-time reading alone: undefined when it leaves the file to the whole reading. */
async function byLines(path: string): Promise<unknown> {
  const file = await open(path);
  try {
    return await readJsonLines(file);
  } finally {
    await file.close();
  }
}

describe("a saved snapshot read back", () => {
  const snapshot = toSnapshot(aReview({ withChanges: true }));
  // Text a line-by-line reader could trip on: line breaks, a closing bracket, U+2028, a comma.
  snapshot.evidence.notes = ['a\n  ],\n  "x": [', "\u2028 \u2029", "ends with a comma,", "  }"];
  const text = renderSnapshotJson(snapshot);

  it("as --format json lays it out: the value JSON.parse gives, and the same bytes in every format", async () => {
    const path = await saved("laid-out.json", text);
    expect(await byLines(path)).toStrictEqual(JSON.parse(text));
    const read = await readSnapshotFile(path, "--from");
    expect(read).toStrictEqual(JSON.parse(text));
    expect(renderAll(read)).toEqual(renderAll(snapshot));
    expect(renderSnapshotJson(read)).toBe(text);
  });

  it("laid out any other way (one line): read whole, to the same value; indented and CRLF by lines", async () => {
    const value: unknown = JSON.parse(text);
    // JSON.stringify(value, null, 2), as a campaign file is written: its elements span lines.
    const indented = await saved("indented.json", JSON.stringify(value, null, 2));
    expect(await byLines(indented)).toStrictEqual(value);
    expect(await readSnapshotFile(indented, "--from")).toStrictEqual(value);
    for (const [name, other] of [
      ["one-line.json", JSON.stringify(value)],
      ["trailing-space.json", text.replace("\n", " \n")],
    ] as const) {
      const path = await saved(name, other);
      expect(await byLines(path), name).toBeUndefined();
      expect(await readSnapshotFile(path, "--from"), name).toStrictEqual(value);
    }
    // Line ends are whitespace to JSON: a snapshot copied through Windows reads the same.
    const crlf = await saved("crlf.json", text.replace(/\n/g, "\r\n"));
    expect(await byLines(crlf)).toStrictEqual(value);
  });

  it("cut short or not JSON: refused as before (exit 4, naming the file and the flag)", async () => {
    const cut = await saved("cut.json", text.slice(0, Math.floor(text.length / 2)));
    await expect(readSnapshotFile(cut, "--from")).rejects.toThrow(ConfigError);
    await expect(readSnapshotFile(cut, "--from")).rejects.toThrow(/--from .*cut\.json: not JSON/);
    await expect(readSnapshotFile(join(dir, "missing.json"), "--since")).rejects.toThrow(
      /--since .*missing\.json: cannot read it \(ENOENT\)/,
    );
  });

  it("shares its rows' equal permission lists and person keys", async () => {
    const read = await readSnapshotFile(await saved("shared.json", text), "--from");
    const byText = new Map<string, unknown>();
    for (const r of read.rows) {
      const key = JSON.stringify(r.effective);
      expect(byText.get(key) ?? r.effective).toBe(r.effective);
      byText.set(key, r.effective);
    }
    expect(byText.size).toBeLessThan(read.rows.length);
  });
});

describe("moving a review's access into the snapshot and back (release)", () => {
  it("gives the digest, the JSON and every format the copying way gives", () => {
    const kept = toSnapshot(aReview({ withChanges: true }));
    const review = aReview({ withChanges: true });
    const moved = toSnapshot(review, { release: true });
    expect(review.people.every((p) => p.access.length === 0)).toBe(true);
    expect(moved.header.digest).toBe(kept.header.digest);
    expect(renderSnapshotJson(moved)).toBe(renderSnapshotJson(kept));
    for (const format of REVIEW_FORMATS) {
      const copy = structuredClone(kept);
      const back = fromSnapshot(copy, { release: true });
      expect(copy.rows).toEqual([]);
      expect(renderReview(kept, back, format), format).toBe(renderReview(kept, fromSnapshot(kept), format));
    }
  });
});
