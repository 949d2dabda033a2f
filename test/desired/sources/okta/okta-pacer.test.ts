/**
 * The Okta pacer on a simulated quota (no sockets, no real waits): it spends at most the share
 * headroom leaves of each window, pauses for the reset measured against the answers' `Date`
 * (the local clock here is a day off), and refuses pauses past the run's budget. Then over a
 * real socket, through DirectoryHttp, against the Okta stand-in whose rate-limit families reset
 * at different moments while another integration spends part of each: no 429 of the run's own
 * making, the share left to others in every window of every family, and a 429 the others caused
 * waited out until that family's reset, while the other families go on.
 */
import { describe, expect, it } from "vitest";
import { DirectoryHttp } from "../../../../src/desired/sources/directory-http.js";
import { OktaPacer } from "../../../../src/desired/sources/okta/pacer.js";
import { oktaRateFamily } from "../../../../src/desired/sources/okta/rate-families.js";
import { makeDirectory, oktaGroupId } from "../../../../src/emulator/okta/directory.js";
import { startOktaStandIn, type OktaStandIn } from "../../../../src/emulator/okta/server.js";
import type { QuotaOptions } from "../../../../src/emulator/okta/types.js";

const DAY = 86_400_000;

/** A fixed-window quota on the server's clock, which the test advances by the pacer's sleeps. */
function simulated(o: { limit: number; windowMs: number; headroom: number; maxWaitMs?: number }) {
  let server = Date.parse("2026-11-25T12:00:10Z");
  let local = server - DAY; // the local clock is a day behind: only Date may be trusted
  let used = 0;
  let windowStart = Math.floor(server / o.windowMs) * o.windowMs;
  const pauses: number[] = [];
  const pacer = new OktaPacer({
    headroom: o.headroom,
    maxWaitMs: o.maxWaitMs ?? 60_000,
    now: () => local,
    sleep: async (ms) => {
      pauses.push(ms);
      server += ms;
      local += ms;
    },
    tooLong: (ms) => new Error(`too long: ${ms}`),
  });
  const request = async (): Promise<number> => {
    await pacer.beforeRequest();
    const start = Math.floor(server / o.windowMs) * o.windowMs;
    if (start !== windowStart) [windowStart, used] = [start, 0];
    const ok = used < o.limit;
    if (ok) used++;
    pacer.observe({
      status: ok ? 200 : 429,
      headers: {
        date: new Date(Math.floor(server / 1000) * 1000).toUTCString(),
        "x-rate-limit-limit": String(o.limit),
        "x-rate-limit-remaining": String(o.limit - used),
        "x-rate-limit-reset": String((windowStart + o.windowMs) / 1000),
      },
    });
    return ok ? 200 : 429;
  };
  return { pacer, request, pauses, usedNow: () => used };
}

describe("OktaPacer", () => {
  it("spends half of each window, then pauses until the reset the Date header implies", async () => {
    const s = simulated({ limit: 20, windowMs: 60_000, headroom: 0.5 });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push(await s.request());
    expect(s.pauses).toEqual([]);
    expect(s.usedNow()).toBe(10);
    statuses.push(await s.request()); // the 11th waits for the next window
    expect(s.pauses).toHaveLength(1);
    // 12:00:10 + 10 requests in no time: the window ends at 12:01:00, 50 s away (plus < 100 ms jitter).
    expect(s.pauses[0]).toBeGreaterThanOrEqual(50_000);
    expect(s.pauses[0]).toBeLessThan(50_100);
    expect(statuses.every((x) => x === 200)).toBe(true);
    expect(s.pacer.stats).toMatchObject({ pauses: 1, refused: 0 });
  });

  it("with 0% headroom spends the whole window and still meets no 429", async () => {
    const s = simulated({ limit: 5, windowMs: 1000, headroom: 0 });
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push(await s.request());
    expect(statuses.filter((x) => x === 429)).toEqual([]);
    expect(s.pauses).toHaveLength(2);
  });

  it("stops when the pauses would pass the run's budget", async () => {
    const s = simulated({ limit: 4, windowMs: 60_000, headroom: 0.5, maxWaitMs: 30_000 });
    await s.request();
    await s.request();
    await expect(s.request()).rejects.toThrow(/too long/);
  });

  it("frees the place of a request that got no answer", async () => {
    const pacer = new OktaPacer({
      headroom: 0.5,
      maxWaitMs: 1000,
      now: Date.now,
      sleep: async () => {},
      tooLong: () => new Error("too long"),
    });
    await pacer.beforeRequest();
    pacer.settled();
    await pacer.beforeRequest(); // would wait for ever if the first place were still taken
    pacer.settled();
  });

  it("does not serialise the reads when answers carry no rate-limit headers", async () => {
    const pacer = new OktaPacer({
      headroom: 0.5,
      maxWaitMs: 1000,
      now: Date.now,
      sleep: async () => {},
      tooLong: () => new Error("too long"),
    });
    await pacer.beforeRequest();
    pacer.observe({ status: 200, headers: {} });
    await pacer.beforeRequest();
    await pacer.beforeRequest(); // a second one at once: nothing to wait for
  });
});

