/**
 * A target's slice of a shared source (issue 31): who is selected by group (and the groups below),
 * by a CSV column, and that a person or group of one organization never reaches another's slice,
 * whatever emails and ids they share.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readDesiredState, sliceDesired, type DesiredState } from "../../src/desired/index.js";

const at = { file: "people.yaml", line: 1 };
const user = (email: string, groups: string[]) => ({
  email,
  id: email.split("@")[0]!,
  idDerived: false,
  identity: "builtin" as const,
  state: "present" as const,
  groups,
  source: at,
});
const state: DesiredState = {
  files: ["people.yaml"],
  groups: [
    { id: "org-a", source: at },
    { id: "org-b", source: at },
    { id: "a-sales", parents: ["org-a"], source: at },
    { id: "a-sales-emea", parents: ["a-sales"], source: at },
    { id: "shared", source: at },
  ],
  users: [
    user("ann@x.com", ["a-sales-emea"]),
    user("bob@x.com", ["org-b"]),
    user("cy@x.com", ["org-a", "org-b", "shared"]),
    user("dee@x.com", ["shared"]),
  ],
};

describe("sliceDesired", () => {
  it("selects members of a group or any group below it, with their groups and parents", () => {
    const a = sliceDesired(state, { groups: ["org-a"] }, ["org-b"]);
    expect(a.users.map((u) => u.email)).toEqual(["ann@x.com", "cy@x.com"]);
    expect(a.groups.map((g) => g.id).sort()).toEqual(["a-sales", "a-sales-emea", "org-a", "shared"]);
    // cy is in both organizations: here without org-b, which is b's.
    expect(a.users[1]!.groups).toEqual(["org-a", "shared"]);
    const b = sliceDesired(state, { groups: ["org-b"] }, ["org-a"]);
    expect(b.users.map((u) => u.email)).toEqual(["bob@x.com", "cy@x.com"]);
    expect(b.groups.map((g) => g.id).sort()).toEqual(["org-b", "shared"]);
  });

  it("never shares objects between slices: changing one leaves the other and the source alone", () => {
    const a = sliceDesired(state, { groups: ["org-a"] });
    const b = sliceDesired(state, { groups: ["org-b"] });
    a.users[1]!.displayName = "changed in a";
    a.users[1]!.groups!.push("org-a-only");
    expect(b.users[1]!.displayName).toBeUndefined();
    expect(state.users[2]!.groups).toEqual(["org-a", "org-b", "shared"]);
  });

  it("keeps every person of A out of B, whatever ids and emails they share (random memberships)", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const rand = (n: number): number => ((seed * 9301 + n * 49297) % 233280) % 3;
      // Two people per id (different case of one email): each in org-a, org-b or both.
      const users = Array.from({ length: 30 }, (_, i) => {
        const r = rand(i);
        return user(`p${i % 10}@x.com`, r === 0 ? ["org-a"] : r === 1 ? ["org-b"] : ["org-a", "org-b"]);
      });
      const s: DesiredState = { ...state, users };
      const b = sliceDesired(s, { groups: ["org-b"] }, ["org-a"]);
      expect(b.users.every((u) => u.groups!.includes("org-b") && !u.groups!.includes("org-a"))).toBe(true);
      expect(b.users).toHaveLength(users.filter((u) => u.groups.includes("org-b")).length);
      expect(b.groups.some((g) => g.id.startsWith("org-a") || g.id.startsWith("a-"))).toBe(false);
    }
  });

  it("selects by a CSV column the reader keeps for it, and everyone with all", async () => {
    const dir = await mkdtemp(join(tmpdir(), "usersync-slice-"));
    try {
      const file = join(dir, "people.csv");
      await writeFile(file, "email,displayName,Tenant\nann@x.com,Ann,a\nbob@x.com,Bob,b\n");
      const read = await readDesiredState({ file, columns: ["tenant"] });
      expect(read.problems).toEqual([]);
      const a = sliceDesired(read.state, { column: { name: "tenant", value: "a" } });
      expect(a.users.map((u) => u.email)).toEqual(["ann@x.com"]);
      expect(sliceDesired(read.state, { all: true }).users).toHaveLength(2);
      // Without the selector the column is refused, as any unknown column.
      const plain = await readDesiredState({ file });
      expect(plain.problems.map((p) => p.rule)).toContain("unknown-column");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
