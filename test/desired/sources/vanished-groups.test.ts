/**
 * The one rule for a group that is not there (docs/sources.md), over the Google, Okta and Graph
 * stand-ins through readSource, as a run reads: a picked group deleted between its lookup and the
 * read of its members is exit 5; a rule naming a group the directory does not have is exit 4,
 * unless the last successful run (the state's group sizes) saw a group with members that is not
 * found now: then exit 5, and `--allow-empty-groups` leaves the mistake (exit 4).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTempDir } from "../../e2e/run-cli.js";
import { exitCodeFor } from "../../../src/errors.js";
import { createLogger } from "../../../src/logging.js";
import { configSchema, type Config } from "../../../src/config/schema.js";
import { readSource } from "../../../src/desired/sources/index.js";
import type { GoogleStandIn } from "../../../src/emulator/google/server.js";
import type { GraphStandIn } from "../../../src/emulator/graph/server.js";
import { DOMAIN, G, googleSettings, startGoogle, writeKey } from "../../helpers/google.js";
import { entraSettings, G as EG, SECRET, startStandIn } from "../../helpers/entra.js";
import { serviceAppSource, startOkta, type OktaFixture } from "../../helpers/okta.js";

const logger = createLogger({ level: "silent", format: "json" });
let google: GoogleStandIn;
let graph: GraphStandIn;
let okta: OktaFixture;
beforeAll(async () => {
  [google, graph, okta] = await Promise.all([
    startGoogle(),
    startStandIn(),
    startOkta({
      users: [{ id: "00u1ada", status: "ACTIVE", profile: { login: "ada", email: "ada@example.org" } }],
      groups: [{ id: "00g1team", type: "OKTA_GROUP", profile: { name: "Team" }, members: ["00u1ada"] }],
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([google?.close(), graph?.close(), okta?.okta.close()]);
});

async function outcome(
  config: Config,
  o: { lastGood?: Record<string, number>; allowEmpty?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; message: string }> {
  try {
    await readSource({
      config,
      ctx: { env: o.env ?? {}, logger, defaultIdentity: "builtin" },
      lastGroupSizes: o.lastGood,
      allowEmptyGroups: o.allowEmpty ?? false,
    });
    return { code: 0, message: "" };
  } catch (err) {
    return { code: exitCodeFor(err), message: (err as Error).message };
  }
}

/** The four judgements of a rule naming `key`'s group, which the directory does not have. */
async function judged(config: Config, key: string, env?: NodeJS.ProcessEnv) {
  const at = (lastGood?: Record<string, number>, allowEmpty = false) =>
    outcome(config, { ...(lastGood ? { lastGood } : {}), allowEmpty, ...(env ? { env } : {}) });
  return {
    noState: await at(),
    hadMembers: await at({ [key]: 3 }),
    hadNone: await at({ [key]: 0 }),
    allowed: await at({ [key]: 3 }, true),
  };
}

function expectOneRule(r: Awaited<ReturnType<typeof judged>>, key: string): void {
  expect([r.noState.code, r.hadMembers.code, r.hadNone.code, r.allowed.code]).toEqual([4, 5, 4, 4]);
  expect(r.hadMembers.message).toContain(`${key} (3 members at the last successful run)`);
  expect(r.hadMembers.message).toMatch(/not believed: run again later.*--allow-empty-groups/);
}

describe("Google", () => {
  it("a picked group deleted before its members were read: exit 5, not a setup mistake", async () => {
    await withTempDir(async (dir) => {
      const key = await writeKey(dir, google.url);
      const config = configSchema.parse({
        source: { type: "google", google: googleSettings(google.url, key) },
      });
      google.faults.push({ match: new RegExp(`/groups/${G.platform}/members`), kind: "not-found" });
      const r = await outcome(config);
      google.faults.length = 0;
      expect(r.code).toBe(5);
      expect(r.message).toMatch(/deleted after it was picked \(Google answered 404 to its members\)/);
      expect(r.message).not.toMatch(/check the group|run again\)/);
    });
  });

  it("a rule's group Google does not have: 4, or 5 when the last run saw it with members", async () => {
    await withTempDir(async (dir) => {
      const key = await writeKey(dir, google.url);
      const groups = [{ email: `all-staff@${DOMAIN}` }, { groupId: "03abc000gone" }];
      const config = configSchema.parse({
        source: { type: "google", google: googleSettings(google.url, key, { groups }) },
      });
      const r = await judged(config, "google:03abc000gone");
      expectOneRule(r, "google:03abc000gone");
      expect(r.noState.message).toMatch(/Google has no such group: check source.google.groups\[1\].groupId/);
      // The groups the other rules found are not "gone": a sizes record of only them leaves the mistake.
      expect((await outcome(config, { lastGood: { [`google:${G.staff}`]: 4 } })).code).toBe(4);
    });
  });
});

describe("Okta", () => {
  it("a rule's group Okta does not have (E0000007): 4, or 5 when the last run saw it with members", async () => {
    await withTempDir(async (dir) => {
      const groups = [{ groupId: "00g1team" }, { groupId: "00g9gone" }];
      const config = configSchema.parse({
        source: { type: "okta", okta: await serviceAppSource(okta, dir, { groups }) },
      });
      const r = await judged(config, "okta:00g9gone");
      expectOneRule(r, "okta:00g9gone");
      expect(r.noState.message).toMatch(/Okta has no group 00g9gone/);
    });
  });

  it("a search that picks nothing while a group it picked before is gone: 5", async () => {
    await withTempDir(async (dir) => {
      const groups = [{ search: 'profile.name sw "Gone"' }];
      const config = configSchema.parse({
        source: { type: "okta", okta: await serviceAppSource(okta, dir, { groups }) },
      });
      expect((await outcome(config, { lastGood: { "okta:00g7old": 2 } })).code).toBe(5);
      expect((await outcome(config)).code).toBe(4);
    });
  });
});

describe("Entra", () => {
  it("a rule's group Graph does not have (404): 4, or 5 when the last run saw it with members", async () => {
    const gone = "99999999-0000-4000-8000-000000000000";
    const config = configSchema.parse({
      source: {
        type: "entra",
        entra: entraSettings(graph.url, { groups: [{ objectId: EG.allStaff }, { objectId: gone }] }),
      },
    });
    const r = await judged(config, `entra:${gone}`, { USERSYNC_ENTRA_CLIENT_SECRET: SECRET });
    expectOneRule(r, `entra:${gone}`);
    expect(r.noState.message).toMatch(
      /404 Request_ResourceNotFound.*check source.entra.groups\[1\].objectId/,
    );
  });
});
