/**
 * source.type entra against the Graph stand-in over real sockets (HTTPS, tokens from the real
 * @azure/identity): what a whole read gives, the requests it takes, and every way a read that is
 * not whole (exit 5) or a setup mistake (exit 4, the fix named) stops it.
 */
import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { withTempDir } from "../../../e2e/run-cli.js";
import { exitCodeFor } from "../../../../src/errors.js";
import { createLogger } from "../../../../src/logging.js";
import { openEntraSource } from "../../../../src/desired/sources/entra/index.js";
import { keepSignIn, resolveSignIn } from "../../../../src/desired/sources/index.js";
import type { OrganizationSignIn } from "../../../../src/service/types.js";
import type { DesiredState, Identity } from "../../../../src/desired/types.js";
import type { Config } from "../../../../src/config/schema.js";
import type { GraphStandIn } from "../../../../src/emulator/graph/server.js";
import { configSchema } from "../../../../src/config/schema.js";
import { generateTenant, STAND_IN_CLIENT, STAND_IN_TENANT } from "../../../../src/emulator/graph/generate.js";
import {
  serviceAccountToken,
  EXPIRED_SECRET,
  G,
  NO_CONSENT_CLIENT,
  NO_USERS_CLIENT,
  SECRET,
  entraSettings,
  startStandIn,
  U,
} from "../../../helpers/entra.js";

const logger = createLogger({ level: "silent", format: "json" });
let graph: GraphStandIn;
beforeAll(async () => {
  graph = await startStandIn();
});
afterAll(() => graph.close());

function config(extra: Record<string, unknown> = {}): Config {
  return configSchema.parse({ source: { type: "entra", entra: entraSettings(graph.url, extra) } });
}
const read = (
  extra: Record<string, unknown> = {},
  env: Record<string, string> = { USERSYNC_ENTRA_CLIENT_SECRET: SECRET },
) => openEntraSource(config(extra), { env, logger, defaultIdentity: "builtin" }).read();

async function failure(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    return { code: exitCodeFor(err), message: (err as Error).message };
  }
  throw new Error("expected the read to fail");
}

describe("a whole read", () => {
  it("gives people, groups and the evidence, in Graph's own paging", async () => {
    graph.requests.length = 0;
    const { state, problems, evidence } = await read();
    expect(problems).toEqual([]);
    expect(state.groups.map((g) => [g.id, g.name, g.parents])).toEqual([
      ["analytics_team", "Analytics Team", ["all_staff"]],
      ["all_staff", "All Staff", undefined],
    ]);
    expect(state.users.map((u) => [u.email, u.state, u.groups, u.firstname])).toEqual([
      ["ada@contoso.com", "present", ["all_staff", "analytics_team"], "Ada"],
      ["grace@contoso.onmicrosoft.com", "present", ["all_staff", "analytics_team"], "Grace"],
      ["linus@contoso.com", "absent", undefined, "Linus"],
      ["ken@contoso.com", "present", ["all_staff", "analytics_team"], "Ken"],
    ]);
    expect(evidence.skipped).toEqual([
      { reason: "guest (userType Guest; source.entra.includeGuests is false)", count: 1, sample: [U.guest] },
      {
        reason: "members that are not people (service principals, devices, contacts)",
        count: 4,
        sample: ["2 in Analytics Team", "2 in All Staff"],
      },
    ]);
    expect(evidence.groupSizes).toEqual({ [`entra:${G.analytics}`]: 5, [`entra:${G.allStaff}`]: 5 });
    expect(evidence.reads.find((r) => r.what.startsWith('people in group "Analytics'))).toMatchObject({
      pages: 1,
      announced: 5,
      read: 5,
    });
    const listing = graph.requests.find((r) => r.path.endsWith("/transitiveMembers/microsoft.graph.user"))!;
    const q = new URLSearchParams(listing.query);
    expect(q.get("$top")).toBe("999");
    expect(q.get("$count")).toBe("true");
    expect(q.get("$select")!.split(",").sort()).toEqual([
      "accountEnabled",
      "displayName",
      "givenName",
      "id",
      "mail",
      "surname",
      "userPrincipalName",
      "userType",
    ]);
    expect(listing.consistencyLevel).toBe("eventual");
    // One token, 2 rule lookups, and 3 reads per picked group: people, nested groups, the count of all.
    expect(graph.requests.filter((r) => r.path.startsWith("/v1.0/")).length).toBe(2 + 2 * 3);
  });

  it("includes guests when asked, and takes a property as the authenticationId", async () => {
    const { state } = await read({ includeGuests: true, attributes: { authenticationId: "id" } });
    expect(state.users).toHaveLength(5);
    expect(state.users.find((u) => u.email === "ada@contoso.com")).toMatchObject({
      identity: "external",
      authenticationId: U.ada,
    });
  });
});

