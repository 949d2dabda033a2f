/** Generated plans validate against the published JSON Schema, docs/plan.schema.json. */
import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import { expect, test } from "vitest";
import { renderPlan } from "../../src/report/index.js";
import { plan, type Plan } from "../../src/plan/index.js";
import { MEMBERS_PER_REQUEST } from "../../src/plan/bulk.js";
import {
  aDesiredGroup,
  aDesiredState,
  aGroup,
  aMapping,
  aPolicy,
  aUser,
  anActualState,
  anIdpUser,
} from "../plan/builders.js";
import { bulkPlan, permissionPlan, samplePlan } from "./sample-plan.js";

/** Group updates and deletions, an email change (mapping re-pointed at new credentials), a legacy profile. */
function groupsAndEmailChange(profile: "v1" | "legacy") {
  return plan({
    desired: aDesiredState(
      [aUser({ email: "new@x.com", id: "jo" })],
      [aDesiredGroup({ id: "g", name: "G2" })],
    ),
    actual: anActualState({
      idpUsers: [anIdpUser({ email: "old@x.com" })],
      mappings: [aMapping({ id: "jo", authenticationId: "auth-old@x.com", groups: ["g"] })],
      groups: [aGroup({ id: "g", name: "G" }), aGroup({ id: "empty" })],
    }),
    policy: aPolicy({
      mode: "full",
      groups: { create: true, update: true, prune: true, createReferenced: false },
    }),
    profile,
  });
}

/** Two people missing from a full run's source (one pending, one past policy.revokeAfter), and an incremental run that keeps them. */
function graceAndKept(mode: "full" | "incremental") {
  const now = Date.parse("2024-05-06T10:00:00.000Z");
  const idpUsers = ["a@x.com", "b@x.com"].map((email) => anIdpUser({ email }));
  return plan({
    desired: aDesiredState([aUser({ email: "c@x.com" })]),
    actual: anActualState({
      idpUsers,
      mappings: idpUsers.map((u, i) => aMapping({ id: "ab"[i]!, authenticationId: u.authenticationId })),
    }),
    policy: aPolicy({ mode, maxDeletes: { count: 5 }, revokeAfter: { text: "3d", seconds: 3 * 86_400 } }),
    profile: "v1",
    grace: { now, people: new Map([["mapping:b", { since: now - 4 * 86_400_000, reason: "created" }]]) },
  });
}

const schema = JSON.parse(
  readFileSync(new URL("../../docs/plan.schema.json", import.meta.url), "utf8"),
) as object;
const validate = new Ajv({ allErrors: true, strict: true }).compile(schema);

test.each([
  ["a plan with every kind of change", samplePlan()],
  ["a plan with held-back deletions", samplePlan({ maxDeletes: 0 })],
  ["group update and prune, email change (v1)", groupsAndEmailChange("v1")],
  ["group update and prune, email change (legacy)", groupsAndEmailChange("legacy")],
  ["a grace period: people pending and due", graceAndKept("full")],
  ["people kept only by incremental mode", graceAndKept("incremental")],
  ["bulk membership moves", bulkPlan(1203)],
  ["a plan that changes permissions", permissionPlan()],
  ["a plan whose permission removals are held back", permissionPlan({ maxRemovals: 0 })],
  ["start and end dates, a likely e-mail change", datedPlan()],
])("%s validates", (_name, plan) => {
  expect(plan.steps.length).toBeGreaterThan(0);
  const json = JSON.parse(renderPlan(plan, { format: "json", dryRun: true, color: false })) as unknown;
  expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
});

/** Issue 49: dated people (plan.dates) and a new row with a dropped login's name (notice emailChange). */
function datedPlan(): Plan {
  const idp = anIdpUser({ email: "anna.smith@example.com", displayName: "Anna Smith" });
  return plan({
    desired: aDesiredState([
      aUser({ email: "new@example.com", startDate: "2026-12-01", endDate: "2027-06-30" }),
      aUser({ email: "later@example.com", startDate: "2026-12-24" }),
      aUser({ email: "anna.jones@example.com", displayName: "Anna Smith" }),
    ]),
    actual: anActualState({ idpUsers: [idp] }),
    policy: aPolicy(),
    profile: "v1",
    today: "2026-12-01",
  });
}

test("the schema's bulk batch size is the planner's", () => {
  const steps = (schema as { properties: { steps: { items: { oneOf: Array<Record<string, unknown>> } } } })
    .properties.steps.items.oneOf;
  const add = steps.find((s) => JSON.stringify(s).includes('"const":"addMembers"')) as {
    properties: { members: { maxItems: number } };
  };
  expect(add.properties.members.maxItems).toBe(MEMBERS_PER_REQUEST);
});

test("the schema rejects what a plan must not contain", () => {
  const json = JSON.parse(renderPlan(samplePlan(), { format: "json", dryRun: true, color: false })) as {
    steps: Array<Record<string, unknown>>;
    formatVersion: number;
  };
  expect(validate({ ...json, formatVersion: 1 })).toBe(true);
  expect(validate({ ...json, formatVersion: 3 })).toBe(false);
  const withPassword = structuredClone(json);
  const create = withPassword.steps.find((s) => s["kind"] === "createCredentials") as {
    after: Record<string, unknown>;
  };
  create.after["password"] = "Secret-Pa55";
  expect(validate(withPassword)).toBe(false);
});
