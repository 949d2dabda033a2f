/** Saved plans: deterministic JSON, versioned, malformed files rejected with the file named. */
import { describe, expect, test } from "vitest";
import { InputError } from "../../src/errors.js";
import { isEmptyPlan, parsePlan, plan, serializePlan, summarizePlan } from "../../src/plan/index.js";
import {
  aDesiredGroup,
  aDesiredState,
  aGroup,
  aMapping,
  aPolicy,
  aUser,
  anActualState,
  anIdpUser,
} from "./builders.js";

const desired = aDesiredState(
  [
    aUser({ email: "b@x.com", groups: ["g"] }),
    aUser({ email: "a@x.com", id: "a", displayName: "A" }),
    aUser({ email: "c@x.com", state: "absent" }),
  ],
  [aDesiredGroup({ id: "g", parents: ["p"] }), aDesiredGroup({ id: "p" })],
);
const actual = anActualState({
  idpUsers: [
    anIdpUser({ email: "a@x.com" }),
    anIdpUser({ email: "c@x.com" }),
    anIdpUser({ email: "z@x.com" }),
  ],
  mappings: [
    aMapping({ id: "c", authenticationId: "auth-c@x.com" }),
    aMapping({ id: "z", authenticationId: "auth-z@x.com" }),
  ],
  groups: [aGroup({ id: "old" })],
});
const policy = aPolicy({ mode: "full", deletions: "remove", maxDeletes: { count: 5 } });
const make = (d = desired, a = actual) => plan({ desired: d, actual: a, policy, profile: "v1" });

function reversed<T>(xs: T[]): T[] {
  return [...xs].reverse();
}

test("byte-identical JSON for shuffled inputs, 2-space indent and a trailing newline", () => {
  const one = serializePlan(make());
  const shuffled = { ...desired, users: reversed(desired.users), groups: reversed(desired.groups) };
  const two = serializePlan(
    make(shuffled, { ...actual, idpUsers: reversed(actual.idpUsers), mappings: reversed(actual.mappings) }),
  );
  expect(two).toBe(one);
  expect(one.endsWith("}\n")).toBe(true);
  expect(one.split("\n")[1]).toBe('  "formatVersion": 2,');
});

test("a version-1 plan (written before bulk steps existed) is read as the version-2 plan it also is", () => {
  const p = make();
  const v1 = { ...(JSON.parse(serializePlan(p)) as Record<string, unknown>), formatVersion: 1 };
  expect(parsePlan(JSON.stringify(v1), "v1.json")).toEqual(p);
});

test("round trip: parsePlan(serializePlan(p)) equals p", () => {
  const p = make();
  expect(parsePlan(serializePlan(p), "plan.json")).toEqual(p);
  expect(isEmptyPlan(p)).toBe(false);
  expect(isEmptyPlan({ ...p, steps: [] })).toBe(true);
});

describe("parsePlan rejects", () => {
  const good = JSON.parse(serializePlan(make())) as Record<string, unknown>;
  const cases: Array<[string, string, RegExp]> = [
    ["not JSON", "{", /saved\/plan\.json is not a usable plan: not valid JSON/],
    [
      "another formatVersion",
      JSON.stringify({ ...good, formatVersion: 3 }),
      /formatVersion is 3, this usersync reads 1 and 2/,
    ],
    [
      "a bulk step without members",
      JSON.stringify({
        ...good,
        steps: [{ id: "x", kind: "addMembers", target: "g", status: "planned", dependsOn: [], touches: [] }],
      }),
      /steps\[0\]\.members must be a list of user ids/,
    ],
    [
      "a permission step without its changes",
      JSON.stringify({
        ...good,
        steps: [
          {
            id: "grantWorkspacePermissions:w",
            kind: "grantWorkspacePermissions",
            target: "w",
            status: "planned",
            dependsOn: [],
            touches: [],
            changes: [{ assignee: { type: "group", id: "g" }, before: {}, after: {} }],
          },
        ],
      }),
      /steps\[0\]\.changes must be a list of \{assignee/,
    ],
    ["steps missing", JSON.stringify({ ...good, steps: undefined }), /steps must be an array/],
    [
      "an unknown step kind",
      JSON.stringify({
        ...good,
        steps: [{ id: "x", kind: "dropTable", target: "t", status: "planned", dependsOn: [], touches: [] }],
      }),
      /steps\[0\]\.kind unknown step kind/,
    ],
    [
      "a dangling dependency",
      JSON.stringify({
        ...good,
        steps: [
          { id: "x", kind: "deleteMapping", target: "t", status: "planned", dependsOn: ["y"], touches: [] },
        ],
      }),
      /unknown step 'y'/,
    ],
  ];
  test.each(cases)("%s", (_name, text, message) => {
    let caught: unknown;
    try {
      parsePlan(text, "saved/plan.json");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InputError);
    expect((caught as InputError).message).toMatch(message);
    expect((caught as InputError).problems[0]?.file).toBe("saved/plan.json");
  });
});

describe("summary", () => {
  test("comes right after formatVersion and counts people, not steps", () => {
    const p = make();
    const json = JSON.parse(serializePlan(p)) as Record<string, unknown>;
    expect(Object.keys(json).slice(0, 2)).toEqual(["formatVersion", "summary"]);
    expect(json["summary"]).toEqual(summarizePlan(p));
    // b: new built-in user (credentials + mapping); a: credentials exist, mapping created;
    // c (state absent) and z (not in the file, mode full): credentials and mapping removed.
    expect(summarizePlan(p).people).toMatchObject({ add: 2, change: 0, revoke: 0, remove: 2 });
    expect(p.steps.filter((s) => !s.kind.endsWith("Group")).length).toBeGreaterThan(4);
    expect(summarizePlan(p).membership["g"]).toEqual({ add: 1, remove: 0 });
  });

  test("one plan is summarised once; another plan object (even an equal one) gets its own", () => {
    const p = make();
    expect(summarizePlan(p)).toBe(summarizePlan(p));
    const copy = { ...p, steps: p.steps.filter((s) => !s.kind.endsWith("Group")) };
    expect(summarizePlan(copy)).not.toBe(summarizePlan(p));
    expect(summarizePlan(copy).people).toEqual(summarizePlan(p).people);
  });

  test("a saved plan without a summary (written before it existed) is read back", () => {
    const p = make();
    const { summary: _summary, ...old } = JSON.parse(serializePlan(p)) as Record<string, unknown>;
    expect(parsePlan(JSON.stringify(old), "old.json")).toEqual(p);
  });

  test("a summary in the file is not trusted: the plan read back has none", () => {
    const json = JSON.parse(serializePlan(make())) as Record<string, unknown>;
    json["summary"] = { people: { add: 999 } };
    const read = parsePlan(JSON.stringify(json), "edited.json");
    expect(read).not.toHaveProperty("summary");
    expect(summarizePlan(read).people.add).toBe(2);
  });
});
