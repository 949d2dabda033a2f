/** Small builders of hand-made plans for executor tests. */
import { PLAN_FORMAT_VERSION, type Plan, type Step } from "../../src/plan/types.js";

export function aPlan(steps: Step[], overrides: Partial<Plan> = {}): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    profile: "v1",
    mode: "incremental",
    membership: "exact",
    deletions: "revoke",
    inputFingerprint: "test",
    objects: {},
    steps,
    notices: [],
    counts: { create: 0, update: 0, delete: 0, heldBack: 0 },
    deleteGuard: { limit: 10, wanted: 0, managedUsers: 0 },
    estimate: { requests: steps.length, seconds: 0 },
    ...overrides,
  };
}

const base = {
  dependsOn: [] as string[],
  reason: "test",
  touches: [] as string[],
  status: "planned" as const,
};

/** Credentials create + mapping create wired by `fromStep`, as the planner makes them for a new user. */
export function newUserSteps(email: string, id: string, groups: string[] = []): [Step, Step] {
  const credId = `createCredentials:${email}`;
  return [
    {
      ...base,
      id: credId,
      kind: "createCredentials",
      target: email,
      after: { email, displayName: id, password: "generate" },
    },
    {
      ...base,
      id: `createMapping:${id}`,
      kind: "createMapping",
      target: id,
      dependsOn: [credId],
      after: { id, authenticationId: { fromStep: credId }, groups },
    },
  ];
}

export function groupStep(id: string, parents: string[] = []): Step {
  return {
    ...base,
    id: `createGroup:${id}`,
    kind: "createGroup",
    target: id,
    dependsOn: parents.map((p) => `createGroup:${p}`),
    after: { id, name: id, parents },
  };
}

export function deleteCredentialsStep(email: string, status: "planned" | "heldBack" = "planned"): Step {
  return {
    ...base,
    id: `deleteCredentials:${email}`,
    kind: "deleteCredentials",
    target: email,
    status,
    before: { email, displayName: email, authenticationId: "x" },
  };
}

export const noPasswords = {
  source: "none" as const,
  passwordFor: async () => undefined,
  close: async () => {},
};
