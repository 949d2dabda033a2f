import { describe, expect, it } from "vitest";
import { describeError } from "../../src/cli/main.js";
import { AnswerError, ConfigError, HttpError, NetworkError } from "../../src/errors.js";
import { fatalJsonLine } from "../../src/cli/main.js";

describe("describeError for network failures", () => {
  it("a failure that was retried says so and points at target.baseUrl", () => {
    const err = new NetworkError({
      method: "GET",
      path: "/api/v1/profile",
      causeCode: "ECONNREFUSED",
      message: "connect ECONNREFUSED 127.0.0.1:9",
    });
    expect(describeError(err)).toBe(
      "usersync: GET /api/v1/profile failed: connect ECONNREFUSED 127.0.0.1:9 (ECONNREFUSED), after every retry. Check target.baseUrl and that the service is reachable from here.\n",
    );
  });

  it("a failure that is never retried (an unknown host) does not claim retries", () => {
    const err = new NetworkError({
      method: "GET",
      path: "/api/v1/profile",
      causeCode: "ENOTFOUND",
      message: "getaddrinfo ENOTFOUND nohost.invalid",
    });
    expect(describeError(err)).toBe(
      "usersync: GET /api/v1/profile failed: getaddrinfo ENOTFOUND nohost.invalid (ENOTFOUND). Check target.baseUrl and that the service is reachable from here.\n",
    );
  });
});

describe("describeError for answers the service gave", () => {
  it("a status the policy retries (503) says it was retried; one it never retries (404) does not", () => {
    const unavailable = new HttpError({ method: "GET", path: "/api/v1/entities/users", status: 503 });
    expect(describeError(unavailable)).toBe(
      "usersync: GET /api/v1/entities/users answered 503, after every retry.\n",
    );
    const missing = new HttpError({
      method: "GET",
      path: "/api/v1/entities/users/x",
      status: 404,
      detail: "gone",
    });
    expect(describeError(missing)).toBe("usersync: GET /api/v1/entities/users/x answered 404: gone.\n");
  });
});

describe("describeError for answers that cannot be believed", () => {
  const hint =
    'usersync stopped before any change. Check that target.baseUrl is the service itself (not a sign-in page, a proxy or a load balancer\'s error page), then run again (docs/configuration.md, "Answers usersync refuses").\n';

  it("one broken answer names the request, what was wrong and the body's start, and was retried", () => {
    const err = new AnswerError({
      method: "GET",
      path: "/api/v1/profile",
      status: 200,
      problem: "the body is not JSON (Content-Type text/html)",
      sample: "<html>Please log in</html>",
    });
    expect(describeError(err)).toBe(
      'usersync: GET /api/v1/profile answered 200, but the body is not JSON (Content-Type text/html); the body began: "<html>Please log in</html>", after every retry.\n' +
        hint,
    );
    const line = JSON.parse(fatalJsonLine(err, 1)) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 60, code: "BAD_ANSWER", exitCode: 1 });
    expect(line["msg"]).toEqual(
      expect.stringMatching(/^GET \/api\/v1\/profile answered 200, but the body is not JSON/),
    );
  });

  it("a listing that never added up says how often it was read, not that it was retried", () => {
    const err = new AnswerError({
      method: "GET",
      path: "/api/v1/entities/users",
      problem: "the pages do not add up: page=1 has 0 items, expected 500; read 3 times, …",
    });
    expect(describeError(err)).toBe(
      "usersync: GET /api/v1/entities/users: the pages do not add up: page=1 has 0 items, expected 500; read 3 times, ….\n" +
        hint,
    );
  });
});

describe("describeError for configuration problems", () => {
  it("lists each problem once under the summary", () => {
    const problem = {
      file: "/etc/u.yaml",
      line: 2,
      field: "policy.mdoe",
      rule: "unknown-key",
      message: "unknown key",
    };
    const err = new ConfigError({
      message: "invalid configuration (1 problem):\n  /etc/u.yaml:2: policy.mdoe: unknown key [unknown-key]",
      problems: [problem],
    });
    expect(describeError(err)).toBe(
      "usersync: invalid configuration (1 problem):\n  /etc/u.yaml:2: policy.mdoe: unknown key [unknown-key]\n",
    );
  });
});
