import { describe, expect, it } from "vitest";
import type { Evidence } from "../../../src/desired/index.js";
import { checkGroupSizes, emptiedGroups } from "../../../src/desired/sources/group-sizes.js";
import { SourceIncompleteError } from "../../../src/desired/sources/errors.js";
import { exitCodeFor } from "../../../src/errors.js";

const evidence = (groupSizes: Record<string, number>): Evidence => ({
  kind: "entra",
  source: "tenant contoso",
  scope: [],
  reads: [],
  skipped: [],
  groupSizes,
});

describe("a picked group that suddenly reads empty is not believed", () => {
  it("refuses a group that had members and reads none, or is gone, with exit 5 and the flag that lifts it", () => {
    const e = evidence({ "entra:a": 0, "entra:b": 12 });
    const lastGood = { "entra:a": 40, "entra:b": 10, "entra:c": 3, "entra:d": 0 };
    expect(emptiedGroups({ evidence: e, lastGood })).toEqual([
      { key: "entra:a", before: 40, now: 0 },
      { key: "entra:c", before: 3, now: "gone" },
    ]);
    let err: unknown;
    try {
      checkGroupSizes({ evidence: e, lastGood, allowEmpty: false });
    } catch (x) {
      err = x;
    }
    expect(err).toBeInstanceOf(SourceIncompleteError);
    expect(exitCodeFor(err)).toBe(5);
    expect((err as Error).message).toContain("entra tenant contoso: 2 picked groups read empty");
    expect((err as Error).message).toContain("entra:a (40 members at the last successful run, none now)");
    expect((err as Error).message).toContain("--allow-empty-groups");
  });

  it("believes it for one run when allowed, on a first run, and when the group was empty before", () => {
    const e = evidence({ "entra:a": 0 });
    expect(() =>
      checkGroupSizes({ evidence: e, lastGood: { "entra:a": 5 }, allowEmpty: true }),
    ).not.toThrow();
    expect(() => checkGroupSizes({ evidence: e, lastGood: undefined, allowEmpty: false })).not.toThrow();
    expect(() =>
      checkGroupSizes({ evidence: e, lastGood: { "entra:a": 0 }, allowEmpty: false }),
    ).not.toThrow();
  });
});
