/**
 * Every answer the plan depends on is checked before it is believed (issue 20). Against the
 * emulator's broken answers over a real socket, each is retried like a 5xx (attempts counted in the
 * request log, waits captured) and ends in an AnswerError naming the request, what was wrong and
 * the start of the body. The rules themselves are table-tested on `checkAnswer`, without a socket.
 */
import { describe, expect, it } from "vitest";
import { AnswerError, NetworkError } from "../../src/errors.js";
import type { BrokenAnswerRule, EmulatorOptions, EmulatorSeed } from "../../src/emulator/types.js";
import { listActualState } from "../../src/service/index.js";
import {
  checkAnswer,
  GROUP_RESOURCE,
  IDP_LIST_ANSWER,
  oneAnswer,
  pageAnswer,
  PROFILE_ANSWER,
  sampleOf,
  USER_RESOURCE,
} from "../../src/service/answers.js";
import type { ClientOptions } from "../../src/service/index.js";
import type { ServiceClient } from "../../src/service/types.js";
import { TEST_TOKEN, withEmulatorClient } from "../helpers/env.js";

const RETRIES = 2;
const people = ["ann", "bob", "cy", "dee", "eve"];
const SEED: EmulatorSeed = {
  groups: [{ id: "g1", name: "G1" }, { id: "g2" }, { id: "g3", parents: ["g1"] }],
  idpUsers: people.map((p) => ({ email: `${p}@x.com`, displayName: p, authenticationId: `auth-${p}` })),
  mappings: people.map((p) => ({ id: p, authenticationId: `auth-${p}`, groups: ["g1"] })),
};

/** A v1 client (page size 2: the 6 mappings with the token owner are 3 pages) and its emulator, broken as asked. */
async function broken(
  rules: BrokenAnswerRule[],
  client: Partial<ClientOptions> = {},
  emulator: EmulatorOptions = {},
) {
  const sleeps: number[] = [];
  const env = await withEmulatorClient({
    emulator: { seed: SEED, ...emulator },
    client: {
      profile: "v1",
      retries: RETRIES,
      pageSize: 2,
      sleep: async (ms) => void sleeps.push(ms),
      ...client,
    },
  });
  env.emulator.setFaults({ brokenAnswers: rules });
  env.emulator.resetLog();
  return { ...env, sleeps };
}

const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => expect.unreachable("the call succeeded"),
    (e: unknown) => e,
  );

