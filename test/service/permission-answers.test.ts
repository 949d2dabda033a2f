/**
 * The permission answers follow issue 20's rule: each is checked before it is believed, and the
 * userManagement listing is accepted only when its pages add up. Against the emulator's broken
 * answers over a real socket, every permission listing the plan reads ends in an AnswerError (after
 * the retries) instead of a shorter or emptier set of grants, and nothing is written.
 */
import { describe, expect, it } from "vitest";
import { AnswerError } from "../../src/errors.js";
import type { BrokenAnswerRule, EmulatorSeed } from "../../src/emulator/types.js";
import { listActualState, type PermissionListing } from "../../src/service/index.js";
import { checkAnswer } from "../../src/service/answers.js";
import { WORKSPACE_LAYOUT_ANSWER } from "../../src/service/permission-answers.js";
import { withEmulatorClient } from "../helpers/env.js";

const groups = ["a", "b", "c", "d", "e"];
const seed: EmulatorSeed = {
  groups: groups.map((id) => ({ id })),
  mappings: [{ id: "jane", groups: ["a"] }],
  workspaces: [
    { id: "root", permissions: groups.map((g) => ({ userGroup: g, permissions: ["VIEW"] })) },
    { id: "sales", parent: "root", permissions: [{ user: "jane", permissions: ["EXPORT"] }] },
  ],
  organizationPermissions: [{ userGroup: "a", permissions: ["SELF_CREATE_TOKEN"] }],
};

/** Page size 2: the five groups are three pages of the userManagement listing. */
const listing: PermissionListing = { inScope: () => true, users: ["jane"], organization: true, pageSize: 2 };

async function listBroken(rule: BrokenAnswerRule) {
  const env = await withEmulatorClient({
    emulator: { seed },
    client: { profile: "v1", pageSize: 2, retries: 1, sleep: async () => {} },
  });
  try {
    env.emulator.setFaults({ brokenAnswers: [rule] });
    const error = await listActualState(env.client, { permissions: listing }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const writes = env.emulator.requestLog().filter((e) => e.method !== "GET");
    return { error, writes };
  } finally {
    await env.close();
  }
}

describe("broken permission answers are refused, never read as fewer grants", () => {
  it.each<[string, BrokenAnswerRule, RegExp]>([
    [
      "the workspace listing as a sign-in page",
      { mode: "html", pathPattern: /entities\/workspaces/ },
      /not JSON/,
    ],
    [
      "the workspace listing with data: null",
      { mode: "dataNull", pathPattern: /entities\/workspaces/ },
      /data: /,
    ],
    [
      "a workspace layout truncated",
      { mode: "truncated", pathPattern: /layout\/workspaces/ },
      /not valid JSON/,
    ],
    ["a workspace layout as HTML", { mode: "html", pathPattern: /layout\/workspaces/ }, /not JSON/],
    [
      "the organization layout as { data: null }",
      { mode: "dataNull", pathPattern: /layout\/organization/ },
      /wrong shape/,
    ],
  ])("%s", async (_name, rule, problem) => {
    const { error, writes } = await listBroken(rule);
    expect(error).toBeInstanceOf(AnswerError);
    expect((error as AnswerError).message).toMatch(problem);
    expect(writes).toEqual([]);
  });

  it.each<[string, BrokenAnswerRule, RegExp]>([
    [
      "every page repeats page 0",
      { mode: "repeatPage", pathPattern: /userManagement\/userGroups/ },
      /listed twice|needs/,
    ],
    [
      "the middle page is empty",
      { mode: "emptyPage", pathPattern: /userManagement\/userGroups/ },
      /has 0 items where totalCount 5 needs 2/,
    ],
  ])("the group listing: %s", async (_name, rule, problem) => {
    const env = await withEmulatorClient({
      emulator: { seed },
      client: { profile: "v1", pageSize: 2, retries: 0, sleep: async () => {} },
    });
    try {
      env.emulator.setFaults({ brokenAnswers: [rule] });
      const error = await env.client.permissions.listAssigneePermissions("userGroup").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AnswerError);
      expect((error as AnswerError).message).toMatch(/the pages do not add up/);
      expect((error as AnswerError).message).toMatch(problem);
      // Read whole three times (the first read and two rereads), three pages each.
      const pages = env.emulator.requestLog().filter((e) => e.url.includes("userManagement/userGroups"));
      expect(pages.length).toBe(9);
    } finally {
      await env.close();
    }
  });

  it("a user's grants answered as HTML (read per user when listing by assignee)", async () => {
    const env = await withEmulatorClient({
      emulator: { seed },
      client: { profile: "v1", pageSize: 2, retries: 1, sleep: async () => {} },
    });
    try {
      env.emulator.setFaults({
        brokenAnswers: [{ mode: "html", pathPattern: /userManagement\/users\/jane/ }],
      });
      const error = await env.client.permissions.getUserPermissions("jane").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AnswerError);
      expect((error as AnswerError).message).toMatch(/permissions answered 200, but the body is not JSON/);
      // Tried twice (one retry), like a 5xx.
      expect(env.emulator.requestLog().filter((e) => e.url.includes("/users/jane")).length).toBe(2);
    } finally {
      await env.close();
    }
  });

  it("a grant naming a permission the spec does not know is a broken answer, not one to drop", () => {
    // A service newer than this usersync: dropping the name would make a managePermissions (which
    // sets absolute values) remove it.
    const text = JSON.stringify({
      permissions: [{ assignee: { id: "a", type: "userGroup" }, name: "TELEPORT" }],
    });
    const answer = {
      method: "GET",
      path: "/p",
      status: 200,
      contentType: "application/json",
      text,
      secrets: [],
    };
    expect(() => checkAnswer(answer, WORKSPACE_LAYOUT_ANSWER)).toThrow(
      /permissions\[0\]\.name: must be one of MANAGE, .*upgrade it/,
    );
  });
});
