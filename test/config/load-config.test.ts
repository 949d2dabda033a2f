import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { loadConfig, toPolicy } from "../../src/config/index.js";
import { ConfigError, formatProblem } from "../../src/errors.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-config-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function configFile(text: string, name = "usersync.yaml"): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

async function problemsOf(promise: Promise<unknown>): Promise<string[]> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return (err as ConfigError).problems.map((p) => formatProblem(p).replace(dir, "<dir>"));
}

describe("loadConfig", () => {
  test("no file at all gives the documented defaults and no base URL", async () => {
    const c = await loadConfig({ env: {}, cwd: dir });
    expect(c.configFile).toBeUndefined();
    expect(c.target).toEqual({
      apiProfile: "auto",
      tokenEnv: "USERSYNC_TOKEN",
      timeouts: { connectMs: 10000, headersMs: 30000, bodyMs: 30000, responseMs: 120000 },
      maxResponseBytes: 268435456,
      allowInsecureHttp: false,
    });
    expect(c.execution).toEqual({
      concurrency: 16,
      requestsPerSecond: 50,
      retries: 5,
      pageSize: 500,
      circuitBreaker: 20,
    });
    expect(c.policy.maxDeletes).toBe("10%");
    expect(c.identity).toEqual({ default: "builtin", passwords: "generate" });
    expect(c.logging).toEqual({ level: "info", format: "auto" });
    expect(c.token).toBeUndefined();
  });

  test("usersync.yaml in cwd is read by default; relative paths resolve against its folder", async () => {
    await configFile(
      "target:\n  baseUrl: https://a.example.com\nsource:\n  desired: users.csv\noutput:\n  report: out/report.json\n",
    );
    const c = await loadConfig({ env: {}, cwd: dir });
    expect(c.configFile).toBe(join(dir, "usersync.yaml"));
    expect(c.target.baseUrl).toBe("https://a.example.com");
    expect(c.source.desired).toBe(join(dir, "users.csv"));
    expect(c.output.report).toBe(join(dir, "out/report.json"));
  });

  test("a config file elsewhere resolves paths against its own folder, flags against cwd", async () => {
    const file = await configFile("source:\n  desired: users.yaml\n  groups: groups.csv\n", "conf.yaml");
    const c = await loadConfig({ file, env: {}, cwd: "/somewhere", overrides: { desired: "other.csv" } });
    expect(c.source.desired).toBe("/somewhere/other.csv");
    expect(c.source.groups).toBe(join(dir, "groups.csv"));
  });

  test("precedence: flags > env > file > defaults", async () => {
    await configFile(
      "target:\n  baseUrl: https://file.example.com\nexecution:\n  concurrency: 4\n  retries: 2\nlogging:\n  level: warn\n",
    );
    const env = { USERSYNC_TARGET_BASE_URL: "https://env.example.com", USERSYNC_EXECUTION_CONCURRENCY: "8" };
    const c = await loadConfig({ env, cwd: dir, overrides: { baseUrl: "https://flag.example.com" } });
    expect(c.target.baseUrl).toBe("https://flag.example.com");
    expect(c.execution.concurrency).toBe(8);
    expect(c.execution.retries).toBe(2);
    expect(c.logging.level).toBe("warn");
    expect(c.execution.pageSize).toBe(500);
  });

  test("environment overrides are typed: numbers, booleans, lists, count or percentage", async () => {
    const c = await loadConfig({
      cwd: dir,
      env: {
        USERSYNC_POLICY_MAX_DELETES: "25",
        USERSYNC_TARGET_ALLOW_INSECURE_HTTP: "true",
        USERSYNC_POLICY_SCOPE_EMAIL_DOMAINS: "Example.com, @corp.example",
        USERSYNC_POLICY_GROUPS_PRUNE: "yes",
        USERSYNC_TARGET_TIMEOUTS_CONNECT_MS: "500",
        USERSYNC_EXECUTION_REQUESTS_PER_SECOND: "2.5",
      },
    });
    expect(c.policy.maxDeletes).toBe(25);
    expect(c.target.allowInsecureHttp).toBe(true);
    expect(c.policy.scope.emailDomains).toEqual(["Example.com", "@corp.example"]);
    expect(c.policy.groups.prune).toBe(true);
    expect(c.target.timeouts.connectMs).toBe(500);
    expect(c.execution.requestsPerSecond).toBe(2.5);
    expect(toPolicy(c).scope.emailDomains).toEqual(["example.com", "corp.example"]);
    expect(toPolicy(c).maxDeletes).toEqual({ count: 25 });
  });

  test("USERSYNC_CONFIG names the config file when --config does not; a missing one is an error", async () => {
    const file = await configFile("policy:\n  mode: full\n", "from-env.yaml");
    const c = await loadConfig({ cwd: "/", env: { USERSYNC_CONFIG: file } });
    expect(c.configFile).toBe(file);
    expect(c.policy.mode).toBe("full");
    const flag = await configFile("policy:\n  mode: incremental\n", "from-flag.yaml");
    expect((await loadConfig({ cwd: dir, file: flag, env: { USERSYNC_CONFIG: file } })).configFile).toBe(
      flag,
    );
    const missing = await problemsOf(loadConfig({ cwd: dir, env: { USERSYNC_CONFIG: "nope.yaml" } }));
    expect(missing.join("\n")).toContain("file-not-found");
  });

  test("a __proto__ key is an unknown key, and what it holds does not take effect", async () => {
    await configFile("policy:\n  __proto__:\n    mode: full\n");
    const problems = await problemsOf(loadConfig({ cwd: dir, env: {} }));
    expect(problems).toEqual([
      "<dir>/usersync.yaml:2: policy.__proto__: unknown key; see config.example.yaml for the keys of policy [unknown-key]",
    ]);
  });

  test("an empty list variable is refused, so it never empties policy.protect or widens policy.scope", async () => {
    const problems = await problemsOf(
      loadConfig({
        cwd: dir,
        env: { USERSYNC_POLICY_SCOPE_EMAIL_DOMAINS: "", USERSYNC_POLICY_PROTECT: " , " },
      }),
    );
    const hint =
      "is not a non-empty comma-separated list (unset the variable to keep the config file's list) [bad-env]";
    expect(problems).toEqual([
      `env USERSYNC_POLICY_PROTECT: policy.protect: " , " ${hint}`,
      `env USERSYNC_POLICY_SCOPE_EMAIL_DOMAINS: policy.scope.emailDomains: "" ${hint}`,
    ]);
  });

  test("bad environment values and unknown USERSYNC_ variables", async () => {
    const problems = await problemsOf(
      loadConfig({
        cwd: dir,
        env: { USERSYNC_EXECUTION_RETRIES: "many", USERSYNC_POLICY_MAX_DELETES: "lots" },
      }),
    );
    expect(problems).toEqual([
      'env USERSYNC_EXECUTION_RETRIES: execution.retries: "many" is not a number [bad-env]',
      'env USERSYNC_POLICY_MAX_DELETES: policy.maxDeletes: "lots" is not a count (25) or a percentage ("10%") [bad-env]',
    ]);
    // A typo in a variable is an error, as in the file: the run would otherwise keep the default guard.
    expect(
      await problemsOf(
        loadConfig({ cwd: dir, env: { USERSYNC_POLICY_MAXDELETES: "3", USERSYNC_TOKEN: "t0ken" } }),
      ),
    ).toEqual([
      "env USERSYNC_POLICY_MAXDELETES: not a config key; did you mean USERSYNC_POLICY_MAX_DELETES? unset it, or see docs/configuration.md for the variables [unknown-env]",
    ]);
    // What Kubernetes puts into a pod beside a Service named usersync is neither a setting nor a typo.
    const c = await loadConfig({
      cwd: dir,
      env: {
        USERSYNC_SERVICE_HOST: "10.0.0.1",
        USERSYNC_SERVICE_PORT: "80",
        USERSYNC_PORT: "tcp://10.0.0.1:80",
        USERSYNC_PORT_80_TCP_ADDR: "10.0.0.1",
      },
    });
    expect(c.warnings).toEqual([]);
  });

  test("a token given with its Bearer scheme is sent without it; the warning never shows the token", async () => {
    const c = await loadConfig({ cwd: dir, env: { USERSYNC_TOKEN: "Bearer s3cr3t-t0ken" } });
    expect(c.token).toBe("s3cr3t-t0ken");
    expect(c.warnings).toEqual([
      'the token in USERSYNC_TOKEN starts with "Bearer ": usersync adds the scheme itself and sends the token without it; store the token alone',
    ]);
  });

  test("a mistyped key gets the nearest known one, at any depth, also inside lists", async () => {
    await configFile(
      [
        "policy:",
        "  maxDelete: 5",
        "  scope:",
        "    emailDomain: [example.com]",
        "target:",
        "  timeouts:",
        "    connecMs: 100",
        "source:",
        "  type: ldap",
        "  ldap:",
        "    url: ldap://127.0.0.1",
        "    baseDn: dc=x",
        "    groups:",
        "      - dn: cn=a",
        "        lowercase: true",
        "logging:",
        "  colour: red",
      ].join("\n"),
    );
    const problems = await problemsOf(loadConfig({ cwd: dir, env: {} }));
    expect(problems).toEqual([
      "<dir>/usersync.yaml:2: policy.maxDelete: unknown key; did you mean maxDeletes? see config.example.yaml for the keys of policy [unknown-key]",
      "<dir>/usersync.yaml:4: policy.scope.emailDomain: unknown key; did you mean emailDomains? see config.example.yaml for the keys of policy.scope [unknown-key]",
      "<dir>/usersync.yaml:7: target.timeouts.connecMs: unknown key; did you mean connectMs? see config.example.yaml for the keys of target.timeouts [unknown-key]",
      "<dir>/usersync.yaml:13: source.ldap.groups.0.lowercase: unknown key; did you mean lowerCase? see config.example.yaml for the keys of source.ldap.groups.0 [unknown-key]",
      "<dir>/usersync.yaml:17: logging.colour: unknown key; see config.example.yaml for the keys of logging [unknown-key]",
    ]);
  });

  test("every schema error is reported with its path, origin and line", async () => {
    await configFile(
      [
        "target:",
        "  apiProfile: v2",
        "  timeouts:",
        "    connectMs: -1",
        "policy:",
        "  maxDeletes: ten",
        "  mode: sometimes",
        "  colour: blue",
        "execution:",
        "  concurrency: 1.5",
        '  pageSize: "100"',
        "outputs: {}",
      ].join("\n"),
    );
    const problems = await problemsOf(loadConfig({ cwd: dir, env: { USERSYNC_LOGGING_LEVEL: "chatty" } }));
    expect(problems).toEqual([
      `<dir>/usersync.yaml:2: target.apiProfile: Invalid option: expected one of "auto"|"v1"|"legacy" [config-schema]`,
      `<dir>/usersync.yaml:4: target.timeouts.connectMs: Too small: expected number to be >=1 [config-schema]`,
      `<dir>/usersync.yaml:6: policy.maxDeletes: must be a count (e.g. 25) or a percentage of managed users (e.g. "10%") [config-schema]`,
      `<dir>/usersync.yaml:7: policy.mode: Invalid option: expected one of "incremental"|"full" [config-schema]`,
      `<dir>/usersync.yaml:8: policy.colour: unknown key; see config.example.yaml for the keys of policy [unknown-key]`,
      `<dir>/usersync.yaml:10: execution.concurrency: must be a whole number [config-schema]`,
      `<dir>/usersync.yaml:11: execution.pageSize: Invalid input: expected number, received string [config-schema]`,
      `<dir>/usersync.yaml:12: outputs: unknown key; did you mean output? see config.example.yaml for the keys of the top level [unknown-key]`,
      `env USERSYNC_LOGGING_LEVEL: logging.level: Invalid option: expected one of "trace"|"debug"|"info"|"warn"|"error"|"fatal"|"silent" [config-schema]`,
    ]);
  });

  test("cross-field rules: base URL, insecure http, password file", async () => {
    await configFile("target:\n  baseUrl: http://analytics.example.com\nidentity:\n  passwords: file\n");
    expect(await problemsOf(loadConfig({ cwd: dir, env: {} }))).toEqual([
      "<dir>/usersync.yaml:2: target.baseUrl: plain http:// to analytics.example.com would send the token unencrypted: use https:// or set target.allowInsecureHttp: true [insecure-http]",
      "<dir>/usersync.yaml:4: identity.passwordFile: is required when identity.passwords is file [required]",
    ]);
    expect(
      await problemsOf(loadConfig({ cwd: dir, env: {}, overrides: { baseUrl: "not a url" } })),
    ).toContain(
      '--base-url: target.baseUrl: "not a url" is not a URL: use https://host[:port] or embedded [bad-url]',
    );
    const local = await loadConfig({
      cwd: dir,
      env: {},
      overrides: { baseUrl: "http://127.0.0.1:8080" },
      file: await configFile("{}", "empty.yaml"),
    });
    expect(local.target.baseUrl).toBe("http://127.0.0.1:8080");
    const embedded = await loadConfig({
      cwd: dir,
      env: { USERSYNC_TARGET_BASE_URL: "embedded" },
      file: "empty.yaml",
    });
    expect(embedded.target.baseUrl).toBe("embedded");
  });

  test("a token key in the file is refused and says where the token goes", async () => {
    await configFile("target:\n  baseUrl: https://a.example.com\n  token: s3cret-value\n");
    const problems = await problemsOf(loadConfig({ cwd: dir, env: {} }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^<dir>\/usersync\.yaml:3: target\.token: secrets never go into the config file: put the API token in the environment variable named by target\.tokenEnv \(default USERSYNC_TOKEN\).*\[token-in-config\]$/,
    );
    expect(problems[0]).not.toContain("s3cret-value");
  });

  test("the token comes from the environment variable named by tokenEnv, hidden from JSON and inspect", async () => {
    await configFile("target:\n  tokenEnv: MY_TOKEN\n");
    const c = await loadConfig({ cwd: dir, env: { MY_TOKEN: "  tok-123\n", USERSYNC_TOKEN: "other" } });
    expect(c.token).toBe("tok-123");
    expect(JSON.stringify(c)).not.toContain("tok-123");
    expect(inspect(c, { depth: 10 })).not.toContain("tok-123");
    expect({ ...c }).not.toHaveProperty("token");
    const d = await loadConfig({
      cwd: dir,
      env: { USERSYNC_TOKEN: "default-env" },
      file: await configFile("", "blank.yaml"),
    });
    expect(d.token).toBe("default-env");
  });

  test("the token comes from a token file (trimmed) and a bad token file is an error", async () => {
    await writeFile(join(dir, "token"), "file-token-9\n");
    await configFile("target:\n  tokenFile: token\n");
    const c = await loadConfig({ cwd: dir, env: { USERSYNC_TOKEN: "env-token" } });
    expect(c.token).toBe("file-token-9");
    expect(c.target.tokenFile).toBe(join(dir, "token"));
    await writeFile(join(dir, "empty-token"), "  \n");
    expect(
      await problemsOf(loadConfig({ cwd: dir, env: { USERSYNC_TARGET_TOKEN_FILE: "empty-token" } })),
    ).toEqual([
      `env USERSYNC_TARGET_TOKEN_FILE: target.tokenFile: the token file <dir>/empty-token is empty [token-file]`,
    ]);
    expect(
      await problemsOf(loadConfig({ cwd: dir, env: { USERSYNC_TARGET_TOKEN_FILE: "missing" } })),
    ).toEqual([
      `env USERSYNC_TARGET_TOKEN_FILE: target.tokenFile: cannot read the token file <dir>/missing (ENOENT) [token-file]`,
    ]);
  });

  test("a missing --config file and YAML syntax errors are config errors", async () => {
    expect(await problemsOf(loadConfig({ cwd: dir, env: {}, file: "nope.yaml" }))).toEqual([
      "<dir>/nope.yaml: cannot read the config file (ENOENT): check the --config path [file-not-found]",
    ]);
    await configFile("target:\n  baseUrl: [unclosed\n");
    const problems = await problemsOf(loadConfig({ cwd: dir, env: {} }));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.startsWith("<dir>/usersync.yaml:") && p.endsWith("[yaml-syntax]"))).toBe(
      true,
    );
  });

  test("a config file that expands aliases too much is refused, not expanded", async () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (const n of "bcdefgh")
      levels.push(
        `${n}: &${n} [${Array(10)
          .fill(`*${String.fromCharCode(n.charCodeAt(0) - 1)}`)
          .join(", ")}]`,
      );
    await configFile(levels.join("\n") + "\n");
    const problems = await problemsOf(loadConfig({ cwd: dir, env: {} }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^<dir>\/usersync\.yaml: aliases expand too much \(more than 100\).*\[yaml-alias-limit\]$/,
    );
  });

  test("toPolicy maps the policy section and percentages", async () => {
    await configFile(
      "policy:\n  mode: full\n  membership: additive\n  deletions: remove\n  maxDeletes: 5%\n  protect: [ceo@example.com]\n  groups:\n    prune: true\nidentity:\n  passwords: none\n",
    );
    const c = await loadConfig({ cwd: dir, env: {} });
    expect(toPolicy(c, { allowDeletes: 7 })).toEqual({
      mode: "full",
      membership: "additive",
      deletions: "remove",
      unlinkedCredentials: "ignore",
      maxDeletes: { percent: 5 },
      allowDeletes: 7,
      scope: {},
      protect: ["ceo@example.com"],
      groups: { create: true, update: true, prune: true, createReferenced: false },
      passwords: "none",
      permissions: { workspaces: [], maxRemovals: { percent: 10 }, allowOrganizationManage: false },
      revertWindow: { text: "72h", seconds: 72 * 3600 }, // the revert guard's default
    });
  });

  test("toPolicy maps permissions: a list of globs, all, one glob, counts; env as a list", async () => {
    await configFile(
      "permissions:\n  workspaces: [sales-*, finance]\n  maxRemovals: 3\n  organization:\n    allowManage: true\n",
    );
    const c = await loadConfig({ cwd: dir, env: {} });
    expect(toPolicy(c, { allowPermissionRemovals: 9 }).permissions).toEqual({
      workspaces: ["sales-*", "finance"],
      maxRemovals: { count: 3 },
      allowRemovals: 9,
      allowOrganizationManage: true,
    });
    const all = await loadConfig({ cwd: dir, env: { USERSYNC_PERMISSIONS_WORKSPACES: "finance,all" } });
    expect(toPolicy(all).permissions.workspaces).toEqual(["*"]);
    await configFile("permissions:\n  workspaces: sales-*\n  maxRemovals: 5%\n");
    const one = toPolicy(await loadConfig({ cwd: dir, env: {} })).permissions;
    expect(one).toMatchObject({ workspaces: ["sales-*"], maxRemovals: { percent: 5 } });
    await configFile("permissions:\n  maxRemovals: lots\n");
    await expect(loadConfig({ cwd: dir, env: {} })).rejects.toThrow(/permissions\.maxRemovals/);
  });
});

describe("desiredReadOptions", () => {
  test("maps source and identity; a command's FILE wins; undefined without any file", async () => {
    const { desiredReadOptions } = await import("../../src/config/index.js");
    await configFile(
      "source:\n  desired: users.txt\n  groups: groups.csv\n  format: csv\nidentity:\n  default: external\n",
    );
    const c = await loadConfig({ cwd: dir, env: {} });
    expect(desiredReadOptions(c)).toEqual({
      file: join(dir, "users.txt"),
      groupsFile: join(dir, "groups.csv"),
      format: "csv",
      defaults: { identity: "external" },
    });
    expect(desiredReadOptions(c, "other.yaml")?.file).toBe("other.yaml");
    // source.format is for names the extension does not tell: a .yaml FILE is read as YAML.
    expect(desiredReadOptions(c, "other.yaml")?.format).toBeUndefined();
    expect(desiredReadOptions(c, "export.dat")?.format).toBe("csv");
    expect(desiredReadOptions(await loadConfig({ cwd: "/nonexistent-dir", env: {} }))).toBeUndefined();
  });
});
