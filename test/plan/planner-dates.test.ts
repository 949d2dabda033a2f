/**
 * Start and end dates (issue 49, docs/onboarding.md): the run's day comes in as an argument.
 * Before the start date a person has no login (an existing one is revoked like a leaver's);
 * from the start date to the end date, both included, they are present; after it, a leaver.
 */
import { describe, expect, test } from "vitest";
import { plan } from "../../src/plan/index.js";
import { renderPlan } from "../../src/report/index.js";
import { aDesiredState, aMapping, aPolicy, aUser, anActualState, anIdpUser, stepIds } from "./builders.js";

const starter = aUser({ email: "new@example.com", groups: ["sales"], startDate: "2026-12-01" });
const leaver = aUser({ email: "old@example.com", groups: [], endDate: "2026-11-30" });
const oldIdp = anIdpUser({ email: "old@example.com" });
const actual = anActualState({
  idpUsers: [oldIdp],
  mappings: [aMapping({ id: "old", authenticationId: oldIdp.authenticationId, email: oldIdp.email })],
  groups: [{ id: "sales", parents: [] }],
});
const planOn = (today: string | undefined) =>
  plan({
    desired: aDesiredState([starter, leaver]),
    actual,
    policy: aPolicy(),
    profile: "v1",
    ...(today !== undefined ? { today } : {}),
  });

describe("startDate and endDate", () => {
  test.each([
    // day, steps, who waits, who ended
    ["2026-11-29", [], ["new@example.com"], []],
    ["2026-11-30", [], ["new@example.com"], []],
    ["2026-12-01", ["createCredentials:new@example.com", "createMapping:new"], [], ["old@example.com"]],
  ])("on %s", (today, creates, waiting, ended) => {
    const p = planOn(today);
    expect(stepIds(p).filter((s) => s.startsWith("create"))).toEqual(creates);
    expect(p.dates?.notYetStarted.map((d) => d.email)).toEqual(waiting);
    expect(p.dates?.ended.map((d) => d.email)).toEqual(ended);
    // The leaver keeps the login through the last day; the day after, deletions: revoke takes it.
    expect(stepIds(p).includes("deleteCredentials:old@example.com")).toBe(ended.length > 0);
  });

  test("the plan says who starts and ends when", () => {
    const text = renderPlan(planOn("2026-11-30"), { format: "text", dryRun: true, color: false });
    expect(text).toContain("Starting later (no login before the start date; today is 2026-11-30)");
    expect(text).toMatch(/new@example\.com.*starts 2026-12-01/);
    expect(text).toMatch(/old@example\.com.*last day 2026-11-30/);
    const md = renderPlan(planOn("2026-12-01"), { format: "markdown", dryRun: true, color: false });
    expect(md).toContain("Starting today");
    expect(md).toContain("Ended (past the end date: leavers)");
  });

  test("a person whose start was put off loses the login an earlier batch made", () => {
    const idp = anIdpUser({ email: "new@example.com" });
    const p = plan({
      desired: aDesiredState([starter]),
      actual: anActualState({
        idpUsers: [idp],
        mappings: [
          aMapping({
            id: "new",
            authenticationId: idp.authenticationId,
            email: idp.email,
            groups: ["sales"],
          }),
        ],
        groups: [{ id: "sales", parents: [] }],
      }),
      policy: aPolicy(),
      profile: "v1",
      today: "2026-11-15",
    });
    expect(stepIds(p)).toContain("deleteCredentials:new@example.com");
  });

  test("without a day (a caller that plans undated) the dates are not applied and the plan says none", () => {
    const p = planOn(undefined);
    expect(p.dates).toBeUndefined();
    expect(stepIds(p)).toContain("createCredentials:new@example.com");
  });
});

describe("an e-mail in capitals", () => {
  test("the plan shows the login's e-mail as it is sent (as the file writes it)", () => {
    const p = plan({
      desired: aDesiredState([aUser({ email: "JOHN.UPPER@ACME.EXAMPLE", id: "john" })]),
      actual: anActualState(),
      policy: aPolicy(),
      profile: "v1",
    });
    const text = renderPlan(p, { format: "text", dryRun: true, color: false, detail: "full" });
    expect(text).toContain("john.upper@acme.example");
    expect(text).toContain(`credentials john.upper@acme.example`);
    expect(text).toMatch(/^ +email: "JOHN\.UPPER@ACME\.EXAMPLE"$/m);
  });
});

