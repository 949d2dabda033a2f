/**
 * The first hour of a newcomer (issue 22): the usual mistakes, each run through the built CLI
 * off a terminal. For each: the documented exit code, a message that says what was wrong, where
 * (the option, file and line, request or URL) and what to do, and stderr that is JSON lines only
 * (the fatal error too), so a log collector keeps the one line that matters. Nothing is written
 * to the service by any of them. Ctrl-C in each phase: mistakes-interrupts.test.ts.
 */
import { chmod, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { logMessages, ROOT, runCli, withTempDir } from "./run-cli.js";

const TOKEN = "mistakes-token-2d7";
const EXPIRED = "mistakes-expired-9a1";
const FORBIDDEN = "mistakes-forbidden-4c3";
const DEMO = join(ROOT, "fixtures", "demo");
const DESIRED = join(DEMO, "users.yaml");

let emulator: EmulatorHandle;
beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    expiredTokens: [EXPIRED],
    forbiddenTokens: [FORBIDDEN],
    seed: await loadSeedFile(join(DEMO, "organization.yaml")),
  });
});
afterAll(async () => {
  // No mistake ever reaches a write.
  expect(emulator.requestLog().filter((r) => r.method !== "GET")).toEqual([]);
  await emulator.close();
});

interface Ctx {
  url: string;
  dir: string;
  /** A port nothing listens on. */
  closedPort: number;
}

interface Mistake {
  name: string;
  args: (c: Ctx) => string[];
  env?: Record<string, string>;
  /** Files the mistake needs, written into the case's folder. */
  setup?: (dir: string) => Promise<void>;
  code: number;
  /** What was wrong, where, and what to do: each must be in the messages (stderr's msgs, stdout). */
  what: RegExp;
  where: RegExp;
  todo: RegExp;
  /** Against an emulator of its own that must see no request at all (checked before anything is sent). */
  nothingSent?: true;
  /** `validate` reports a bad file on stdout, its requested output: no fatal line on stderr. */
  onStdout?: true;
}

const plan = (c: Ctx, ...extra: string[]) => ["plan", "--base-url", c.url, "--desired", DESIRED, ...extra];
const apply = (c: Ctx, ...extra: string[]) => ["apply", "--base-url", c.url, "--desired", DESIRED, ...extra];
const yaml = (name: string, text: string) => (dir: string) => writeFile(join(dir, name), text);

