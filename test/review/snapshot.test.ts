/**
 * The review snapshot (src/review/snapshot.ts, docs/audits.md "The snapshot"): a review made into
 * a snapshot and read back renders the same bytes in every format; rows carry the documented row
 * ids; reasons and filters are written once; the digest is SHA-256 over the RFC 8785 canonical
 * JSON, checked against JCS texts written out by hand and against an independent recomputation
 * (python3's json module, as docs/audits.md tells a reader to do) when python3 is there.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalText, snapshotDigest } from "../../src/review/canonical.js";
import { fromSnapshot } from "../../src/review/from-snapshot.js";
import { rowIdOf, splitRowId } from "../../src/review/snapshot.js";
import { toSnapshot } from "../../src/review/to-snapshot.js";
import { REVIEW_FORMATS, renderReview } from "../../src/report/review/index.js";
import { aReview } from "../report/review-fixture.js";

const hasPython = ((): boolean => {
  try {
    execFileSync("python3", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe("canonical JSON (RFC 8785)", () => {
  it("sorts members by UTF-16 code units, writes no whitespace, escapes as JSON.stringify", () => {
    expect(canonicalText({ b: 1, a: [true, null, "x"], "": { z: "é\n" } })).toBe(
      '{"":{"z":"é\\n"},"a":[true,null,"x"],"b":1}',
    );
    // RFC 8785 section 3.2.3's point: code units, not code points (U+1F600 sorts before U+FB33).
    expect(canonicalText({ "\ufb33": 1, "\u{1f600}": 2 })).toBe('{"\u{1f600}":2,"\ufb33":1}');
    expect(canonicalText({ u: undefined, n: -0, e: 1e21 })).toBe('{"e":1e+21,"n":0}');
  });
});

describe("the snapshot", () => {
  const review = aReview({ withChanges: true });
  const snapshot = toSnapshot(review);

  it("gives every row its documented id and each shared list once", () => {
    for (const r of snapshot.rows) {
      expect(r.rowId).toBe(`${r.person}|${r.workspace ?? "organization"}`);
      expect(splitRowId(r.rowId)).toEqual({ person: r.person, workspace: r.workspace });
    }
    expect(rowIdOf("login:x|y@example.com", "ws")).toBe("login:x|y@example.com|ws");
    expect(splitRowId("login:x|y@example.com|ws")).toEqual({
      person: "login:x|y@example.com",
      workspace: "ws",
    });
    const texts = snapshot.reasonSets.map((l) => JSON.stringify(l));
    expect(new Set(texts).size).toBe(texts.length);
    const workspaceRows = review.people.reduce((n, p) => n + p.access.length, 0);
    const orgRows = review.people.filter((p) => p.organizationPermissions.length > 0).length;
    expect(snapshot.rows.length).toBe(workspaceRows + orgRows);
  });

  it("renders every format from the snapshot read back from its JSON with the same bytes", () => {
    const saved = JSON.parse(renderReview(snapshot, fromSnapshot(snapshot), "json")) as typeof snapshot;
    for (const format of REVIEW_FORMATS)
      expect(renderReview(saved, fromSnapshot(saved), format), format).toBe(
        renderReview(snapshot, fromSnapshot(snapshot), format),
      );
  });

  it("has a digest anyone can recompute: SHA-256 of the canonical JSON without digest and signature", () => {
    const { digest: _d, signature: _s, ...header } = snapshot.header;
    const text = canonicalText({ ...snapshot, header });
    expect(snapshot.header.digest).toBe(`sha256:${createHash("sha256").update(text).digest("hex")}`);
    expect(snapshotDigest(snapshot)).toBe(snapshot.header.digest);
    const edited = JSON.parse(JSON.stringify(snapshot)) as typeof snapshot;
    edited.rows.splice(0, 1);
    expect(snapshotDigest(edited)).not.toBe(snapshot.header.digest);
  });

  it.runIf(hasPython)("is recomputed by the recipe of docs/audits.md (python3, no usersync)", () => {
    const recipe = [
      "import hashlib, json, sys",
      "s = json.load(sys.stdin)",
      "s['header'].pop('digest'); s['header'].pop('signature', None)",
      "t = json.dumps(s, sort_keys=True, separators=(',', ':'), ensure_ascii=False)",
      "print('sha256:' + hashlib.sha256(t.encode('utf-8')).hexdigest())",
    ].join("\n");
    const out = execFileSync("python3", ["-c", recipe], { input: JSON.stringify(snapshot) })
      .toString()
      .trim();
    expect(out).toBe(snapshot.header.digest);
  });
});