describe("one person, one account", () => {
  const oldIdp = anIdpUser({ email: "anna.smith@acme.example", displayName: "Anna Smith" });
  const actualAnna = anActualState({
    idpUsers: [oldIdp],
    mappings: [
      aMapping({ id: "anna.smith", authenticationId: oldIdp.authenticationId, email: oldIdp.email }),
    ],
  });
  const planFor = (users: Parameters<typeof aDesiredState>[0]) =>
    plan({ desired: aDesiredState(users), actual: actualAnna, policy: aPolicy(), profile: "v1" });

  test("a new e-mail with the name of a login the file dropped is held, not a second account", () => {
    const p = planFor([aUser({ email: "anna.jones@acme.example", displayName: "Anna Smith" })]);
    expect(stepIds(p)).toEqual([]);
    const held = p.notices.filter((n) => n.kind === "emailChange");
    expect(held).toHaveLength(1);
    expect(held[0]!.message).toContain("give the row id anna.smith (the old account's) to change the e-mail");
    const text = renderPlan(p, { format: "text", dryRun: true, color: false });
    expect(text).toContain("Likely e-mail changes (not planned as a second account) (1)");
  });

  test("with the old account's id it is an e-mail change; with the old e-mail listed, two people", () => {
    const withId = planFor([
      aUser({ email: "anna.jones@acme.example", id: "anna.smith", displayName: "Anna Smith" }),
    ]);
    expect(withId.notices.filter((n) => n.kind === "emailChange")).toEqual([]);
    expect(stepIds(withId)).toContain("createCredentials:anna.jones@acme.example");
    const both = planFor([
      aUser({ email: "anna.jones@acme.example", displayName: "Anna Smith" }),
      aUser({ email: "anna.smith@acme.example", displayName: "Anna Smith" }),
    ]);
    expect(both.notices.filter((n) => n.kind === "emailChange")).toEqual([]);
    expect(stepIds(both)).toContain("createCredentials:anna.jones@acme.example");
  });

  // docs/onboarding.md "One person, one account": the source's ids come before the name.
  describe("ids the source gives (an id column) come before the name", () => {
    const byHr = anActualState({
      idpUsers: [oldIdp],
      mappings: [aMapping({ id: "E1001", authenticationId: oldIdp.authenticationId, email: oldIdp.email })],
    });
    const planHr = (users: Parameters<typeof aDesiredState>[0]) =>
      plan({ desired: aDesiredState(users), actual: byHr, policy: aPolicy(), profile: "v1" });
    const newAnna = { email: "anna.jones@acme.example", displayName: "Anna Smith" };

    test("another employee id than the dropped login's account: two people, the new one planned", () => {
      const p = planHr([aUser({ ...newAnna, id: "E2002" })]);
      expect(p.notices.filter((n) => n.kind === "emailChange")).toEqual([]);
      expect(stepIds(p)).toContain("createCredentials:anna.jones@acme.example");
    });

    test("the row's id derived from its e-mail says nothing: held by the name", () => {
      const p = planHr([aUser(newAnna)]);
      expect(stepIds(p)).toEqual([]);
      expect(p.notices.filter((n) => n.kind === "emailChange")[0]?.message).toContain(
        "give the row id E1001 (the old account's)",
      );
    });

    test("an account whose id was derived from its old e-mail says nothing: held by the name", () => {
      // docs/desired-state.md "The id derived from an email": the whole e-mail, lower case, `@` as `_`.
      const derived = anActualState({
        idpUsers: [oldIdp],
        mappings: [
          aMapping({
            id: "anna.smith_acme.example",
            authenticationId: oldIdp.authenticationId,
            email: oldIdp.email,
          }),
        ],
      });
      const desired = aDesiredState([aUser({ ...newAnna, id: "E2002" })]);
      const p = plan({ desired, actual: derived, policy: aPolicy(), profile: "v1" });
      expect(stepIds(p)).toEqual([]);
      expect(p.notices.filter((n) => n.kind === "emailChange")).toHaveLength(1);
    });
  });
});