const MISTAKES: Mistake[] = [
  {
    name: "no base URL at all",
    args: () => ["plan", "--desired", DESIRED],
    code: 4,
    what: /no service to talk to/,
    where: /target\.baseUrl/,
    todo: /--base-url.*"embedded"/,
  },
  {
    name: "a path suffix on the URL (/gooddata)",
    args: (c) => ["plan", "--base-url", `${c.url}/gooddata`, "--desired", DESIRED],
    code: 1,
    what: /GET \/api\/v1\/profile answered 404 \(and the legacy paths too\)/,
    where: /target\.baseUrl \(--base-url\)/,
    todo: /try http:\/\/127\.0\.0\.1:\d+ \(not \/gooddata\)/,
  },
  {
    name: "the API path on the URL (/api/v1)",
    args: (c) => ["plan", "--base-url", `${c.url}/api/v1`, "--desired", DESIRED],
    code: 1,
    what: /answered 404 \(and the legacy paths too\): nothing of the service answers at http:\/\/127\.0\.0\.1:\d+\/api\/v1/,
    where: /target\.baseUrl/,
    todo: /\(not \/api\/v1\)/,
  },
  {
    name: "unreachable host (nothing listens on the port)",
    args: (c) => ["plan", "--base-url", `http://127.0.0.1:${c.closedPort}`, "--desired", DESIRED],
    env: { USERSYNC_EXECUTION_RETRIES: "0" },
    code: 1,
    what: /GET \/api\/v1\/profile failed: .*ECONNREFUSED/,
    where: /target\.baseUrl/,
    todo: /reachable from here/,
  },
  {
    name: "https:// to a server that speaks plain http",
    args: (c) => ["plan", "--base-url", c.url.replace("http:", "https:"), "--desired", DESIRED],
    env: { USERSYNC_EXECUTION_RETRIES: "0" },
    code: 1,
    what: /GET \/api\/v1\/profile failed/,
    where: /target\.baseUrl/,
    todo: /does not answer TLS on that port.*http:\/\/ for a local emulator/,
  },
  {
    name: "a URL without its scheme",
    args: (c) => ["plan", "--base-url", c.url.replace("http://", ""), "--desired", DESIRED],
    code: 4,
    what: /is not a URL/,
    where: /--base-url: target\.baseUrl/,
    todo: /use https:\/\/host\[:port\]/,
    nothingSent: true,
  },
  {
    name: "plain http to a remote host",
    args: () => ["plan", "--base-url", "http://analytics.example.com", "--desired", DESIRED],
    code: 4,
    what: /plain http:\/\/ to analytics\.example\.com would send the token unencrypted/,
    where: /--base-url: target\.baseUrl/,
    todo: /use https:\/\/ or set target\.allowInsecureHttp: true/,
  },
  {
    name: "no token",
    args: (c) => plan(c),
    env: { USERSYNC_TOKEN: "" },
    code: 4,
    what: /no API token/,
    where: /USERSYNC_TOKEN/,
    todo: /target\.tokenFile/,
    nothingSent: true,
  },
  {
    name: "a wrong token",
    args: (c) => plan(c),
    env: { USERSYNC_TOKEN: "not-the-token" },
    code: 1,
    what: /answered 401.*token was refused: it is wrong or has expired/,
    where: /GET \/api\/v1\/profile/,
    todo: /Check USERSYNC_TOKEN/,
  },
  {
    name: "an expired token (the trace id from X-GDC-TRACE-ID, the body is empty)",
    args: (c) => plan(c),
    env: { USERSYNC_TOKEN: EXPIRED },
    code: 1,
    what: /answered 401: The access token expired \(traceId [0-9a-f]{32}\)/,
    where: /GET \/api\/v1\/profile/,
    todo: /Check USERSYNC_TOKEN/,
  },
  {
    name: "a token that is not an organization admin's",
    args: (c) => plan(c),
    env: { USERSYNC_TOKEN: FORBIDDEN },
    code: 1,
    what: /answered 403/,
    where: /GET \/api\/v1\/profile/,
    todo: /use the token of an organization admin/,
  },
  {
    name: "a typo in a flag",
    args: (c) => ["plan", "--base-url", c.url, "--desird", DESIRED],
    code: 4,
    what: /Unknown option '--desird'/,
    where: /usersync plan --help/,
    todo: /Did you mean --desired\?/,
    nothingSent: true,
  },
  {
    name: "a typo in a command",
    args: () => ["plna"],
    code: 4,
    what: /unknown command "plna"/,
    where: /Commands: plan, apply/,
    todo: /Did you mean "plan"\?/,
  },
  {
    name: "a typo in a config key",
    setup: yaml("usersync.yaml", "policy:\n  mode: full\n  maxDelete: 5\n"),
    args: (c) => [...plan(c), "--config", join(c.dir, "usersync.yaml")],
    code: 4,
    what: /policy\.maxDelete: unknown key/,
    where: /usersync\.yaml:3:/,
    todo: /did you mean maxDeletes\?/,
    nothingSent: true,
  },
  {
    // In a CronJob the settings are variables: a typo must not run with the default guard (issue 32).
    name: "a typo in an environment variable",
    args: (c) => plan(c),
    env: { USERSYNC_POLICY_MAXDELETES: "5" },
    code: 4,
    what: /not a config key/,
    where: /env USERSYNC_POLICY_MAXDELETES/,
    todo: /did you mean USERSYNC_POLICY_MAX_DELETES\?/,
    nothingSent: true,
  },
  {
    name: "an environment variable with a bad value",
    args: (c) => plan(c),
    env: { USERSYNC_EXECUTION_CONCURRENCY: "lots" },
    code: 4,
    what: /"lots" is not a number/,
    where: /env USERSYNC_EXECUTION_CONCURRENCY: execution\.concurrency/,
    todo: /\[bad-env\]/,
    nothingSent: true,
  },
  {
    name: "a bad row in a CSV file",
    setup: yaml("users.csv", "email,id\nann@demo.example,ann\n,bob\n"),
    args: (c) => ["plan", "--base-url", c.url, "--desired", join(c.dir, "users.csv")],
    code: 4,
    what: /problem.* in the desired state/,
    where: /users\.csv:3: email/,
    todo: /Fix the file\(s\) and run again \(npx usersync validate FILE\)/,
    nothingSent: true,
  },
  {
    name: "a YAML syntax error",
    setup: yaml("users.yaml", "version: 1\nusers:\n  - email: ann@demo.example\n   id: ann\n"),
    args: (c) => ["validate", join(c.dir, "users.yaml")],
    code: 4,
    what: /error:/,
    where: /users\.yaml:4/,
    todo: /is not valid\. Nothing was sent/,
    onStdout: true,
  },
  {
    name: "no --yes off a terminal",
    args: (c) => apply(c, "--credentials-file", join(c.dir, "credentials.csv")),
    code: 3,
    what: /refusing to apply without confirmation/,
    where: /there is no terminal to ask on/,
    todo: /re-run with --yes/,
  },
  {
    name: "generated passwords without a credentials file",
    args: (c) => apply(c, "--yes"),
    code: 3,
    what: /generated passwords need a credentials file/,
    where: /output\.credentialsFile/,
    todo: /pass --credentials-file FILE/,
  },
  {
    name: "a read-only credentials file: found before the first request",
    setup: async (dir) => {
      await writeFile(join(dir, "credentials.csv"), "email,password,createdAt\n", { mode: 0o400 });
      await chmod(join(dir, "credentials.csv"), 0o400);
    },
    args: (c) => apply(c, "--yes", "--credentials-file", join(c.dir, "credentials.csv")),
    code: 4,
    what: /is read-only \(mode 400\)|cannot be opened for appending/,
    where: /--credentials-file \/.*credentials\.csv/,
    todo: /chmod 600 .*credentials\.csv.*or choose another path/,
    nothingSent: true,
  },
  {
    name: "a credentials file others can read: found before the first request",
    setup: async (dir) => {
      await writeFile(join(dir, "credentials.csv"), "email,password,createdAt\n");
      await chmod(join(dir, "credentials.csv"), 0o644);
    },
    args: (c) => apply(c, "--yes", "--credentials-file", join(c.dir, "credentials.csv")),
    code: 3,
    what: /can be read or written by group or others \(mode 644\)/,
    where: /--credentials-file \/.*credentials\.csv/,
    todo: /chmod 600/,
    nothingSent: true,
  },
  {
    name: "a report path under a file",
    setup: yaml("a-file", ""),
    args: (c) => apply(c, "--yes", "--report", join(c.dir, "a-file", "report.json")),
    code: 4,
    what: /its folder .*a-file cannot be created or written \((ENOTDIR|EEXIST)\)/,
    where: /--report /,
    todo: /Choose another path/,
    nothingSent: true,
  },
  {
    name: "the emulator's port is in use",
    args: (c) => ["emulator", "--port", new URL(c.url).port],
    code: 4,
    what: /port \d+ on 127\.0\.0\.1 is already in use/,
    where: /cannot start the emulator/,
    todo: /--port 0 picks a free one/,
  },
  {
    name: "--desired with source.type: ldap",
    setup: yaml(
      "usersync.yaml",
      "source:\n  type: ldap\n  ldap:\n    url: ldap://127.0.0.1:1\n    baseDn: dc=x\n",
    ),
    args: (c) => [...plan(c), "--config", join(c.dir, "usersync.yaml")],
    code: 4,
    what: /two sources of the desired state/,
    where: /--desired or source\.desired.*source\.type: ldap in .*usersync\.yaml/,
    todo: /drop --desired .* or set source\.type: file/,
    nothingSent: true,
  },
  {
    name: "a desired file that is not there (or its share is not mounted)",
    args: (c) => ["plan", "--base-url", c.url, "--desired", join(c.dir, "users.yaml")],
    code: 5,
    what: /does not exist/,
    where: /users\.yaml/,
    todo: /check the path.*a later run may succeed/s,
    nothingSent: true,
  },
  {
    name: "the directory is down (nothing listens on the LDAP port)",
    setup: yaml(
      "usersync.yaml",
      "source:\n  type: ldap\n  ldap:\n    url: ldap://127.0.0.1:1\n    bindDn: cn=reader,dc=x\n    baseDn: dc=x\n",
    ),
    args: (c) => ["plan", "--base-url", c.url, "--config", join(c.dir, "usersync.yaml")],
    env: { USERSYNC_LDAP_PASSWORD: "reader-secret" },
    code: 5,
    what: /bind as cn=reader,dc=x failed: connect ECONNREFUSED/,
    where: /the directory ldap:\/\/127\.0\.0\.1:1/,
    todo: /check that the directory is up and reachable.*a later run may succeed/s,
    nothingSent: true,
  },
  {
    name: "an option the command does not take",
    args: () => ["export", "--desired", DESIRED],
    code: 4,
    what: /Unknown option '--desired'/,
    where: /usersync export does not take it/,
    todo: /usersync plan, usersync apply, usersync review, usersync campaign, usersync validate do/,
  },
  {
    name: "the desired file as a word instead of --desired",
    args: (c) => ["plan", "--base-url", c.url, DESIRED],
    code: 4,
    what: /usersync plan takes no arguments, got ".*users\.yaml"/,
    where: /See usersync plan --help/,
    todo: /--desired .*users\.yaml/,
    nothingSent: true,
  },
  {
    name: "a mistyped choice",
    args: (c) => plan(c, "--format", "jsn"),
    code: 4,
    what: /--format must be one of text, json, markdown, html, not "jsn"/,
    where: /--format/,
    todo: /Did you mean json\?/,
    nothingSent: true,
  },
  {
    name: "a missing config file",
    args: (c) => [...plan(c), "--config", join(c.dir, "nope.yaml")],
    code: 4,
    what: /cannot read the config file \(ENOENT\)/,
    where: /nope\.yaml/,
    todo: /check the --config path/,
    nothingSent: true,
  },
  {
    name: "the token in the config file",
    setup: yaml("usersync.yaml", "target:\n  token: abc123\n"),
    args: (c) => [...plan(c), "--config", join(c.dir, "usersync.yaml")],
    code: 4,
    what: /secrets never go into the config file/,
    where: /usersync\.yaml:2: target\.token/,
    todo: /environment variable named by target\.tokenEnv/,
    nothingSent: true,
  },
  {
    name: "a saved plan that is not there",
    args: (c) => ["apply", "--base-url", c.url, "--plan", join(c.dir, "plan.json"), "--yes"],
    code: 4,
    what: /cannot read the saved plan/,
    where: /plan\.json/,
    todo: /ENOENT/,
    nothingSent: true,
  },
  // The second hour (issue 32).
  {
    name: "a path typo beside the right file (users.yml for users.yaml)",
    setup: yaml("users.yaml", "version: 1\nusers:\n  - email: ann@demo.example\n"),
    args: (c) => ["plan", "--base-url", c.url, "--desired", join(c.dir, "users.yml")],
    code: 4,
    what: /users\.yml: does not exist/,
    where: /\[path-typo\]/,
    todo: /did you mean .*users\.yaml\?/,
    nothingSent: true,
  },
  {
    name: "a folder where the desired file belongs (an empty one is exit 5: a missing subPath)",
    setup: yaml("users.yaml", "version: 1\nusers:\n  - email: ann@demo.example\n"),
    args: (c) => ["plan", "--base-url", c.url, "--desired", c.dir],
    code: 4,
    what: /is a folder, not a file/,
    where: /\[not-a-file\]/,
    todo: /name the desired-state file in it \(users\.yaml\)/,
    nothingSent: true,
  },
  {
    name: "a mistyped YAML field (display_name)",
    setup: yaml("users.yaml", "version: 1\nusers:\n  - email: ann@demo.example\n    display_name: Ann\n"),
    args: (c) => ["plan", "--base-url", c.url, "--desired", join(c.dir, "users.yaml")],
    code: 4,
    what: /unknown field/,
    where: /users\.yaml:4: users\[0\]\.display_name/,
    todo: /did you mean displayName\?/,
    nothingSent: true,
  },
  {
    name: "a mistyped CSV column (display_name)",
    setup: yaml("users.csv", "email,display_name\nann@demo.example,Ann\n"),
    args: (c) => ["plan", "--base-url", c.url, "--desired", join(c.dir, "users.csv")],
    code: 4,
    what: /unknown column/,
    where: /users\.csv:1: display_name/,
    todo: /did you mean displayName\?/,
    nothingSent: true,
  },
  {
    name: "a CSV separated by ';' (a spreadsheet's locale)",
    setup: yaml("users.csv", "email;displayName\nann@demo.example;Ann\n"),
    args: (c) => ["validate", join(c.dir, "users.csv")],
    code: 4,
    what: /the header is one column with ";" in it/,
    where: /users\.csv:1: email;displayName/,
    todo: /save the file as comma-separated CSV/,
    onStdout: true,
  },
  {
    name: "the README's demo file against the empty embedded emulator",
    args: () => ["plan", "--base-url", "embedded", "--desired", DESIRED],
    env: { USERSYNC_PERMISSIONS_WORKSPACES: "all", USERSYNC_DATA_FILTERS_WORKSPACES: "all" },
    code: 4,
    what: /workspace "analytics" does not exist in the organization/,
    where: /the embedded emulator starts empty/,
    todo: /target\.embeddedSeed \(USERSYNC_TARGET_EMBEDDED_SEED=fixtures\/demo\/organization\.yaml/,
  },
  {
    name: "the token with its Bearer prefix (it works; the warning never shows the token)",
    args: (c) => plan(c),
    env: { USERSYNC_TOKEN: `Bearer ${TOKEN}` },
    code: 0,
    what: /starts with "Bearer "/,
    where: /the token in USERSYNC_TOKEN/,
    todo: /store the token alone/,
  },
  {
    name: "no arguments at all",
    args: () => [],
    code: 4,
    what: /no command given/,
    where: /Usage: usersync <command> \[options\]/,
    todo: /See npx usersync --help/,
  },
  {
    name: "an option without its value",
    args: (c) => ["plan", "--base-url", c.url, "--desired"],
    code: 4,
    what: /argument missing/,
    where: /--desired/,
    todo: /See usersync plan --help/,
  },
];

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe("a newcomer's mistakes through the built CLI", () => {
  it("the table has at least 25 mistakes", () => {
    expect(MISTAKES.length).toBeGreaterThanOrEqual(25);
  });

  it.concurrent.each(MISTAKES)("$name: exit $code, says what, where and what to do", async (m) => {
    const own = m.nothingSent ? await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" } }) : undefined;
    try {
      await withTempDir(async (dir) => {
        await m.setup?.(dir);
        const ctx = { url: (own ?? emulator).url, dir, closedPort: await closedPort() };
        const r = await runCli(m.args(ctx), { cwd: dir, env: { USERSYNC_TOKEN: TOKEN, ...m.env } });
        // Off a terminal stderr is JSON lines only, the fatal error included (logMessages throws otherwise).
        const said = `${logMessages(r.stderr)}\n${r.stdout}`;
        expect(r.code, said).toBe(m.code);
        expect(said).toMatch(m.what);
        expect(said).toMatch(m.where);
        expect(said).toMatch(m.todo);
        expect(said).not.toContain("unexpected error");
        expect(said).not.toContain(TOKEN);
        if (m.code !== 0 && !m.onStdout) {
          const last = JSON.parse(r.stderr.trim().split("\n").at(-1)!) as Record<string, unknown>;
          expect(last).toMatchObject({ level: 60, exitCode: m.code });
        }
      });
      if (own) expect(own.requestLog()).toEqual([]);
    } finally {
      await own?.close();
    }
  });
});