describe("a broken answer is retried like a 5xx, then refused", () => {
  it.each([
    {
      name: "the IdP list answered with a sign-in page",
      rule: { mode: "html", pathPattern: /\/auth\/users$/ },
      call: (c: ServiceClient) => c.listIdpUsers(),
      request:
        "GET /api/v1/auth/users answered 200, but the body is not JSON (Content-Type text/html; charset=utf-8)",
      sample: "<!doctype html>",
    },
    {
      name: "the IdP list as {data: null}",
      rule: { mode: "dataNull", pathPattern: /\/auth\/users$/ },
      call: (c: ServiceClient) => c.listIdpUsers(),
      request:
        "GET /api/v1/auth/users answered 200, but the answer has the wrong shape: (the whole answer): ",
      sample: '{"data":null}',
    },
    {
      name: "a mapping page as {data: null}",
      rule: { mode: "dataNull", pathPattern: /\/entities\/users$/ },
      call: (c: ServiceClient) => c.listMappings(),
      request:
        "answered 200, but the answer has the wrong shape: data: Invalid input: expected array, received null",
      sample: '{"data":null,',
    },
    {
      name: "a group page cut in half",
      rule: { mode: "truncated", pathPattern: /\/entities\/userGroups$/ },
      call: (c: ServiceClient) => c.listGroups(),
      request:
        "GET /api/v1/entities/userGroups?page=0&size=2&include=parents&metaInclude=page&sort=id answered 200, but the body is not valid JSON",
      sample: '{"data":[{"id":"g1"',
    },
    {
      name: "the profile as a sign-in page",
      rule: { mode: "html", pathPattern: /\/profile$/ },
      call: (c: ServiceClient) => c.getProfile(),
      request: "GET /api/v1/profile answered 200, but the body is not JSON",
      sample: "<!doctype html> <html",
    },
    {
      name: "the profile without a userId",
      rule: { mode: "dataNull", pathPattern: /\/profile$/ },
      call: (c: ServiceClient) => c.getProfile(),
      request: "GET /api/v1/profile answered 200, but the answer has the wrong shape: userId: ",
      sample: '{"data":null}',
    },
    {
      name: "the read-back of one IdP user",
      rule: { mode: "html", pathPattern: /\/auth\/users\/.+/ },
      call: (c: ServiceClient) => c.getIdpUser("ann@x.com"),
      request: "GET /api/v1/auth/users/ann%40x.com answered 200",
      sample: "<!doctype html>",
    },
    {
      name: "the read-back of one mapping",
      rule: { mode: "dataNull", pathPattern: /\/entities\/users\/.+/ },
      call: (c: ServiceClient) => c.getMapping("ann"),
      request:
        "GET /api/v1/entities/users/ann?include=userGroups answered 200, but the answer has the wrong shape: data: ",
      sample: '{"data":null',
    },
    {
      name: "the read-back of one group",
      rule: { mode: "truncated", pathPattern: /\/entities\/userGroups\/.+/ },
      call: (c: ServiceClient) => c.getGroup("g1"),
      request:
        "GET /api/v1/entities/userGroups/g1?include=parents answered 200, but the body is not valid JSON",
      sample: '{"data":{"id":"g1"',
    },
    {
      name: "a group's members, read back after a bulk move",
      rule: { mode: "dataNull", pathPattern: /\/members$/ },
      call: (c: ServiceClient) => c.getGroupMembers("g1"),
      request:
        "GET /api/v1/actions/userManagement/userGroups/g1/members answered 200, but the answer has the wrong shape: members: ",
      sample: '{"data":null}',
    },
  ] as const)("$name", async ({ rule, call, request, sample }) => {
    const env = await broken([rule]);
    try {
      const err = await failure(call(env.client));
      expect(err).toBeInstanceOf(AnswerError);
      const message = (err as AnswerError).message;
      expect(message).toContain(request);
      expect(message).toContain(`the body began: "${sample.replace(/"/g, '\\"')}`);
      expect(message).not.toContain(TEST_TOKEN);
      const answered = env.emulator.requestLog().filter((e) => e.fault === rule.mode);
      expect(answered).toHaveLength(RETRIES + 1);
      expect(env.sleeps).toEqual([150, 300]); // backoff, with the test jitter of 0.5
    } finally {
      await env.close();
    }
  });

  it("a transient sign-in page is retried past: the next answer is believed", async () => {
    const env = await broken([{ mode: "html", pathPattern: /\/auth\/users$/ }], {
      sleep: async () => env.emulator.setFaults({}),
    });
    try {
      expect((await env.client.listIdpUsers()).map((u) => u.email)).toEqual(people.map((p) => `${p}@x.com`));
      expect(env.emulator.requestLog().map((e) => e.fault)).toEqual(["html", undefined]);
    } finally {
      await env.close();
    }
  });

  it("a create whose answer is a sign-in page is retried; the duplicate is read back, so nothing is made twice", async () => {
    const env = await broken([{ mode: "html", methods: ["POST"], pathPattern: /\/auth\/users$/ }]);
    try {
      const res = await env.client.createIdpUser({ email: "new@x.com", displayName: "New" });
      expect(res).toEqual({ status: "exists" });
      expect(env.emulator.requestLog().map((e) => [e.method, e.status, e.fault])).toEqual([
        ["POST", 200, "html"],
        ["POST", 409, undefined],
      ]);
      expect(env.emulator.state().idpUsers.filter((u) => u.email === "new@x.com")).toHaveLength(1);
    } finally {
      await env.close();
    }
  });
});

