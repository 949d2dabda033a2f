/**
 * source.type google against the Google stand-in over real sockets (HTTPS; tokens from the real
 * google-auth-library: a JWT-bearer grant, an STS exchange, an impersonation): what a whole read
 * gives and asks, each way of signing in, every read that is not whole (exit 5) and every setup
 * mistake (exit 4, the fix named).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTempDir } from "../../../e2e/run-cli.js";
import { exitCodeFor } from "../../../../src/errors.js";
import { createLogger } from "../../../../src/logging.js";
import { configSchema, type Config } from "../../../../src/config/schema.js";
import { openGoogleSource } from "../../../../src/desired/sources/google/source.js";
import { setupError } from "../../../../src/desired/sources/google/api.js";
import { DirectoryHttpError } from "../../../../src/desired/sources/errors.js";
import { startGoogleStandIn, type GoogleStandIn } from "../../../../src/emulator/google/server.js";
import { generateCustomer } from "../../../../src/emulator/google/generate.js";
import {
  ADMIN_ROLE_SA,
  DELEGATED_CLIENT_ID,
  DELEGATED_SA,
  DOMAIN,
  G,
  NO_RIGHTS_SA,
  U,
  googleSettings,
  startGoogle,
  writeFederation,
  writeKey,
} from "../../../helpers/google.js";
import { TLS } from "../../../helpers/entra.js";
import { GOOGLE_SCOPES } from "../../../../src/desired/sources/google/credentials.js";

const logger = createLogger({ level: "silent", format: "json" });
let google: GoogleStandIn;
beforeAll(async () => {
  google = await startGoogle();
});
afterAll(() => google.close());

function config(credentialsFile: string, extra: Record<string, unknown> = {}, url = google.url): Config {
  return configSchema.parse({
    source: { type: "google", google: googleSettings(url, credentialsFile, extra) },
  });
}
const read = (c: Config) => openGoogleSource(c, { env: {}, logger, defaultIdentity: "builtin" }).read();

async function failure(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    return { code: exitCodeFor(err), message: (err as Error).message };
  }
  throw new Error("expected the read to fail");
}

const apiCalls = (g: GoogleStandIn) => g.requests.filter((r) => r.url.startsWith("/admin/"));

describe("a whole read", () => {
  it("gives people (leavers absent, others skipped and counted), groups and the evidence", async () => {
    await withTempDir(async (dir) => {
      google.requests.length = 0;
      const { state, problems, evidence } = await read(config(await writeKey(dir, google.url)));
      expect(problems.map((p) => p.message)).toEqual([]);
      const people = state.users.map((u) => [
        u.email,
        u.state,
        u.authenticationId,
        u.firstname,
        u.lastname,
        [...(u.groups ?? [])].sort(),
      ]);
      expect(people.sort()).toEqual([
        ["ada@example.com", "present", U.ada, "Ada", "Example", ["all_staff", "analytics_team"]],
        ["arch@example.com", "absent", U.arch, "Arch", "Example", []],
        ["grace@example.com", "present", U.grace, "Grace", "Example", ["all_staff", "analytics_team"]],
        ["ken@example.com", "present", U.ken, "Ken", "Example", ["all_staff", "analytics_team", "platform"]],
        ["linus@example.com", "absent", U.linus, "Linus", "Example", []],
      ]);
      expect(state.groups.map((g) => [g.id, g.name]).sort()).toEqual([
        ["all_staff", "All Staff"],
        ["analytics_team", "Analytics Team"],
        ["platform", "Platform"],
      ]);
      expect(evidence.kind).toBe("google");
      expect(evidence.scope).toEqual([`email all-staff@${DOMAIN}`, "query email:analytics-*"]);
      expect(evidence.skipped.map((s) => [s.reason, s.count])).toEqual([
        ["members of status UNDEFINED", 2],
        ["members that are not people (type CUSTOMER)", 2],
        ["members that are not people (type GROUP)", 2],
      ]);
      expect(evidence.groupSizes).toEqual({
        [`google:${G.staff}`]: 5,
        [`google:${G.analytics}`]: 5,
        [`google:${G.platform}`]: 2,
      });
      // The largest pages, only the fields used, derived membership; one users listing.
      const calls = apiCalls(google).map((r) => new URL(r.url, "https://x"));
      const members = calls.filter((u) => u.pathname.endsWith("/members"));
      expect(members).toHaveLength(3);
      for (const m of members) {
        expect(m.searchParams.get("maxResults")).toBe("200");
        expect(m.searchParams.get("includeDerivedMembership")).toBe("true");
        expect(m.searchParams.get("fields")).toBe("nextPageToken,members(id,email,type,status)");
      }
      const users = calls.filter((u) => u.pathname.endsWith("/users"));
      expect(users.map((u) => [u.searchParams.get("customer"), u.searchParams.get("maxResults")])).toEqual([
        ["my_customer", "500"],
      ]);
      expect(calls.find((u) => u.pathname.endsWith("/groups"))?.searchParams.get("maxResults")).toBe("200");
      expect(google.tokens.grants).toContain("urn:ietf:params:oauth:grant-type:jwt-bearer");
    });
  });

  it("follows pageToken to the end: ceil(members / 200) pages a group, ceil(users / 500) for the users", async () => {
    const big = await startGoogleStandIn({
      ...generateCustomer({ people: 1234, groups: 2 }),
      tls: TLS,
      serviceAccounts: [
        {
          clientEmail: ADMIN_ROLE_SA,
          publicKeyPem: (await import("node:crypto"))
            .createPublicKey((await import("../../../helpers/google.js")).PRIVATE_KEY)
            .export({ type: "spki", format: "pem" })
            .toString(),
          adminRole: true,
        },
      ],
    });
    try {
      await withTempDir(async (dir) => {
        const c = config(
          await writeKey(dir, big.url, ADMIN_ROLE_SA),
          {
            subject: undefined,
            groups: [{ query: "email:team-*" }],
          },
          big.url,
        );
        const { state, evidence } = await read(c);
        expect(state.users).toHaveLength(1234);
        const pages = Object.fromEntries(evidence.reads.map((r) => [r.what, r.pages]));
        expect(Object.values(pages)).toEqual([1, 4, 4, 3]); // groups; 617 members twice; 1,235 users
        expect(big.apiRequests).toBe(1 + 4 + 4 + 3);
      });
    } finally {
      await big.close();
    }
  });
});

describe("signing in", () => {
  it("a service account with an admin role reads without delegation", async () => {
    await withTempDir(async (dir) => {
      const { state } = await read(
        config(await writeKey(dir, google.url, ADMIN_ROLE_SA), { subject: undefined }),
      );
      expect(state.users).toHaveLength(5);
    });
  });

  it("workload identity federation: the Kubernetes token exchanged at STS, then the service account impersonated", async () => {
    await withTempDir(async (dir) => {
      google.tokens.grants.length = 0;
      const { state } = await read(config(await writeFederation(dir, google.url), { subject: undefined }));
      expect(state.users).toHaveLength(5);
      expect(google.tokens.grants).toEqual([
        "urn:ietf:params:oauth:grant-type:token-exchange",
        "generateAccessToken",
      ]);
      const wrong = await failure(
        read(
          config(await writeFederation(dir, google.url, { subject: "system:serviceaccount:other:x" }), {
            subject: undefined,
          }),
        ),
      );
      expect(wrong.code).toBe(4);
      expect(wrong.message).toMatch(/pool refused the Kubernetes service-account token/);
      const noImpersonation = await failure(
        read(
          config(await writeFederation(dir, google.url, { impersonate: NO_RIGHTS_SA }), {
            subject: undefined,
          }),
        ),
      );
      expect(noImpersonation.code).toBe(4);
      expect(noImpersonation.message).toMatch(/roles\/iam.workloadIdentityUser/);
      const withSubject = await failure(read(config(await writeFederation(dir, google.url))));
      expect(withSubject.message).toMatch(/domain-wide delegation, which needs a service-account key/);
    });
  });

  it("names the fix of each setup mistake (exit 4) before the service is asked anything", async () => {
    await withTempDir(async (dir) => {
      const key = await writeKey(dir, google.url);
      const cases: [Config, RegExp][] = [
        [
          config(await writeKey(dir, google.url, NO_RIGHTS_SA)),
          new RegExp(
            `unauthorized_client.*Manage Domain Wide Delegation, add that client id|client id ${DELEGATED_CLIENT_ID}`,
          ),
        ],
        [config(key, { subject: `ada@${DOMAIN}` }), /subject \(ada@example.com\) is not a Workspace admin/],
        [
          config(await writeKey(dir, google.url, NO_RIGHTS_SA), { subject: undefined }),
          /holds no Workspace admin role/,
        ],
        [config(key, { customer: "C0wrong" }), /check source.google.customer/],
        [config(key, { domain: "example.org" }), /not one of this Workspace's: check source.google.domain/],
        [
          config(key, { groups: [{ email: `nosuch@${DOMAIN}` }] }),
          /Google has no such group: check source.google.groups\[0\].email/,
        ],
        [config(key, { groups: [{ query: "email:nothing-*" }] }), /source.google.groups\[0\] picks no group/],
        [
          config(key, { groups: [{ query: "owner:someone" }] }),
          /rejected the group search: correct source.google.groups\[0\].query/,
        ],
      ];
      for (const [c, message] of cases) {
        const f = await failure(read(c));
        expect(f.message).toMatch(message);
        expect(f.code).toBe(4);
      }
      const scope = setupError(
        new DirectoryHttpError({
          directory: "x",
          method: "GET",
          path: "/p",
          status: 403,
          body: {
            error: {
              code: 403,
              message: "Request had insufficient authentication scopes.",
              errors: [{ reason: "insufficientPermissions" }],
            },
          },
        }),
        { config: c0(key), what: "members", actor: DELEGATED_SA },
      ) as Error;
      expect(scope.message).toContain(GOOGLE_SCOPES.join(", "));
    });
  });
});

const c0 = (key: string) => config(key).source.google!;

/** The Directory API requests to `path`, with the status each got. */
const statusesOf = (path: RegExp) =>
  apiCalls(google)
    .filter((r) => path.test(r.url))
    .map((r) => r.status);

