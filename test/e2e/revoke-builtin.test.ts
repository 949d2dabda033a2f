/**
 * `deletions: revoke` means no access, for a person with a built-in login too (issue 49, item 4;
 * docs/configuration.md "What revoke does"), through the built CLI against the emulator: over
 * `maxDeletes` nothing of the revoke is sent (exit 3); within it the leaver ends with no login, no
 * group, no managed grant, no managed filter and no API token, and their mapping stays; a person
 * who stays keeps their tokens; a returner gets their access back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REVOKED, startSalesTeam, TEAM, type SalesTeam } from "../helpers/sales-team.js";

let team: SalesTeam;

beforeAll(async () => {
  team = await startSalesTeam({
    token: "revoke-builtin-token",
    authPrefix: "auth-",
    seed: {
      idpUsers: TEAM.map((id) => ({
        email: `${id}@example.com`,
        displayName: id,
        authenticationId: `auth-${id}`,
      })),
      apiTokens: [
        { user: "jane", id: "jane-laptop" },
        { user: "jane", id: "jane-ci" },
        { user: "bob", id: "bob-script" },
      ],
    },
    config: { policy: { mode: "full", maxDeletes: 1, deletions: "revoke" } },
  });
});
afterAll(() => team?.close());

/** The desired state: each person's groups, or `absent` for a row marked `state: absent`. */
const people = (names: Record<string, string[] | "absent">): Promise<void> =>
  team.people(
    Object.entries(names).map(([id, groups]) => ({
      id,
      displayName: id,
      ...(groups === "absent" ? { state: "absent" } : { groups }),
    })),
  );
const cli = (...args: string[]) => team.cli(...args);
const accessOf = (id: string) => team.accessOf(id);

describe("a leaver with a built-in login (deletions: revoke)", () => {
  it("over maxDeletes: exit 3, and nothing of either revoke is sent", async () => {
    await people({ bob: ["sales"], jane: "absent", ann: "absent" }); // both left; maxDeletes is 1
    const before = { jane: accessOf("jane"), ann: accessOf("ann") };
    team.emulator.resetLog();
    const r = await cli("apply", "--yes");
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/2 people to revoke or remove, 1 allowed/);
    expect(team.emulator.requestLog().filter((e) => e.method === "DELETE")).toEqual([]);
    expect(accessOf("jane")).toEqual(before.jane);
    expect(accessOf("ann")).toEqual(before.ann);
    // The review lists a leaver's tokens (ids, never a value) and flags them; nobody else's is listed.
    const review = await cli("review", "--format", "json");
    expect(review.code, review.stderr).toBe(0);
    const parsed = JSON.parse(review.stdout) as {
      people: Array<{ id?: string; apiTokens?: string[] }>;
      findings: Array<{ kind: string; person: string; detail: string }>;
    };
    expect(parsed.people.find((p) => p.id === "jane")?.apiTokens).toEqual(["jane-ci", "jane-laptop"]);
    expect(parsed.people.find((p) => p.id === "ann")?.apiTokens).toEqual([]);
    expect(parsed.people.find((p) => p.id === "bob")?.apiTokens).toBeUndefined();
    const flagged = parsed.findings.filter((f) => f.kind === "leaverApiTokens");
    expect(flagged.map((f) => f.person)).toEqual(["jane"]);
    expect(flagged[0]?.detail).toMatch(/still has 2 API token\(s\) \(jane-ci, jane-laptop\)/);
  }, 120_000);

  it("within the limit: no login, group, grant, filter or API token left; the mapping stays", async () => {
    await people({ bob: ["sales"], ann: ["sales"] });
    const plan = await cli("plan");
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/People\s+1 to revoke/);
    expect(plan.stdout).toContain("jane-laptop");
    const r = await cli("apply", "--yes");
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(accessOf("jane")).toEqual(REVOKED);
    // Bob stays, and so does his token; the team's grant stays.
    expect(accessOf("bob").tokens).toEqual(["bob-script"]);
    const again = await cli("plan", "--detailed-exitcode");
    expect(again.code, again.stdout).toBe(0);
  }, 120_000);

  it("a person who comes back gets a login and their access back", async () => {
    await people({ bob: ["sales"], ann: ["sales"], jane: ["sales"] });
    const r = await cli("apply", "--yes");
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(accessOf("jane")).toMatchObject({ login: true, mapped: true, groups: ["sales"] });
    expect((await cli("plan", "--detailed-exitcode")).code).toBe(0);
  }, 120_000);
});
