import { describe, expect, it } from "vitest";
import { findStaleSteps } from "../../src/apply/index.js";
import { ABSENT, fingerprintMapping, groupKey, idpKey, mappingKey } from "../../src/plan/fingerprint.js";
import type { Step } from "../../src/plan/types.js";
import type { ActualState } from "../../src/service/types.js";
import { aPlan } from "./builders.js";

const base = { dependsOn: [] as string[], reason: "t", status: "planned" as const };
const jane = { id: "jane", authenticationId: "a1", groups: ["sales"] };

describe("findStaleSteps", () => {
  const steps: Step[] = [
    {
      ...base,
      id: "updateMapping:jane",
      kind: "updateMapping",
      target: "jane",
      touches: [mappingKey("jane")],
      before: jane,
      after: { ...jane, groups: [] },
    },
    {
      ...base,
      id: "createCredentials:new@x.com",
      kind: "createCredentials",
      target: "new@x.com",
      touches: [idpKey("new@x.com")],
      after: { email: "new@x.com", displayName: "n", password: "none" },
    },
    {
      ...base,
      id: "createGroup:g",
      kind: "createGroup",
      target: "g",
      touches: [groupKey("g"), "group:unrecorded"],
      after: { id: "g", parents: [] },
    },
  ];
  const plan = aPlan(steps, {
    objects: {
      [mappingKey("jane")]: fingerprintMapping(jane),
      [idpKey("new@x.com")]: ABSENT,
      [groupKey("g")]: ABSENT,
    },
  });

  it("finds nothing stale when the objects did not change (except keys the plan never recorded)", () => {
    const actual: ActualState = { idpUsers: [], mappings: [{ ...jane, groups: ["sales"] }], groups: [] };
    expect([...findStaleSteps(plan, actual)]).toEqual(["createGroup:g"]);
  });

  it("marks the steps whose objects changed or appeared", () => {
    const actual: ActualState = {
      idpUsers: [{ email: "NEW@x.com", displayName: "someone", authenticationId: "z" }],
      mappings: [{ ...jane, groups: ["other"] }],
      groups: [],
    };
    expect([...findStaleSteps(plan, actual)].sort()).toEqual([
      "createCredentials:new@x.com",
      "createGroup:g",
      "updateMapping:jane",
    ]);
  });
});