describe("a listing is accepted only when it is provably whole", () => {
  it.each([
    { mode: "repeatPage", problem: "page=1 answered as page 0" },
    {
      mode: "emptyPage",
      problem:
        "page=1 has 0 items, expected 2 (a page before the last must be full; 6 items in 3 pages of 2)",
    },
  ] as const)("$mode: read again, whole, twice, then refused", async ({ mode, problem }) => {
    const env = await broken([{ mode, pathPattern: /\/entities\/users$/ }]);
    try {
      const err = await failure(env.client.listMappings());
      expect(err).toBeInstanceOf(AnswerError);
      expect((err as AnswerError).message).toBe(
        `GET /api/v1/entities/users: the pages do not add up: ${problem}; read 3 times, the listing never added up, so it cannot be proven whole`,
      );
      // 3 pages, each read 3 times; waits between the reads as between retries.
      expect(env.emulator.requestLog()).toHaveLength(9);
      expect(env.sleeps).toEqual([150, 300]); // backoff, with the test jitter of 0.5
    } finally {
      await env.close();
    }
  });

  it("a listing that adds up when read again is believed (a change made while it was listed)", async () => {
    const env = await broken([{ mode: "repeatPage", pathPattern: /\/entities\/users$/ }], {
      sleep: async () => env.emulator.setFaults({}),
    });
    try {
      expect((await env.client.listMappings()).map((m) => m.id)).toEqual(["admin", ...people]);
      expect(env.emulator.requestLog()).toHaveLength(6);
    } finally {
      await env.close();
    }
  });
});

describe("the whole answer has a deadline and a size cap", () => {
  it("a body trickling in a byte at a time is cut off at target.timeouts.responseMs, retried, then fails", async () => {
    const env = await broken([{ mode: "trickle", intervalMs: 50, pathPattern: /\/profile$/ }], {
      retries: 1,
      timeouts: { responseMs: 300 },
    });
    try {
      const err = await failure(env.client.getProfile());
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).causeCode).toBe("UND_ERR_BODY_TIMEOUT");
      expect((err as NetworkError).message).toBe(
        "GET /api/v1/profile failed: the whole answer did not arrive within 300 ms (target.timeouts.responseMs) (UND_ERR_BODY_TIMEOUT)",
      );
      expect(env.client.stats().requests).toBe(2);
    } finally {
      await env.close();
    }
  });

  it("a body past target.maxResponseBytes is not read further: refused while streaming, or at once by its Content-Length", async () => {
    const env = await broken(
      [{ mode: "oversize", bytes: 3_000_000, pathPattern: /\/entities\/userGroups$/ }],
      {
        maxResponseBytes: 1_000_000,
      },
    );
    try {
      const streamed = await failure(env.client.listGroups());
      expect(streamed).toBeInstanceOf(AnswerError);
      expect((streamed as AnswerError).message).toMatch(
        /^GET \/api\/v1\/entities\/userGroups\?\S+ answered 200, but the body is larger than target.maxResponseBytes \(1000000 bytes\); it was not read further$/,
      );
      expect(env.emulator.requestLog().filter((e) => e.fault === "oversize")).toHaveLength(RETRIES + 1);
    } finally {
      await env.close();
    }
    const small = await broken([], { maxResponseBytes: 100 });
    try {
      const declared = await failure(small.client.listIdpUsers());
      expect((declared as AnswerError).message).toMatch(
        /^GET \/api\/v1\/auth\/users answered 200, but the body is \d+ bytes, more than target.maxResponseBytes \(100 bytes\); it was not read$/,
      );
    } finally {
      await small.close();
    }
  });
});

describe("the caller must be known (profile v1)", () => {
  it("a token owner that no listed mapping matches stops listActualState", async () => {
    const env = await broken([], {}, { mapTokenOwners: false });
    try {
      const err = await failure(listActualState(env.client));
      expect(err).toBeInstanceOf(AnswerError);
      expect((err as AnswerError).message).toMatch(
        /^GET \/api\/v1\/entities\/users: the token's owner "admin" \(\/api\/v1\/profile\) is not among the 5 mappings listed: /,
      );
    } finally {
      await env.close();
    }
  });

  it("the listed owner is the caller the planner protects; legacy has no profile and no caller", async () => {
    const v1 = await broken([]);
    try {
      expect((await listActualState(v1.client)).callerId).toBe("admin");
    } finally {
      await v1.close();
    }
    const legacy = await broken([], { profile: "legacy" }, { mapTokenOwners: false });
    try {
      const actual = await listActualState(legacy.client);
      expect(actual.callerId).toBeUndefined();
      expect(actual.mappings).toHaveLength(5);
    } finally {
      await legacy.close();
    }
  });
});

