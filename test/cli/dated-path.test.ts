/** `{date}` in a review's or a campaign's path: the UTC date of the run, so a schedule keeps each period's files. */
import { describe, expect, it } from "vitest";
import { datedPath, ownPath } from "../../src/cli/output-paths.js";

describe("datedPath", () => {
  it("puts the UTC date where {date} is, every time, and leaves other paths alone", () => {
    const late = new Date("2026-12-31T23:30:00-05:00"); // already 2027-01-01 in UTC
    expect(datedPath("/state/campaigns/{date}/review.json", late)).toBe(
      "/state/campaigns/2027-01-01/review.json",
    );
    expect(datedPath("{date}/{date}.json", late)).toBe("2027-01-01/2027-01-01.json");
    expect(datedPath("review.json", late)).toBe("review.json");
    expect(datedPath(undefined, late)).toBeUndefined();
  });

  it("then makes it the organization's own with a target", () => {
    const at = new Date("2026-10-01T07:30:00Z");
    expect(ownPath(datedPath("campaigns/{date}/review.json", at), { targetName: "alpha" })).toBe(
      "campaigns/2026-10-01/review.alpha.json",
    );
  });
});
