/** Desired users kept small (issue 33): shared group lists, one key order, and no YAML aliases. */
import { describe, expect, test } from "vitest";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readDesiredState, renderDesiredYaml } from "../../src/desired/index.js";
import { withTempDir } from "../e2e/run-cli.js";

const CSV = [
  "email,id,displayName,firstname,groups",
  "a@example.com,a,Ann,,sales;all",
  "b@example.com,b,Bob,,all;sales",
  "c@example.com,c,,Cid,all;sales",
  "d@example.com,d,Dee,,",
].join("\n");

describe("CSV rows as compact records", () => {
  test("rows with the same groups share one frozen list; keys keep their order", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "users.csv");
      await writeFile(file, CSV);
      const { state, problems } = await readDesiredState({ file });
      expect(problems.filter((p) => p.severity === "error")).toEqual([]);
      const [a, b, c, d] = state.users;
      expect(a!.groups).toEqual(["all", "sales"]);
      expect(b!.groups).toBe(a!.groups);
      expect(c!.groups).toBe(a!.groups);
      expect(Object.isFrozen(a!.groups)).toBe(true);
      expect(d!.groups).toEqual([]);
      const base = ["email", "id", "idDerived", "identity", "state", "source"];
      expect(Object.keys(a!)).toEqual([...base, "displayName", "groups"]);
      expect(Object.keys(c!)).toEqual([...base, "firstname", "groups"]);
      expect(a!.source).toEqual({ file, line: 2 });
      // A shared list is written out in full, not as a YAML anchor and aliases.
      const yaml = renderDesiredYaml(state);
      expect(yaml).not.toMatch(/[&*]a\d/);
      expect(yaml.match(/- sales/g)).toHaveLength(3);
    });
  });
});