describe("checkAnswer", () => {
  const answer = (text: string, contentType: string | undefined) => ({
    method: "GET",
    path: "/p",
    status: 200,
    contentType,
    text,
    secrets: ["s3cret-token"],
  });
  const problem = (text: string, schema: Parameters<typeof checkAnswer>[1], contentType?: string): string => {
    try {
      checkAnswer(answer(text, contentType), schema);
    } catch (err) {
      return (err as AnswerError).problem;
    }
    return "accepted";
  };

  it.each([
    { text: "", schema: PROFILE_ANSWER, problem: "the body is empty where a JSON answer was expected" },
    {
      text: '{"userId":"a"}',
      schema: PROFILE_ANSWER,
      type: "text/plain",
      problem: "the body is not JSON (Content-Type text/plain)",
    },
    {
      text: '{"userId":"a"}',
      schema: PROFILE_ANSWER,
      type: null,
      problem: "the body is not JSON (Content-Type missing)",
    },
    {
      text: '{"organizationId":"o"}',
      schema: PROFILE_ANSWER,
      problem: "the answer has the wrong shape: userId: Invalid input: expected string, received undefined",
    },
    {
      text: '{"userId":""}',
      schema: PROFILE_ANSWER,
      problem: "the answer has the wrong shape: userId: must be a non-empty string",
    },
    {
      text: '[{"email":"a@x","displayName":"A"}]',
      schema: IDP_LIST_ANSWER,
      problem:
        "the answer has the wrong shape: [0].authenticationId: Invalid input: expected string, received undefined",
    },
    {
      text: '[{"email":"a@x","displayName":"A","authenticationId":"1"},{"email":"A@X","displayName":"B","authenticationId":"2"}]',
      schema: IDP_LIST_ANSWER,
      problem: "the answer has the wrong shape: [1].email: A@X is listed twice",
    },
    {
      text: '{"data":[{"id":"u","type":"userGroup"}]}',
      schema: pageAnswer(USER_RESOURCE),
      problem: 'the answer has the wrong shape: data[0].type: must be "user"',
    },
    {
      text: '{"data":[{"type":"user"}]}',
      schema: pageAnswer(USER_RESOURCE),
      problem:
        "the answer has the wrong shape: data[0].id: Invalid input: expected string, received undefined",
    },
    {
      text: '{"data":[{"id":"u","type":"user","attributes":{"email":7}}]}',
      schema: pageAnswer(USER_RESOURCE),
      problem:
        "the answer has the wrong shape: data[0].attributes.email: Invalid input: expected string, received number",
    },
    {
      text: '{"data":{"id":"g","type":"userGroup","relationships":{"parents":{"data":"g0"}}}}',
      schema: oneAnswer(GROUP_RESOURCE),
      problem: "the answer has the wrong shape: data.relationships.parents.data: Invalid input",
    },
    {
      text: '{"data":[],"meta":{"page":{"totalElements":-1}}}',
      schema: pageAnswer(USER_RESOURCE),
      problem:
        "the answer has the wrong shape: meta.page.totalElements: Too small: expected number to be >=0",
    },
    {
      text: '{"data":[{"id":"u","type":"user","attributes":{"email":null},"extra":1}]}',
      schema: pageAnswer(USER_RESOURCE),
      problem: "accepted",
    },
    {
      text: '{"userId":"a"}',
      schema: PROFILE_ANSWER,
      type: "application/json; charset=utf-8",
      problem: "accepted",
    },
    { text: '{"userId":"a"}', schema: PROFILE_ANSWER, type: "application/problem+json", problem: "accepted" },
  ])("$problem ($text)", ({ text, schema, type, problem: expected }) => {
    expect(
      problem(
        text,
        schema as Parameters<typeof checkAnswer>[1],
        type === null ? undefined : (type ?? "application/json"),
      ),
    ).toBe(expected);
  });

  it("a sample is one short line without secrets, even one cut at the sample's end", () => {
    const body = `<html>\n  <p>${"x".repeat(110)} s3cret-token and more</p>\n</html>`;
    const sample = sampleOf(body, ["s3cret-token"]);
    expect(sample).not.toContain("s3cret");
    expect(sample).not.toContain("\n");
    expect(sample.length).toBeLessThanOrEqual(121);
    expect(sample.endsWith("…")).toBe(true);
  });
});
