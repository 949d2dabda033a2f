import { describe, expect, it } from "vitest";
import { SourceIncompleteError } from "../../../src/desired/sources/errors.js";
import { readAll, redactLink, Tally, type PageRule } from "../../../src/desired/sources/pages.js";

interface Body {
  value: { id: string }[];
  next?: string;
  count?: number;
}
const rule: PageRule<Body> = {
  items: (b) => b.value,
  next: (b) => b.next,
  announced: (b) => b.count,
  idOf: (item) => (item as { id: string }).id,
};

/** A directory of pages by URL: what the server would answer. */
function served(pagesByUrl: Record<string, Body>) {
  const asked: string[] = [];
  const get = async (url: string) => {
    asked.push(url);
    const body = pagesByUrl[url];
    if (!body) throw new Error(`no page ${url}`);
    return { body, headers: {} };
  };
  return { get, asked };
}

const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: `u${from + i}` }));

describe("pages: following a directory's listing to its end, and proving it", () => {
  it("follows each next link verbatim, counts pages and rows, and matches the announced count", async () => {
    const s = served({
      "https://d/x": { value: ids(0, 3), next: "https://d/x?$skiptoken=AAA", count: 7 },
      "https://d/x?$skiptoken=AAA": { value: ids(3, 3), next: "https://d/x?$skiptoken=B%2FB" },
      "https://d/x?$skiptoken=B%2FB": { value: ids(6, 1) },
    });
    const { items, tally } = await readAll({
      first: "https://d/x",
      rule,
      get: s.get,
      tally: new Tally("people"),
    });
    expect(items).toHaveLength(7);
    expect(tally).toEqual({ what: "people", pages: 3, announced: 7, read: 7 });
    expect(s.asked).toEqual(["https://d/x", "https://d/x?$skiptoken=AAA", "https://d/x?$skiptoken=B%2FB"]);
  });

  it("refuses a next link it already followed (a loop) and names the read", async () => {
    const s = served({
      "https://d/x": { value: ids(0, 2), next: "https://d/x?$skiptoken=1" },
      "https://d/x?$skiptoken=1": { value: ids(2, 2), next: "https://d/x?$skiptoken=1" },
    });
    const err = await readAll({
      first: "https://d/x",
      rule,
      get: s.get,
      tally: new Tally("members of Sales"),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceIncompleteError);
    expect((err as Error).message).toMatch(
      /^members of Sales: page 3's link was already followed \(a paging loop\)/,
    );
    expect((err as Error).message).not.toContain("=1");
  });

  it("refuses rows that do not add up to the announced count", async () => {
    const s = served({
      "https://d/x": { value: ids(0, 2), next: "https://d/x?p=2", count: 5 },
      "https://d/x?p=2": { value: ids(2, 2) },
    });
    await expect(
      readAll({ first: "https://d/x", rule, get: s.get, tally: new Tally("people") }),
    ).rejects.toThrow(/the server announced 5 and 4 were read over 2 pages/);
  });

  it("refuses an announced count that changes between pages, and an id listed twice", async () => {
    const changed = served({
      "https://d/x": { value: ids(0, 2), next: "https://d/x?p=2", count: 4 },
      "https://d/x?p=2": { value: ids(2, 2), count: 5 },
    });
    await expect(
      readAll({ first: "https://d/x", rule, get: changed.get, tally: new Tally("people") }),
    ).rejects.toThrow(/announced count changed from 4 to 5 on page 2/);
    const twice = served({
      "https://d/x": { value: ids(0, 2), next: "https://d/x?p=2" },
      "https://d/x?p=2": { value: ids(1, 2) },
    });
    await expect(
      readAll({ first: "https://d/x", rule, get: twice.get, tally: new Tally("people") }),
    ).rejects.toThrow(/u1 is listed on page 1 and again on page 2/);
  });

  it("stops a listing that never ends at the page bound", async () => {
    let n = 0;
    const get = async () => ({
      body: { value: [{ id: `u${n}` }], next: `https://d/x?p=${++n}` },
      headers: {},
    });
    await expect(
      readAll({ first: "https://d/x", rule, get, tally: new Tally("people", 50) }),
    ).rejects.toThrow(/more than 50 pages/);
    expect(n).toBe(51);
  });

  it("an empty listing is whole when nothing was announced otherwise", async () => {
    const s = served({ "https://d/x": { value: [], count: 0 } });
    const { tally } = await readAll({ first: "https://d/x", rule, get: s.get, tally: new Tally("people") });
    expect(tally).toEqual({ what: "people", pages: 1, announced: 0, read: 0 });
  });

  it("redacts a link to its path and parameter names", () => {
    expect(redactLink("https://graph.example/v1.0/groups?$skiptoken=SECRETISH&$top=999")).toBe(
      "https://graph.example/v1.0/groups?$skiptoken=…&$top=…",
    );
    expect(redactLink("not a url")).toBe("(not a URL)");
  });
});
