import { describe, expect, test } from "vitest";
import { readDesiredState, validateForProfile } from "../../src/desired/index.js";
import { formatProblem } from "../../src/errors.js";

describe("validateForProfile", () => {
  test("legacy: one group per user, no names (warning), no group parents", async () => {
    const { state, problems } = await readDesiredState({ file: "fixtures/valid/users.yaml" });
    expect(problems).toEqual([]);
    expect(validateForProfile(state, "v1")).toEqual([]);
    expect(validateForProfile(state, "legacy").map(formatProblem)).toEqual([
      'fixtures/valid/users.yaml:8: groups[1].parents: group "emea-analysts" has parents; the legacy API has no group hierarchy: remove them [legacy-no-parents]',
      'fixtures/valid/users.yaml:16: users[1].firstname: user "john": the legacy API has no firstname/lastname; they are ignored [legacy-no-names]',
    ]);
    expect(validateForProfile(state, "legacy").map((p) => p.severity)).toEqual(["error", "warning"]);
  });

  test("legacy: more than one group is an error naming the groups", async () => {
    const { state } = await readDesiredState({
      file: "fixtures/valid/users.csv",
      groupsFile: "fixtures/valid/groups.csv",
    });
    const problems = validateForProfile(state, "legacy");
    expect(problems.map(formatProblem)).toEqual([
      'fixtures/valid/users.csv:3: groups: user "bob_example.com" has 2 groups (analysts, emea-analysts); the legacy API maps a user to exactly one group [legacy-one-group]',
      'fixtures/valid/groups.csv:3: parents: group "emea-analysts" has parents; the legacy API has no group hierarchy: remove them [legacy-no-parents]',
    ]);
  });
});
