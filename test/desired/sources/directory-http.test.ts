/**
 * DirectoryHttp against a real local server: what each kind of answer does, with exact request
 * counts; waits are captured, not waited for.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DirectoryHttp, type DirectoryHttpOptions } from "../../../src/desired/sources/directory-http.js";
import { DirectoryHttpError, SourceIncompleteError } from "../../../src/desired/sources/errors.js";
import { exitCodeFor, SourceUnavailableError } from "../../../src/errors.js";

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;
let handler: Handler = () => {};
const seen: { url: string; authorization: string | undefined }[] = [];
const server = createServer((req, res) => {
  seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
  handler(req, res, seen.length);
});
let origin = "";

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  seen.length = 0;
});

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

/** Waits are captured and pass on a virtual clock, not waited for. */
function client(o: Partial<DirectoryHttpOptions> = {}) {
  const waits: number[] = [];
  let clock = 1_000_000;
  const http = new DirectoryHttp({
    directory: "Test Directory",
    origin,
    authorize: async () => "Bearer sekret-token",
    retries: 2,
    sleep: async (ms) => {
      waits.push(ms);
      clock += ms;
    },
    now: () => clock,
    random: () => 0.5,
    ...o,
  });
  return { http, waits };
}

describe("DirectoryHttp", () => {
  it("answers the parsed JSON, sends the authorization it is given", async () => {
    handler = (_req, res) =>
      json(res, 200, { value: [1, 2] }, { "content-type": "application/json;odata.metadata=minimal" });
    const { http } = client();
    const a = await http.get<{ value: number[] }>(`${origin}/v1.0/groups?$top=999`, "groups");
    expect(a.body.value).toEqual([1, 2]);
    expect(seen).toEqual([{ url: "/v1.0/groups?$top=999", authorization: "Bearer sekret-token" }]);
    await http.close();
  });

  it("a throttled answer pauses every later request, not only its own (run-wide)", async () => {
    handler = (req, res, n) =>
      req.url === "/a" && n === 1
        ? json(res, 429, { error: { code: "TooManyRequests" } }, { "retry-after": "30" })
        : json(res, 200, {});
    const waits: number[] = [];
    let clock = 1_000_000;
    let b: Promise<unknown> | undefined;
    const http: DirectoryHttp = new DirectoryHttp({
      directory: "Test Directory",
      origin,
      // While /a waits out its 429, /b is asked for: it must wait too, though it was never throttled.
      sleep: async (ms) => {
        waits.push(ms);
        if (b === undefined) await (b = http.get(`${origin}/b`, "b"));
        clock += ms;
      },
      now: () => clock,
    });
    await http.get(`${origin}/a`, "a");
    expect(seen.map((s) => s.url)).toEqual(["/a", "/b", "/a"]);
    expect(waits).toEqual([30_000, 30_000]);
    expect(http.throttled).toBe(1);
    await http.close();
  });

  it("throttling past the run's budget is a read not whole: exit 5, naming the read", async () => {
    handler = (_req, res) => json(res, 503, {}, { "retry-after": "4" });
    const { http } = client({ maxThrottleWaitMs: 10_000 });
    const err = await http.get(`${origin}/x`, "members of group Sales").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceIncompleteError);
    expect(exitCodeFor(err)).toBe(5);
    expect((err as Error).message).toMatch(/^members of group Sales: Test Directory kept throttling \(503\)/);
    expect(seen.length).toBe(3);
    await http.close();
  });

  it("retries a broken page (HTML, JSON cut short) and a 500, then gives up with exit 5", async () => {
    handler = (_req, res, n) => {
      if (n === 1) {
        res.writeHead(200, { "content-type": "text/html" });
        return res.end("<html>gateway</html>");
      }
      if (n === 2) {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end('{"value": [1, 2');
      }
      return json(res, 200, { value: [] });
    };
    const { http, waits } = client();
    expect((await http.get<{ value: unknown[] }>(`${origin}/p`, "page")).body.value).toEqual([]);
    expect(seen.length).toBe(3);
    expect(waits.length).toBe(2);

    seen.length = 0;
    handler = (_req, res) => json(res, 500, { error: { code: "InternalServerError" } });
    const err = await http.get(`${origin}/p`, "page").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceUnavailableError);
    expect((err as Error).message).toMatch(/page: Test Directory answered 500 to .*\/p 3 times/);
    expect(seen.length).toBe(3);
    await http.close();
  });

  it("a 403 is not retried: a DirectoryHttpError with the parsed body, for the reader to name the fix", async () => {
    const body = { error: { code: "Authorization_RequestDenied", message: "Insufficient privileges" } };
    handler = (_req, res) => json(res, 403, body);
    const { http } = client();
    const err = await http.get(`${origin}/v1.0/groups?$filter=x`, "groups").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DirectoryHttpError);
    expect((err as DirectoryHttpError).status).toBe(403);
    expect((err as DirectoryHttpError).body).toEqual(body);
    expect((err as DirectoryHttpError).path).toBe(`${origin}/v1.0/groups?$filter=…`);
    expect(seen.length).toBe(1);
    await http.close();
  });

  it("never follows a link to another origin: the token stays with its directory", async () => {
    const { http } = client();
    const err = await http.get("https://elsewhere.example/v1.0/groups", "groups").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceIncompleteError);
    expect((err as Error).message).toContain("not followed");
    expect(seen.length).toBe(0);
    await http.close();
  });

  it("lets a pacer wait before each request and see each answer's headers", async () => {
    handler = (_req, res) => json(res, 200, {}, { "x-rate-limit-remaining": "7" });
    const events: string[] = [];
    const { http } = client({
      pacer: {
        beforeRequest: async () => void events.push("before"),
        observe: (a) => void events.push(`seen ${a.headers["x-rate-limit-remaining"]}`),
      },
    });
    await http.get(`${origin}/a`, "a");
    await http.get(`${origin}/b`, "b");
    expect(events).toEqual(["before", "seen 7", "before", "seen 7"]);
    await http.close();
  });

  it("a directory that cannot be reached is exit 5 after the retries", async () => {
    const http = new DirectoryHttp({
      directory: "Test Directory",
      origin: "http://127.0.0.1:9",
      retries: 1,
      sleep: async () => {},
    });
    const err = await http.get("http://127.0.0.1:9/x", "groups").catch((e: unknown) => e);
    expect(exitCodeFor(err)).toBe(5);
    await http.close();
  });

  describe("a token refused mid-read", () => {
    /** A token provider minting `token-1`, `token-2`, …; `renew` mints once per refused token. */
    function tokens() {
      let n = 1;
      const renewed: string[] = [];
      return {
        renewed,
        authorize: async () => `Bearer token-${n}`,
        renew: async (refused: string) => {
          renewed.push(refused);
          if (refused === `Bearer token-${n}`) n += 1;
        },
      };
    }
    /** Accepts any token but `refuse`; `/first` always answers 200. */
    const serve =
      (refuse: (auth: string | undefined, url: string) => boolean): Handler =>
      (req, res) =>
        refuse(req.headers.authorization, req.url ?? "")
          ? json(res, 401, { errorCode: "E0000011", errorSummary: "Invalid token provided" })
          : json(res, 200, {});

    it("gets one fresh token and asks the page once more", async () => {
      const t = tokens();
      handler = serve((auth, url) => url === "/page" && auth === "Bearer token-1");
      const { http } = client({ authorize: t.authorize, renew: t.renew });
      await http.get(`${origin}/first`, "first");
      await http.get(`${origin}/page`, "page");
      expect(seen.map((r) => `${r.url} ${r.authorization}`)).toEqual([
        "/first Bearer token-1",
        "/page Bearer token-1",
        "/page Bearer token-2",
      ]);
      expect(t.renewed).toEqual(["Bearer token-1"]);
      expect(http.renewals).toBe(1);
      await http.close();
    });

    it("a fresh token refused too is a read not whole (exit 5); one renewal only", async () => {
      const t = tokens();
      handler = serve((_auth, url) => url === "/page");
      const { http } = client({ authorize: t.authorize, renew: t.renew });
      await http.get(`${origin}/first`, "first");
      const err = await http.get(`${origin}/page`, "page").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SourceIncompleteError);
      expect(exitCodeFor(err)).toBe(5);
      expect((err as Error).message).toMatch(/refused a fresh token too \(401/);
      expect(seen).toHaveLength(3);
      expect(t.renewed).toEqual(["Bearer token-1"]);
      await http.close();
    });

    it("a 401 before any answer was accepted is the credentials' (DirectoryHttpError), no renewal", async () => {
      const t = tokens();
      handler = serve(() => true);
      const { http } = client({ authorize: t.authorize, renew: t.renew });
      const err = await http.get(`${origin}/first`, "first").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DirectoryHttpError);
      expect(seen).toHaveLength(1);
      expect(t.renewed).toEqual([]);
      await http.close();
    });

    it("without a renew hook (an API token) a 401 mid-read stays the credentials'", async () => {
      handler = serve((_auth, url) => url === "/page");
      const { http } = client();
      await http.get(`${origin}/first`, "first");
      await expect(http.get(`${origin}/page`, "page")).rejects.toBeInstanceOf(DirectoryHttpError);
      expect(seen).toHaveLength(2);
      await http.close();
    });
  });
});
