/**
 * Listing against the emulator over a real socket: every user exactly once, with groups, in the
 * minimum number of requests for the page size. Page size 1 lists 2,000 users (10,000 single-item
 * requests would take most of this file's time budget); the other sizes list 10,000.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorSeed } from "../../src/emulator/types.js";
import { AnswerError } from "../../src/errors.js";
import { createClient } from "../../src/service/index.js";
import { USER_RESOURCE } from "../../src/service/answers.js";
import { listAllPages } from "../../src/service/paging.js";
import type { Transport } from "../../src/service/transport.js";
import { TEST_TOKEN, withEmulatorClient, type EmulatorClientEnv } from "../helpers/env.js";

const GROUPS = ["g0", "g1", "g2", "g3", "g4"];

function seedOf(users: number): EmulatorSeed {
  return {
    groups: GROUPS.map((id) => ({ id, name: id.toUpperCase() })),
    mappings: Array.from({ length: users }, (_, i) => ({
      id: `u${String(i).padStart(5, "0")}`,
      authenticationId: `auth-${i}`,
      groups: i % 3 === 0 ? [] : [GROUPS[i % 5]!, GROUPS[(i + 1) % 5]!],
    })),
  };
}

function expectedGroups(i: number): string[] {
  return i % 3 === 0 ? [] : [GROUPS[i % 5]!, GROUPS[(i + 1) % 5]!].sort();
}

describe("listMappings paging", () => {
  let env: EmulatorClientEnv;
  beforeAll(async () => {
    env = await withEmulatorClient({
      emulator: { mapTokenOwners: false, seed: seedOf(10_000) },
      client: { profile: "v1" },
    });
  });
  afterAll(async () => {
    await env.close();
  });

  it.each([
    { size: 1, users: 2_000 },
    { size: 7, users: 10_000 },
    { size: 100, users: 10_000 },
    { size: 1000, users: 10_000 },
  ])(
    "page size $size lists $users users once each, with groups, in the minimum requests",
    async ({ size, users }) => {
      // Page size 1 runs against its own, smaller store (see the file comment).
      const own =
        users === 10_000
          ? undefined
          : await withEmulatorClient({
              emulator: { mapTokenOwners: false, seed: seedOf(users) },
              client: { profile: "v1" },
            });
      const emulator = own?.emulator ?? env.emulator;
      const client = await createClient({
        baseUrl: emulator.url,
        token: TEST_TOKEN,
        profile: "v1",
        pageSize: size,
        requestsPerSecond: 0,
        concurrency: 16,
      });
      try {
        emulator.resetLog();
        const mappings = await client.listMappings();
        expect(mappings).toHaveLength(users);
        expect(new Set(mappings.map((m) => m.id)).size).toBe(users);
        for (const m of mappings) {
          const i = Number(m.id.slice(1));
          expect(m.groups).toEqual(expectedGroups(i));
          expect(m.authenticationId).toBe(`auth-${i}`);
        }
        const log = emulator.requestLog();
        expect(log).toHaveLength(Math.ceil(users / size));
        expect(client.stats().requests).toBe(Math.ceil(users / size));
        const first = new URL(log[0]!.url, "http://x").searchParams;
        expect(first.get("include")).toBe("userGroups");
        expect(first.get("metaInclude")).toBe("page");
        expect(first.get("sort")).toBe("id");
        expect(first.get("size")).toBe(String(size));
      } finally {
        await client.close();
        await own?.close();
      }
    },
  );

  it("lists groups with parents", async () => {
    const own = await withEmulatorClient({
      emulator: {
        seed: {
          groups: [{ id: "a" }, { id: "b", name: "B", parents: ["a"] }, { id: "c", parents: ["b", "a"] }],
        },
      },
      client: { profile: "v1", pageSize: 2 },
    });
    try {
      expect(await own.client.listGroups()).toEqual([
        { id: "a", parents: [] },
        { id: "b", name: "B", parents: ["a"] },
        { id: "c", parents: ["a", "b"] },
      ]);
      expect(
        own.emulator.requestLog().filter((e) => e.url.startsWith("/api/v1/entities/userGroups")),
      ).toHaveLength(2);
    } finally {
      await own.close();
    }
  });
});

describe("listAllPages without a total (unit, scripted transport)", () => {
  /** Pages of ids without `meta`, each with a `links.next` as the real service sends even on the last page. */
  function scripted(total: number) {
    const asked: number[] = [];
    const transport = {
      request: async ({ path }: { path: string }) => {
        const q = new URL(path, "http://x").searchParams;
        const page = Number(q.get("page"));
        const size = Number(q.get("size"));
        asked.push(page);
        const ids = Array.from({ length: total }, (_, i) => `id${i}`).slice(page * size, page * size + size);
        return {
          status: 200,
          json: { data: ids.map((id) => ({ id, type: "user" })), links: { next: `next?page=${page + 1}` } },
        };
      },
      reread: async () => {},
    } as unknown as Transport;
    return { transport, asked };
  }

  it("reads pages one by one and stops on a short page", async () => {
    const s = scripted(23);
    const list = await listAllPages({ transport: s.transport, path: "/p", pageSize: 5, item: USER_RESOURCE });
    expect(list.map((r) => r.id)).toEqual(Array.from({ length: 23 }, (_, i) => `id${i}`));
    expect(s.asked).toEqual([0, 1, 2, 3, 4]);
  });

  it("needs one empty page when the total is a multiple of the page size", async () => {
    const s = scripted(10);
    const list = await listAllPages({ transport: s.transport, path: "/p", pageSize: 5, item: USER_RESOURCE });
    expect(list).toHaveLength(10);
    expect(s.asked).toEqual([0, 1, 2]);
  });
});