const TOKEN = "ssws-pacer-test";
const MEMBERS = "/api/v1/groups/{id}/users";
const GROUPS = "/api/v1/groups";

/** A stand-in of 40 people in 2 groups, and a DirectoryHttp paced by an OktaPacer at `headroom`. */
async function pacedRead(quota: QuotaOptions, headroom: number) {
  const okta = await startOktaStandIn({
    ...makeDirectory({ people: 40, groups: 2 }),
    apiTokens: [TOKEN],
    quota,
    clockSkewMs: -3_600_000, // the stand-in's clock an hour behind: only Date may be trusted
  });
  const pauses: { ms: number; why: string; at: number }[] = [];
  const pacer = new OktaPacer({
    headroom,
    maxWaitMs: 30_000,
    now: Date.now,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    tooLong: (ms) => new Error(`too long: ${ms}`),
    onPause: (ms, why) => pauses.push({ ms, why, at: Date.now() }),
  });
  const http = new DirectoryHttp({
    directory: "Okta",
    origin: okta.url,
    authorize: async () => `SSWS ${TOKEN}`,
    concurrency: 4,
    pacer,
  });
  /** Every member of a group, in pages of `limit`, following Link rel=next. */
  const members = async (group: number, limit: number): Promise<string[]> => {
    const ids: string[] = [];
    let link: string | undefined = `${okta.url}/api/v1/groups/${oktaGroupId(group)}/users?limit=${limit}`;
    while (link) {
      const answer: { body: { id: string }[]; headers: Record<string, string> } = await http.get<
        { id: string }[]
      >(link, `members of ${group}`);
      ids.push(...answer.body.map((u) => u.id));
      link = /<([^>]+)>; rel="next"/.exec(answer.headers["link"] ?? "")?.[1];
    }
    return ids;
  };
  const close = async () => {
    await http.close();
    await okta.close();
  };
  return { okta, pacer, http, pauses, members, close };
}

/** What the run itself spent in a window, beside what the others spent. */
const ours = (w: OktaStandIn["quota"]["windows"][number]) => w.used - w.spentByOthers;

