/**
 * Listing against the emulator over a real socket: every user exactly once, with groups, in the
 * minimum number of requests for the page size. Page size 1 lists 2,000 users (10,000 single-item
 * requests would take most of this file's time budget); the other sizes list 10,000.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorSeed } from "../../src/emulator/types.js";
import { createClient } from "../../src/service/index.js";
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
    env = await withEmulatorClient({ emulator: { seed: seedOf(10_000) }, client: { profile: "v1" } });
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
          : await withEmulatorClient({ emulator: { seed: seedOf(users) }, client: { profile: "v1" } });
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
    } as unknown as Transport;
    return { transport, asked };
  }

  it("reads pages one by one and stops on a short page", async () => {
    const s = scripted(23);
    const list = await listAllPages({ transport: s.transport, path: "/p", pageSize: 5 });
    expect(list.map((r) => r.id)).toEqual(Array.from({ length: 23 }, (_, i) => `id${i}`));
    expect(s.asked).toEqual([0, 1, 2, 3, 4]);
  });

  it("needs one empty page when the total is a multiple of the page size", async () => {
    const s = scripted(10);
    const list = await listAllPages({ transport: s.transport, path: "/p", pageSize: 5 });
    expect(list).toHaveLength(10);
    expect(s.asked).toEqual([0, 1, 2]);
  });
});