describe("a token Google refuses (DirectoryHttp's renew)", () => {
  it("mid-read: one fresh token from a new grant, and the refused request once more", async () => {
    await withTempDir(async (dir) => {
      for (const [way, c, grant] of [
        [
          "a delegated key",
          config(await writeKey(dir, google.url)),
          ["urn:ietf:params:oauth:grant-type:jwt-bearer"],
        ],
        [
          "workload identity federation",
          config(await writeFederation(dir, google.url), { subject: undefined }),
          ["urn:ietf:params:oauth:grant-type:token-exchange", "generateAccessToken"],
        ],
      ] as const) {
        google.requests.length = 0;
        google.tokens.grants.length = 0;
        google.faults.length = 0;
        // Every token issued so far stops working: the retry passes only with a fresh one.
        google.faults.push({ match: /platform\/members/, kind: "revoked", times: 1 });
        const { state } = await read(c);
        expect(state.users, way).toHaveLength(5);
        // The first token, then exactly one more: google-auth-library's cache is not reused.
        expect(google.tokens.grants, way).toEqual([...grant, ...grant]);
        expect(statusesOf(/platform\/members/), way).toEqual([401, 200]);
      }
      google.faults.length = 0;
    });
  });

  it("on the first request (nothing accepted yet): a setup mistake, exit 4, the fix named, no renewal", async () => {
    await withTempDir(async (dir) => {
      google.requests.length = 0;
      google.tokens.grants.length = 0;
      google.faults.length = 0;
      google.faults.push({ match: /\/admin\//, kind: "expired" });
      const f = await failure(read(config(await writeKey(dir, google.url))));
      google.faults.length = 0;
      expect(f.code).toBe(4);
      expect(f.message).toMatch(
        /answered 401 authError .*refused the token it was given before accepting any: the credentials' token endpoint .* and source.google.apiUrl must be the same Google/,
      );
      expect(google.tokens.grants).toEqual(["urn:ietf:params:oauth:grant-type:jwt-bearer"]);
      // Each rule's first request once: a refused first token is not asked again.
      expect(apiCalls(google).every((r) => r.status === 401)).toBe(true);
      expect(apiCalls(google)).toHaveLength(2);
    });
  });
});

describe("a read that is not whole stops with exit 5", () => {
  it("retries a quota answer, a 503, a cut or HTML page, and renews a token that expired mid-read", async () => {
    await withTempDir(async (dir) => {
      const c = config(await writeKey(dir, google.url));
      google.faults.push(
        { match: /\/members/, kind: "quota", times: 1 },
        { match: /\/users/, kind: 503, times: 1 },
        { match: /\/groups\?/, kind: "truncated", times: 1 },
        { match: /analytics-team|03abc000analytics/, kind: "html", times: 1 },
        { match: /03abc000platform\/members/, kind: "expired", times: 1 },
      );
      const { state } = await read(c);
      expect(state.users).toHaveLength(5);
      expect(google.faults.every((f) => f.left === 0)).toBe(true);
      google.faults.length = 0;
    });
  });

  it("a repeated page token, a second 401, quota past the budget, a page failing after retries", async () => {
    await withTempDir(async (dir) => {
      const key = await writeKey(dir, google.url);
      const cases: [ReturnType<typeof config>, { match: RegExp; kind: never; times?: number }, RegExp][] = [
        [
          config(key),
          { match: /\/users/, kind: "repeat-token" as never, times: 1 },
          /already followed \(a paging loop\)|listed on page 1 and again on page 2/,
        ],
        [
          config(key),
          { match: /platform\/members/, kind: "expired" as never, times: 2 },
          /refused a fresh token too \(401 to .*platform\/members.*\), after accepting this run's token before/,
        ],
        [
          config(key, { maxWaitSeconds: 1 }),
          { match: /\/members/, kind: "quota" as never },
          /kept throttling \(403\).*past the budget/,
        ],
        [config(key), { match: /\/users/, kind: 500 as never }, /did not answer|answered 500/],
      ];
      for (const [c, fault, message] of cases) {
        google.faults.length = 0;
        google.faults.push({ ...fault });
        const f = await failure(read(c));
        expect(f.message).toMatch(message);
        expect(f.code).toBe(5);
      }
      google.faults.length = 0;
    });
  }, 60_000);
});
