/**
 * `deletions: revoke` for people who sign in through the organization's OIDC provider, through
 * the built CLI against the emulator (docs/configuration.md, "What revoke does"): a leaver keeps
 * no group, no managed direct grant and no managed data filter after apply, their mapping stays,
 * a second plan is empty, `maxDeletes` holds the revoke back (exit 3) with nothing of it sent,
 * and a person who comes back gets their access back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REVOKED, startSalesTeam, type SalesTeam } from "../helpers/sales-team.js";

let team: SalesTeam;

beforeAll(async () => {
  team = await startSalesTeam({
    token: "revoke-token",
    authPrefix: "sub-",
    // Everyone signs in through the organization's OIDC provider: no built-in logins.
    signIn: { oauthIssuerLocation: "https://login.example.com/" },
    seed: {},
    config: { identity: { default: "external" }, policy: { mode: "full", maxDeletes: 1 } },
  });
});
afterAll(() => team?.close());

/** The desired state: the team (with its grant and a filter of bob's) and the people named. */
const people = (names: Record<string, string[]>): Promise<void> =>
  team.people(Object.entries(names).map(([id, groups]) => ({ id, authenticationId: `sub-${id}`, groups })));
const cli = (...args: string[]) => team.cli(...args);
const accessOf = (id: string) => team.accessOf(id);

describe("a leaver who signs in through the identity provider (deletions: revoke)", () => {
  it("over maxDeletes the revoke is held back whole: exit 3, nothing of it sent", async () => {
    await people({ bob: ["sales"] }); // jane and ann both left; maxDeletes is 1
    const before = { jane: accessOf("jane"), ann: accessOf("ann") };
    const r = await cli("apply", "--yes");
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/user jane: revoke: access revoked \(signs in through the identity provider/);
    expect(r.stdout).toMatch(/2 people to revoke or remove, 1 allowed/);
    expect(r.stdout).not.toMatch(/revoked\)/); // nobody is said to be done
    expect(accessOf("jane")).toEqual(before.jane);
    expect(accessOf("ann")).toEqual(before.ann);
    expect(accessOf("jane").filters).toHaveLength(1);
  }, 120_000);

  it("within the limit: no group, grant or filter left, the mapping stays; a second plan is empty", async () => {
    await people({ bob: ["sales"], ann: ["sales"] });
    const plan = await cli("plan");
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/People\s+1 to revoke/);
    const r = await cli("apply", "--yes");
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(accessOf("jane")).toEqual(REVOKED);
    // Bob's filter was made; the team's grant stays.
    expect(accessOf("bob").filters).toHaveLength(1);
    const again = await cli("plan", "--detailed-exitcode");
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toMatch(/No changes/);
    // The access review sees her with no access left (her login is at the identity provider).
    const review = await cli("review", "--format", "json");
    expect(review.code, review.stderr).toBe(0);
    const snapshot = JSON.parse(review.stdout) as {
      people: Array<Record<string, unknown>>;
      rows: Array<{ person: string }>;
    };
    expect(snapshot.people.find((p) => p["id"] === "jane")).toMatchObject({ login: "external" });
    // No row: no workspace reached, no organization permission held.
    expect(snapshot.rows.filter((r) => r.person === "jane")).toEqual([]);
  }, 120_000);

  it("a person who comes back gets their access back", async () => {
    await people({ bob: ["sales"], ann: ["sales"], jane: ["sales"] });
    const r = await cli("apply", "--yes");
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(accessOf("jane").groups).toEqual(["sales"]);
    expect((await cli("plan", "--detailed-exitcode")).code).toBe(0);
  }, 120_000);
});
