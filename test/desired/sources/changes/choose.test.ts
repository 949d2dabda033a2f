/**
 * Which read a run makes (chooseRead) and the changes file it keeps (state/changes-file.ts): each
 * row a kept file and a config, and the read docs/sources.md ("Changes-only runs") says it makes.
 */
import { describe, expect, it } from "vitest";
import { chooseRead, type Kept } from "../../../../src/desired/sources/changes/run.js";
import { changesSection } from "../../../../src/desired/sources/changes/schema.js";
import {
  changesFileOf,
  parseChanges,
  serializeChanges,
  type KeptChanges,
} from "../../../../src/state/changes-file.js";

const NOW = Date.parse("2026-11-28T12:00:00.000Z");
const kept = (o: { readAt?: string; fullAt?: string; digest?: string } = {}): KeptChanges => ({
  picture: {
    formatVersion: 1,
    kind: "entra",
    configDigest: o.digest ?? "d1",
    readAt: o.readAt ?? "2026-11-28T11:00:00.000Z",
    groups: [{ id: "g", name: "G", rule: 0, attributes: { displayName: "G" }, people: ["p"], groups: [] }],
    people: [{ id: "p", status: "enabled", attributes: { mail: "p@example.com" } }],
  },
  position: {
    kind: "entra",
    streams: { users: "https://graph/users/delta?$deltatoken=x" },
    takenAt: "2026-11-28T11:00:00.000Z",
  },
  digests: { users: new Map([["p", "AAAAAAAAAAAAAAAA"]]), groups: "BBBBBBBBBBBBBBBB" },
  ...(o.fullAt !== undefined ? { fullAt: o.fullAt } : { fullAt: "2026-11-28T11:00:00.000Z" }),
  managedUsers: 40,
});

function choose(k: Kept, changes: Record<string, unknown> = {}): string {
  const c = chooseRead({
    changes: changesSection.parse({ mode: "changes", ...changes }),
    kept: k,
    kind: "entra",
    digest: "d1",
    now: NOW,
  });
  return c.read === "changes" ? "changes" : `whole ${c.reason}${c.full ? " (full)" : ""}`;
}

describe("chooseRead", () => {
  const rows: [string, Kept, Record<string, unknown>, string][] = [
    ["a good picture: changes", kept(), {}, "changes"],
    [
      "no file: whole, and a full listing",
      { unusable: "no changes file yet" },
      {},
      "whole no-picture (full)",
    ],
    ["another config", kept({ digest: "d2" }), {}, "whole config-changed (full)"],
    [
      "the full reconcile is due",
      kept({ fullAt: "2026-11-27T11:00:00.000Z" }),
      {},
      "whole full-reconcile (full)",
    ],
    [
      "fullEvery 0: never by itself",
      kept({ fullAt: "2026-01-01T00:00:00.000Z" }),
      { fullEvery: 0 },
      "changes",
    ],
    [
      "a picture older than maxAge",
      kept({ readAt: "2026-11-20T00:00:00.000Z" }),
      { fullEvery: 0 },
      "whole picture-too-old",
    ],
    ["mode whole: the full reconcile", kept(), { mode: "whole" }, "whole asked (full)"],
  ];
  it.each(rows)("%s", (_, k, changes, expected) => {
    expect(choose(k, changes)).toBe(expected);
  });
});

describe("the changes file", () => {
  it("sits beside the state file", () => {
    expect(changesFileOf("/var/lib/usersync/state.json")).toBe("/var/lib/usersync/state.changes.json");
    expect(changesFileOf("/var/lib/usersync/state")).toBe("/var/lib/usersync/state.changes.json");
  });
  it("reads back what it wrote", () => {
    expect(parseChanges(serializeChanges(kept()))).toEqual(kept());
  });
  it("reads back builtBy and the present count (changes/partial.ts), and a file without them", () => {
    const full: KeptChanges = { ...kept(), builtBy: "1.2.3", digests: { ...kept().digests, present: 1 } };
    expect(parseChanges(serializeChanges(full))).toEqual(full);
    expect(parseChanges(serializeChanges(full).replace('"present":1,', '"present":-1,'))).toMatch(
      /digests needs/,
    );
    expect(parseChanges(serializeChanges(full).replace('"builtBy":"1.2.3"', '"builtBy":7'))).toMatch(
      /builtBy/,
    );
  });
  it.each([
    ["not JSON", "{", /not valid JSON/],
    ["another format", JSON.stringify({ formatVersion: 3 }), /formatVersion 2/],
    [
      "formatVersion 1 (no digests): read whole once, said plainly",
      serializeChanges(kept()).replace('"formatVersion":2', '"formatVersion":1'),
      /formatVersion 1 .*keeps no digests.*reads whole once/,
    ],
    [
      "digests that are not text",
      serializeChanges(kept()).replace('["p","AAAAAAAAAAAAAAAA"]', '["p",7]'),
      /digests needs/,
    ],
    [
      "a user id without its digest",
      serializeChanges(kept()).replace('["p","AAAAAAAAAAAAAAAA"]', '["p"]'),
      /digests needs/,
    ],
    [
      "a person without status",
      serializeChanges(kept()).replace('"status":"enabled"', '"status":"gone"'),
      /needs id and status/,
    ],
    [
      "a position of another kind",
      serializeChanges(kept()).replace('"kind":"entra","streams"', '"kind":"okta","streams"'),
      /position/,
    ],
  ])("refuses %s (the run reads whole)", (_, text, why) => {
    expect(parseChanges(text)).toMatch(why);
  });
});
