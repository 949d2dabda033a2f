/**
 * Issue 46, in process: changes compare meaning (a raise is only a raise), the coverage table
 * follows shared/spec/access-rules.md R5-R8 (written out here again, not read from usersync), and
 * a snapshot signed with a private key verifies with its public key and with no other.
 */
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { effectiveWorkspace, reachesWorkspace, WORKSPACE_PERMISSIONS } from "../../src/permissions.js";
import { reviewChanges } from "../../src/review/changes.js";
import { reviewFindings } from "../../src/review/findings.js";
import { fromSnapshot } from "../../src/review/from-snapshot.js";
import { toSnapshot } from "../../src/review/to-snapshot.js";
import type { Review } from "../../src/review/types.js";
import { signSnapshot, verificationProblem, verifySnapshot } from "../../src/cli/review-snapshot-file.js";
import { aReview } from "../report/review-fixture.js";

const SPEC: Record<string, string[]> = {
  MANAGE: ["ANALYZE", "CREATE_FILTER_VIEW", "EXPORT", "EXPORT_PDF", "EXPORT_TABULAR", "MANAGE", "VIEW"],
  ANALYZE: ["ANALYZE", "VIEW"],
  EXPORT: ["EXPORT", "EXPORT_PDF", "EXPORT_TABULAR", "VIEW"],
  EXPORT_PDF: ["EXPORT_PDF", "VIEW"],
  EXPORT_TABULAR: ["EXPORT_TABULAR", "VIEW"],
  VIEW: ["VIEW"],
  CREATE_FILTER_VIEW: ["CREATE_FILTER_VIEW"],
  CREATE_AUTOMATION: ["CREATE_AUTOMATION"],
  USE_AI_ASSISTANT: ["USE_AI_ASSISTANT"],
};

describe("the service's rules", () => {
  it("each permission covers what access-rules.md says, and only VIEW (held or covered) reaches", () => {
    for (const p of WORKSPACE_PERMISSIONS) {
      expect(effectiveWorkspace([p]), p).toEqual(SPEC[p]);
      expect(reachesWorkspace([p]), p).toBe(SPEC[p]!.includes("VIEW"));
    }
    expect(effectiveWorkspace(["ANALYZE", "CREATE_AUTOMATION", "USE_AI_ASSISTANT"])).toContain("VIEW");
  });

  it("EXPORT_PDF -> EXPORT is a raise only; EXPORT -> EXPORT_PDF a lowering only", () => {
    const withRow = (granted: ("EXPORT" | "EXPORT_PDF")[]): Review => {
      const r = aReview();
      const p = { ...r.people[0]! };
      const a = p.access[0]!;
      p.access = [{ ...a, granted, permissions: effectiveWorkspace(granted), manage: false }];
      r.people = [p];
      return r;
    };
    const kinds = (before: Review, after: Review): string[] =>
      reviewChanges(before, after).changes.map((c) => c.kind);
    expect(kinds(withRow(["EXPORT_PDF"]), withRow(["EXPORT"]))).toEqual(["permissionsRaised"]);
    expect(kinds(withRow(["EXPORT"]), withRow(["EXPORT_PDF"]))).toEqual(["permissionsLowered"]);
  });
});

describe("dated removals", () => {
  it("a leaver holding access longer than review.removalWithin after leaving is removalLate", () => {
    const base = aReview().people.find((p) => p.access.length > 0)!;
    const leaver = {
      ...base,
      status: "leaver" as const,
      leaver: true,
      goneSince: "2026-11-01T00:00:00.000Z",
    };
    const late = (listedAt: string, withinSeconds: number): string[] =>
      reviewFindings([leaver], false, undefined, { listedAt, withinSeconds })
        .filter((f) => f.kind === "removalLate")
        .map((f) => f.severity);
    // 24 h allowed: one day and one hour later is late; twenty-three hours later is not.
    expect(late("2026-11-02T01:00:00.000Z", 86_400)).toEqual(["high"]);
    expect(late("2026-11-01T23:00:00.000Z", 86_400)).toEqual([]);
    // Not configured (0): never.
    expect(late("2027-01-01T00:00:00.000Z", 0)).toEqual([]);
    // Nothing held: nothing outlived the leaving.
    const gone = { ...leaver, access: [], organizationPermissions: [] };
    expect(
      reviewFindings([gone], false, undefined, { listedAt: "2027-01-01T00:00:00.000Z", withinSeconds: 60 }),
    ).toEqual([]);
  });
});

describe("signed snapshots", () => {
  it("verify with the signer's public key, and not with another's or unsigned", async () => {
    const snapshot = toSnapshot(aReview());
    const mine = generateKeyPairSync("ed25519");
    const theirs = generateKeyPairSync("ed25519");
    expect((await verifySnapshot(snapshot, mine.publicKey)).signature).toBe("missing");
    await signSnapshot(snapshot, mine.privateKey);
    expect(snapshot.header.signature).toMatch(/^[\w-]+\.\.[\w-]+$/);
    expect(await verifySnapshot(snapshot, mine.publicKey)).toMatchObject({
      digestOk: true,
      signature: "valid",
    });
    expect((await verifySnapshot(snapshot, theirs.publicKey)).signature).toBe("invalid");
    // The signature is over the digest, the digest over everything else: an edit breaks the digest.
    const edited = JSON.parse(JSON.stringify(snapshot)) as typeof snapshot;
    edited.people.pop();
    const v = await verifySnapshot(edited, mine.publicKey);
    expect(verificationProblem(v, edited.header.digest)).toMatch(/does not match its digest/);
    // The signature survives the trip through the model.
    expect(toSnapshot(fromSnapshot(snapshot)).header.digest).toBe(snapshot.header.digest);
  });
});