describe("OktaPacer over a socket, per rate-limit family", () => {
  it("names the families as Okta documents its buckets", () => {
    expect(oktaRateFamily("/api/v1/groups?search=x&limit=10000")).toBe(GROUPS);
    expect(oktaRateFamily("https://o.okta.com/api/v1/groups/00g1")).toBe("/api/v1/groups/{id}");
    expect(oktaRateFamily("/api/v1/groups/00g1/users?after=00u2")).toBe(MEMBERS);
    expect(oktaRateFamily("/api/v1/users")).toBe("/api/v1/users");
    expect(oktaRateFamily("/api/v1/users/00u1")).toBe("/api/v1/users/{id}");
    expect(oktaRateFamily("/api/v1/schemas/user/default")).toBe("/api/v1");
  });

  it("meets no 429 of its own making when families reset at different moments and another integration spends part of each", async () => {
    const s = await pacedRead(
      {
        limit: 10,
        windowSeconds: 1,
        // The groups family has room and a later reset; the members' windows reset at the half
        // second, and another integration takes 6 of their 10 as each opens.
        families: { [GROUPS]: { limit: 30, windowSeconds: 3 }, [MEMBERS]: { offsetSeconds: 0.5 } },
        others: { [MEMBERS]: 0.6 },
      },
      0.5,
    );
    try {
      // Both families at once: 6 group listings beside 6 member pages (3 a group).
      const listings = (async () => {
        for (let i = 0; i < 6; i++) await s.http.get(`${s.okta.url}/api/v1/groups?limit=1`, "groups");
      })();
      await new Promise((r) => setTimeout(r, 50));
      const [a, b] = await Promise.all([s.members(0, 7), s.members(1, 7), listings]);
      expect(a).toHaveLength(20);
      expect(b).toHaveLength(20);
      expect(s.okta.refused).toBe(0);
      expect(s.pacer.stats.refused).toBe(0);
      const windows = s.okta.quota.windows.filter((w) => ours(w) > 0);
      const resets = (family: string) =>
        new Set(windows.filter((w) => w.family === family).map((w) => w.end % 1000));
      expect(resets(MEMBERS)).toEqual(new Set([500]));
      expect(resets(GROUPS)).toEqual(new Set([0]));
      expect(windows.filter((w) => w.family === MEMBERS).reduce((n, w) => n + ours(w), 0)).toBe(6);
      for (const w of windows) {
        // Of what the others left as the window opened, the run spent at most half (headroom 50%).
        const left = w.limit - w.spentByOthers;
        expect(w.spentByOthers, `${w.family} at ${w.start}`).toBe(w.family === MEMBERS ? 6 : 0);
        expect(ours(w), `${w.family} at ${w.start}`).toBeLessThanOrEqual(left / 2);
        expect(w.limit - w.used).toBeGreaterThanOrEqual(left / 2);
      }
      expect(s.pauses.some((p) => p.why.includes(MEMBERS))).toBe(true);
    } finally {
      await s.close();
    }
  }, 30_000);

  it("waits out a 429 the others caused until that family's reset, lets the other families go on, and reads whole", async () => {
    const s = await pacedRead({ limit: 10, windowSeconds: 2 }, 0.5);
    try {
      // The others spend the members' window just as the run's first member page arrives.
      s.okta.addFault({ match: /\/users\?/, kind: 429, times: 1 });
      let listedDuringPause: Promise<number> | undefined;
      const read = s.members(0, 10);
      // While the members family waits, a groups listing is not held up.
      const poll = setInterval(() => {
        if (listedDuringPause || s.pauses.length === 0) return;
        listedDuringPause = s.http
          .get(`${s.okta.url}/api/v1/groups?limit=1`, "groups")
          .then(() => Date.now());
      }, 5);
      const ids = await read;
      clearInterval(poll);
      expect(ids).toHaveLength(20);
      expect(s.okta.refused).toBe(1);
      expect(s.pacer.stats.refused).toBe(1);
      // No run-wide pause on top of the family's: the pacer waited out the 429.
      expect(s.http.throttled).toBe(1);
      expect(s.http.throttledMs).toBe(0);
      expect(s.pauses).toHaveLength(1);
      expect(s.pauses[0]!.why).toContain(MEMBERS);
      const spent = s.okta.quota.windows.find((w) => w.family === MEMBERS && w.refused === 1)!;
      const refusedAt = s.okta.requests.findIndex((r) => r.status === 429);
      const retry = s.okta.requests.slice(refusedAt + 1).find((r) => r.url.includes("/users"))!;
      // The retry came after that family's window ended (request times are local; the stand-in's clock is an hour behind).
      expect(retry.at - 3_600_000).toBeGreaterThanOrEqual(spent.end);
      expect(retry.status).toBe(200);
      expect(listedDuringPause).toBeDefined();
      expect(await listedDuringPause!).toBeLessThan(retry.at);
    } finally {
      await s.close();
    }
  }, 30_000);
});
