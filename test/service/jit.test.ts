/**
 * Just-in-time provisioning (service/jit.ts): the organization settings read over a real socket
 * (request and answer checked against the official OpenAPI), which settings count as on, the
 * groups they name, and the plan's words about them (issue 38, point 6).
 */
import { describe, expect, it } from "vitest";
import type { EmulatorOrganizationSetting } from "../../src/emulator/types.js";
import { listActualState } from "../../src/service/index.js";
import { plan } from "../../src/plan/index.js";
import { renderPlan } from "../../src/report/index.js";
import { operationProblems, validateAgainst } from "../helpers/openapi.js";
import { TEST_TOKEN, withEmulatorClient } from "../helpers/env.js";
import { aDesiredState, aPolicy, aUser } from "../plan/builders.js";

const settings: EmulatorOrganizationSetting[] = [
  {
    id: "jit",
    type: "JIT_PROVISIONING",
    content: { enabled: true, userGroupsDefaults: ["sales", "everyone"] },
  },
  { id: "tz", type: "TIMEZONE", content: { value: "Europe/Prague" } },
];

async function read(organizationSettings: EmulatorOrganizationSetting[], jit = true) {
  const e = await withEmulatorClient({ emulator: { organizationSettings } });
  try {
    e.emulator.resetLog();
    const actual = await listActualState(e.client, { jit });
    const urls = e.emulator.requestLog().map((r) => `${r.method} ${r.url.split("?")[0]}`);
    return { actual, urls };
  } finally {
    await e.close();
  }
}

describe("reading just-in-time provisioning", () => {
  it("one GET of the organization settings, valid against the official spec; the JIT setting and its groups", async () => {
    const { actual, urls } = await read(settings);
    expect(urls.filter((u) => u.includes("organizationSettings"))).toEqual([
      "GET /api/v1/entities/organizationSettings",
    ]);
    expect(operationProblems("GET", "/api/v1/entities/organizationSettings?size=1000")).toEqual([]);
    expect(actual.jit).toEqual({ settings: ["JIT_PROVISIONING"], groups: ["everyone", "sales"] });
  });

  it("the emulator's answer is the official list document", async () => {
    const e = await withEmulatorClient({ emulator: { organizationSettings: settings } });
    try {
      const res = await fetch(`${e.emulator.url}/api/v1/entities/organizationSettings`, {
        headers: { Authorization: `Bearer ${TEST_TOKEN}` },
      });
      expect(validateAgainst("metadata", "JsonApiOrganizationSettingOutList", await res.json())).toEqual([]);
    } finally {
      await e.close();
    }
  });

  it("off when disabled or absent, and not read at all unless asked (a file source)", async () => {
    expect(
      (await read([{ id: "jit", type: "JWT_JIT_PROVISIONING", content: { enabled: false } }])).actual.jit,
    ).toBeUndefined();
    expect((await read([])).actual.jit).toBeUndefined();
    const notAsked = await read(settings, false);
    expect(notAsked.actual.jit).toBeUndefined();
    expect(notAsked.urls.some((u) => u.includes("organizationSettings"))).toBe(false);
  });

  it("the plan says so up front and names the groups both sides write", () => {
    const p = plan({
      desired: aDesiredState([aUser({ email: "ann@example.com", groups: ["sales"] })]),
      actual: {
        idpUsers: [],
        mappings: [],
        groups: [],
        jit: { settings: ["JIT_PROVISIONING"], groups: ["everyone", "sales"] },
      },
      policy: aPolicy({ groups: { ...aPolicy().groups, createReferenced: true } }),
      profile: "v1",
    });
    expect(p.jit).toEqual({ settings: ["JIT_PROVISIONING"], sharedGroups: ["sales"] });
    const text = renderPlan(p, { format: "text", dryRun: true, color: false });
    expect(text).toContain("Just-in-time provisioning is on (JIT_PROVISIONING)");
    expect(text).toContain(
      "Groups the service also sets at every sign-in, shared with the desired state: sales.",
    );
  });
});
