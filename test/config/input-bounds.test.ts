/**
 * Config input that would switch a guard off or smuggle something in without a word: a
 * percentage over 100% or a negative count for policy.maxDeletes (and the same for
 * source.minUsers), in the file and in the environment; control characters from escapes; an
 * invisible character in a protect or scope entry; tags outside the core schema; deep nesting.
 * Each is a ConfigError (exit 4) naming where the value came from.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { loadConfig, toPolicy } from "../../src/config/index.js";
import { ConfigError, exitCodeFor, formatProblem } from "../../src/errors.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-config-bounds-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function problems(text: string | undefined, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  if (text !== undefined) await writeFile(join(dir, "usersync.yaml"), text);
  const err = await loadConfig({ cwd: dir, env }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  expect(exitCodeFor(err)).toBe(4);
  return (err as ConfigError).problems.map((p) => formatProblem(p).replace(dir, "<dir>"));
}

const OVER = (v: string) =>
  `"${v}" is more than 100% of the managed users: write at most "100%", or a count [config-schema]`;

describe("policy.maxDeletes and source.minUsers stay within 0..100% and whole counts", () => {
  test.each([
    ["150%", OVER("150%")],
    ["100.5%", OVER("100.5%")],
    ["-5%", 'must be a count (e.g. 25) or a percentage of managed users (e.g. "10%") [config-schema]'],
    ["-1", 'must be a whole number of users, 0 or more (or a percentage such as "10%") [config-schema]'],
    ["2.5", 'must be a whole number of users, 0 or more (or a percentage such as "10%") [config-schema]'],
  ])("maxDeletes: %s in the file is refused at its line", async (value, message) => {
    const raw = /^-?[\d.]+$/.test(value) ? value : `"${value}"`;
    expect(await problems(`policy:\n  mode: full\n  maxDeletes: ${raw}\n`)).toEqual([
      `<dir>/usersync.yaml:3: policy.maxDeletes: ${message}`,
    ]);
  });

  test("maxDeletes from the environment: over 100% and negative are refused", async () => {
    expect(await problems(undefined, { USERSYNC_POLICY_MAX_DELETES: "150%" })).toEqual([
      `env USERSYNC_POLICY_MAX_DELETES: policy.maxDeletes: ${OVER("150%")}`,
    ]);
    expect(await problems(undefined, { USERSYNC_POLICY_MAX_DELETES: "-5" })).toEqual([
      'env USERSYNC_POLICY_MAX_DELETES: policy.maxDeletes: "-5" is not a count (25) or a percentage ("10%") [bad-env]',
    ]);
  });

  test("the environment's value is checked even when the file's is fine (the layer that wins is named)", async () => {
    expect(await problems("policy:\n  maxDeletes: 5%\n", { USERSYNC_POLICY_MAX_DELETES: "1000%" })).toEqual([
      `env USERSYNC_POLICY_MAX_DELETES: policy.maxDeletes: ${OVER("1000%")}`,
    ]);
  });

  test("the bounds themselves are accepted: 0, 0%, 100%, 12.5%", async () => {
    for (const [value, policy] of [
      ["0", { count: 0 }],
      ['"0%"', { percent: 0 }],
      ['"100%"', { percent: 100 }],
      ['"12.5%"', { percent: 12.5 }],
    ] as const) {
      await writeFile(join(dir, "usersync.yaml"), `policy:\n  maxDeletes: ${value}\n`);
      expect(toPolicy(await loadConfig({ cwd: dir, env: {} })).maxDeletes).toEqual(policy);
    }
  });

  test("minUsers: over 100% and 0% (a guard switched off) are refused, in the file and the environment", async () => {
    expect(await problems('source:\n  minUsers: "150%"\n')).toEqual([
      `<dir>/usersync.yaml:2: source.minUsers: ${OVER("150%")}`,
    ]);
    expect(await problems(undefined, { USERSYNC_SOURCE_MIN_USERS: "0%" })).toEqual([
      'env USERSYNC_SOURCE_MIN_USERS: source.minUsers: "0%" would turn this guard off: write more than "0%", or remove source.minUsers if you mean no minimum [config-schema]',
    ]);
    expect(await problems("source:\n  minUsers: 0\n")).toEqual([
      '<dir>/usersync.yaml:2: source.minUsers: must be a whole number of users, 1 or more (or a percentage such as "10%") [config-schema]',
    ]);
    await writeFile(join(dir, "usersync.yaml"), 'source:\n  minUsers: "100%"\n');
    expect((await loadConfig({ cwd: dir, env: {} })).source.minUsers).toBe("100%");
  });
});

describe("characters in config values", () => {
  const HINT =
    'remove it (in YAML an escape such as "\\0" or "\\x1b" in a quoted value writes one) [control-character]';

  test("a control character from an escape, or in a variable, is refused where it came from", async () => {
    expect(
      await problems(
        'target:\n  baseUrl: "https://a.example.com\\0"\nsource:\n  ldap:\n    url: ldap://x\n    baseDn: "dc=x\\x1b"\n',
        {
          USERSYNC_OUTPUT_METRICS_PUSH_JOB: "job\u0007",
        },
      ),
    ).toEqual([
      `<dir>/usersync.yaml:2: target.baseUrl: "https://a.example.com<U+0000>" holds the control character U+0000 (NUL): ${HINT}`,
      `<dir>/usersync.yaml:6: source.ldap.baseDn: "dc=x<U+001B>" holds the control character U+001B (escape): ${HINT}`,
      `env USERSYNC_OUTPUT_METRICS_PUSH_JOB: output.metricsPushJob: "job<U+0007>" holds the control character U+0007: ${HINT}`,
    ]);
  });

  test("an invisible character in a protect or scope entry is refused: it would protect or match nobody", async () => {
    expect(
      await problems(
        'policy:\n  protect: [ceo@example.com, "cfo\\u200B@example.com"]\n  scope:\n    emailDomains: ["example.com\\u202E"]\n',
      ),
    ).toEqual([
      '<dir>/usersync.yaml:2: policy.protect[1]: "cfo<U+200B>@example.com" holds U+200B (zero width space), which cannot be seen or changes the direction of text: a login or key with it looks like another one and is not; type the value again [invisible-character]',
      '<dir>/usersync.yaml:4: policy.scope.emailDomains[0]: "example.com<U+202E>" holds U+202E (right-to-left override), which cannot be seen or changes the direction of text: a login or key with it looks like another one and is not; type the value again [invisible-character]',
    ]);
  });

  test("a multi-line value (a folded LDAP filter) keeps its line breaks", async () => {
    await writeFile(
      join(dir, "usersync.yaml"),
      "source:\n  type: ldap\n  ldap:\n    url: ldap://x\n    baseDn: dc=x\n    userFilter: |\n      (objectClass=person)\n",
    );
    expect((await loadConfig({ cwd: dir, env: {} })).source.ldap?.userFilter).toBe("(objectClass=person)\n");
  });
});

describe("YAML rules in the config file", () => {
  test("a tag is refused with its line, not ignored", async () => {
    expect(await problems("policy:\n  maxDeletes: !!js/function 5\n  mode: !custom full\n")).toEqual([
      "<dir>/usersync.yaml:2: the tag !!js/function is not allowed: usersync reads plain YAML (text, numbers, true/false, null, lists and mappings); remove the tag [yaml-tag]",
      "<dir>/usersync.yaml:3: the tag !custom is not allowed: usersync reads plain YAML (text, numbers, true/false, null, lists and mappings); remove the tag [yaml-tag]",
    ]);
  });

  test("20,000 nested [ is a clear problem, not a stack overflow", async () => {
    expect(await problems(`policy:\n  protect: ${"[".repeat(20_000)}\n`)).toEqual([
      "<dir>/usersync.yaml:2: nested too deeply: lists and mappings more than 100 levels inside each other; no usersync file needs more than a few (an unclosed [ or {?) [yaml-too-deep]",
    ]);
  });
});