/** The source's sign-in step run as the pipeline runs it (resolveSignIn), on a fresh read. */
const applyDirectorySignIn = (o: {
  state: DesiredState;
  signIn: () => Promise<OrganizationSignIn | undefined>;
  defaultIdentity: Identity;
  logger: typeof logger;
}): Promise<void> => resolveSignIn(o);
const readSigned = async () => {
  const result = await read();
  keepSignIn(result.state, result.signIn);
  return result.state;
};

describe("who signs in as whom (auto)", () => {
  const signIn = (claim: string) => async () => ({
    kind: "oidc" as const,
    claim,
    issuer: "https://login.microsoftonline.com/t/v2.0",
    from: "organization" as const,
  });
  it("maps oid to the Graph id and upn to userPrincipalName; the built-in provider keeps built-in logins", async () => {
    const byOid = await readSigned();
    await applyDirectorySignIn({ state: byOid, signIn: signIn("oid"), defaultIdentity: "builtin", logger });
    expect(byOid.users.map((u) => [u.identity, u.authenticationId])[0]).toEqual(["external", U.ada]);
    const byUpn = await readSigned();
    await applyDirectorySignIn({ state: byUpn, signIn: signIn("upn"), defaultIdentity: "builtin", logger });
    expect(byUpn.users[1]!.authenticationId).toBe("grace@contoso.onmicrosoft.com");
    const builtin = await readSigned();
    await applyDirectorySignIn({
      state: builtin,
      signIn: async () => ({ kind: "builtin" }),
      defaultIdentity: "builtin",
      logger,
    });
    expect(builtin.users.every((u) => u.identity === "builtin" && u.authenticationId === undefined)).toBe(
      true,
    );
  });

  it("stops at sub with the fix named (exit 4), and at an email claim a person without mail cannot meet", async () => {
    const state = await readSigned();
    const sub = await failure(
      applyDirectorySignIn({ state, signIn: signIn("sub"), defaultIdentity: "builtin", logger }),
    );
    expect(sub.code).toBe(4);
    expect(sub.message).toMatch(/pairwise.*oauthSubjectIdClaim to oid/);
    const email = await failure(
      applyDirectorySignIn({
        state: await readSigned(),
        signIn: signIn("email"),
        defaultIdentity: "builtin",
        logger,
      }),
    );
    expect(email.code).toBe(4);
  });
});

describe("a read that is not whole is exit 5", () => {
  const members = `/groups/${G.analytics}/transitiveMembers/microsoft.graph.user`;
  it("retries a throttled, unavailable, HTML or cut page and still reads it whole", async () => {
    graph.faults.push(
      { kind: "status", status: 429, retryAfterSeconds: 0, path: members },
      { kind: "status", status: 503, path: members },
      { kind: "html", path: members },
      { kind: "truncated", path: members },
    );
    const { state } = await read();
    expect(state.users).toHaveLength(4);
    expect(graph.faults.every((f) => f.times === 0)).toBe(true);
  }, 30_000);

  it("refuses a count that does not add up, a nextLink loop, and throttling past its budget", async () => {
    graph.faults.push({ kind: "miscount", path: members });
    expect(await failure(read())).toMatchObject({
      code: 5,
      message: expect.stringMatching(/announced 6 and 5 were read/),
    });
    graph.faults.push({ kind: "loop", path: members });
    expect(await failure(read())).toMatchObject({
      code: 5,
      message: expect.stringMatching(/already followed \(a paging loop\)/),
    });
    graph.faults.push({ kind: "status", status: 429, retryAfterSeconds: 30, path: members, times: Infinity });
    const throttled = await failure(read({ throttleBudgetMs: 1000 }));
    graph.faults.length = 0;
    expect(throttled).toMatchObject({ code: 5, message: expect.stringMatching(/kept throttling.*budget/) });
  });
});