describe("listAllPages accepts only a whole listing (unit, scripted pages)", () => {
  type Body = { data: Array<{ id: string; type: string }>; meta?: { page: Record<string, number> } };
  /** `answer(read, page)`: the body of `page` during the read-th reading of the listing (1-based). */
  function scripted(answer: (read: number, page: number) => Body) {
    let read = 1;
    const asked: string[] = [];
    const rereads: string[] = [];
    const transport = {
      request: async ({ path }: { path: string }) => {
        const page = Number(new URL(path, "http://x").searchParams.get("page"));
        asked.push(`${read}:${page}`);
        return { status: 200, json: answer(read, page) };
      },
      reread: async (o: { problem: string }) => {
        rereads.push(o.problem);
        read += 1;
      },
    } as unknown as Transport;
    const list = () => listAllPages({ transport, path: "/p", pageSize: 2, item: USER_RESOURCE });
    return { list, asked, rereads };
  }
  const users = (...ids: string[]) => ids.map((id) => ({ id, type: "user" }));
  const page = (number: number, totalElements: number, ...ids: string[]): Body => ({
    data: users(...ids),
    meta: { page: { number, size: 2, totalElements, totalPages: Math.ceil(totalElements / 2) } },
  });
  const whole = ["a", "b", "c", "d", "e"];
  const honest = (p: number) => page(p, 5, ...whole.slice(p * 2, p * 2 + 2));

  it("reads exactly the pages the totals say, concurrently after the first", async () => {
    const s = scripted((_, p) => honest(p));
    expect((await s.list()).map((r) => r.id)).toEqual(whole);
    expect(s.asked).toEqual(["1:0", "1:1", "1:2"]);
  });

  it("reads again when an object created while listing shifted the pages, and believes the read that adds up", async () => {
    // First read: "a0" is created after page 0 was read, so page 1 reports 6 items and repeats b.
    const s = scripted((read, p) =>
      read === 1 && p > 0
        ? page(p, 6, ...["a", "a0", "b", "c", "d", "e"].slice(p * 2, p * 2 + 2))
        : honest(p),
    );
    expect((await s.list()).map((r) => r.id)).toEqual(whole);
    expect(s.rereads).toEqual([
      "page=1 says 6 items in 3 pages, page=0 said 5 items in 3 pages: the collection changed while it was listed",
    ]);
  });

  it.each([
    {
      name: "an id listed twice",
      answer: (p: number) => (p === 1 ? page(1, 5, "b", "c") : honest(p)),
      problem: "b is listed twice (page=0 and page=1)",
    },
    {
      name: "an empty last page",
      answer: (p: number) => (p === 2 ? page(2, 5) : honest(p)),
      problem: "page=2 has 0 items, expected 1 (the last page holds the rest; 5 items in 3 pages of 2)",
    },
    {
      name: "totals that do not agree",
      answer: (): Body => ({
        data: users("a", "b"),
        meta: { page: { number: 0, size: 2, totalElements: 5, totalPages: 2 } },
      }),
      problem: "page=0 says 5 items in 2 pages of 2, which do not agree",
    },
    {
      name: "an empty last page when only the page count is told",
      answer: (p: number): Body => ({
        data: p === 0 ? users("a", "b") : [],
        meta: { page: { number: p, size: 2, totalPages: 2 } },
      }),
      problem: "page=1 has 0 items, expected 1 to 2 (the last page holds the rest; 2 pages of 2)",
    },
    {
      name: "a page answered for another",
      answer: (p: number) => honest(p === 2 ? 1 : p),
      problem: "page=2 answered as page 1",
    },
    {
      name: "more items than the page size",
      answer: (p: number) => (p === 0 ? { ...honest(0), data: users("a", "b", "c") } : honest(p)),
      problem: "page=0 has 3 items, more than its size 2",
    },
  ])("refuses $name after reading it 3 times", async ({ answer, problem }) => {
    const s = scripted((_, p) => answer(p));
    const err = await s.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnswerError);
    expect((err as AnswerError).message).toBe(
      `GET /p: the pages do not add up: ${problem}; read 3 times, the listing never added up, so it cannot be proven whole`,
    );
    expect(s.rereads).toEqual([problem, problem]);
  });

  it("does not fetch the pages of an absurd total", async () => {
    const s = scripted(() => page(0, 2_000_000_000, "a", "b"));
    const err = await s.list().catch((e: unknown) => e);
    expect((err as AnswerError).problem).toMatch(/page=0 says 2000000000 items, more than 10000000/);
    expect(s.asked).toEqual(["1:0", "2:0", "3:0"]);
  });
});