describe("setup mistakes name the fix (exit 4) and never the secret", () => {
  const cases: [string, Record<string, unknown>, Record<string, string>, RegExp][] = [
    [
      "a wrong secret",
      {},
      { USERSYNC_ENTRA_CLIENT_SECRET: "wrong" },
      /AADSTS7000215.*Value \(not its Secret ID\)/,
    ],
    ["an expired secret", {}, { USERSYNC_ENTRA_CLIENT_SECRET: EXPIRED_SECRET }, /AADSTS7000222.*expired/],
    [
      "a misspelled tenant",
      { tenant: "contoso-typo.onmicrosoft.com" },
      { USERSYNC_ENTRA_CLIENT_SECRET: SECRET },
      /tenant 'contoso-typo.onmicrosoft.com'.*check source.entra.tenant/,
    ],
    ["no secret at all", {}, {}, /USERSYNC_ENTRA_CLIENT_SECRET is not set/],
    [
      "no admin consent",
      { clientId: NO_CONSENT_CLIENT },
      { USERSYNC_ENTRA_CLIENT_SECRET: SECRET },
      /403 Authorization_RequestDenied.*GroupMember.Read.All and User.Read.All.*admin consent/,
    ],
    [
      "no User.Read.All",
      { clientId: NO_USERS_CLIENT },
      { USERSYNC_ENTRA_CLIENT_SECRET: SECRET },
      /lacks the application permission User.Read.All/,
    ],
    [
      "a group id that does not exist",
      { groups: [{ objectId: "99999999-0000-4000-8000-000000000000" }] },
      { USERSYNC_ENTRA_CLIENT_SECRET: SECRET },
      /404 Request_ResourceNotFound.*check source.entra.groups\[0\].objectId/,
    ],
    [
      "a $filter Graph rejects",
      { groups: [{ filter: "startswith(description,'x')" }] },
      { USERSYNC_ENTRA_CLIENT_SECRET: SECRET },
      /400 Request_UnsupportedQuery.*correct source.entra.groups\[0\].filter/,
    ],
    [
      "a name no group has",
      { groups: [{ displayName: "Sales" }] },
      { USERSYNC_ENTRA_CLIENT_SECRET: SECRET },
      /picks no group/,
    ],
  ];
  it.each(cases)("%s", async (_, extra, env, pattern) => {
    const f = await failure(read(extra, env));
    expect(f.code).toBe(4);
    expect(f.message).toMatch(pattern);
    for (const secret of [SECRET, EXPIRED_SECRET]) expect(f.message).not.toContain(secret);
  });
});

describe("many pages", () => {
  it("follows @odata.nextLink verbatim to the end: ceil(members / 999) pages a group", async () => {
    const big = await startStandIn({ tenant: generateTenant({ people: 2_500, groups: 2, secret: SECRET }) });
    try {
      const c = configSchema.parse({
        source: {
          type: "entra",
          entra: {
            ...entraSettings(big.url),
            tenant: STAND_IN_TENANT,
            clientId: STAND_IN_CLIENT,
            groups: [{ filter: "startswith(displayName,'Team')" }],
          },
        },
      });
      const { state, evidence } = await openEntraSource(c, {
        env: { USERSYNC_ENTRA_CLIENT_SECRET: SECRET },
        logger,
        defaultIdentity: "builtin",
      }).read();
      const people = evidence.reads.filter((r) => r.what.startsWith("people in"));
      expect(people.map((r) => [r.pages, r.announced, r.read]).sort()).toEqual([
        [2, 1250, 1250],
        [2, 1500, 1500],
      ]);
      // Every 100th person is a guest (skipped), every 50th disabled (a leaver: absent).
      expect(state.users.filter((u) => u.state === "present")).toHaveLength(2_500 - 25 - 25);
      const skipTokens = big.requests.filter(
        (r) => r.query.includes("%24skiptoken") || r.query.includes("$skiptoken"),
      );
      expect(skipTokens).toHaveLength(2);
    } finally {
      await big.close();
    }
  });
});

describe("credentials without a secret", () => {
  it("workload identity: the projected service-account token is exchanged; a wrong subject names the fix", async () => {
    await withTempDir(async (dir) => {
      const tokenFile = join(dir, "azure-identity-token");
      await writeFile(tokenFile, serviceAccountToken());
      const { state } = await read({ credential: "workloadIdentity", tokenFile }, {});
      expect(state.users).toHaveLength(4);
      await writeFile(tokenFile, serviceAccountToken("system:serviceaccount:other:usersync"));
      const wrong = await failure(
        read({ credential: "workloadIdentity" }, { AZURE_FEDERATED_TOKEN_FILE: tokenFile }),
      );
      expect(wrong).toMatchObject({
        code: 4,
        message: expect.stringMatching(/AADSTS700213.*system:serviceaccount/),
      });
      const none = await failure(read({ credential: "workloadIdentity" }, {}));
      expect(none).toMatchObject({ code: 4, message: expect.stringMatching(/azure.workload.identity\/use/) });
    });
  });

  it("a client certificate: the assertion it signs gets the token", async () => {
    await withTempDir(async (dir) => {
      const certificateFile = join(dir, "cert.pem");
      // Entra takes RSA certificates (the assertion is RS256-signed): a fresh self-signed one.
      const made = spawnSync("openssl", [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=usersync",
        "-days",
        "1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "crt.pem"),
      ]);
      expect(made.status, String(made.stderr)).toBe(0);
      await writeFile(
        certificateFile,
        (await readFile(join(dir, "crt.pem"), "utf8")) + (await readFile(join(dir, "key.pem"), "utf8")),
      );
      const { state } = await read({ credential: "certificate", certificateFile }, {});
      expect(state.users).toHaveLength(4);
    });
  });

  it("the configuration block of docs/entra.md is a valid config", async () => {
    const doc = await readFile(new URL("../../../../docs/entra.md", import.meta.url), "utf8");
    const block = /```yaml entra\.yaml\n([\s\S]*?)```/.exec(doc)![1]!;
    expect(configSchema.parse(parse(block)).source.entra).toMatchObject({ credential: "workloadIdentity" });
  });
});
