/** Data filters in the desired state: YAML and CSV forms, MAQL rendering, and values refused before anything is sent. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isNarrowing, managedFilterId, meaningOf, renderMaql, sameMeaning } from "../../src/data-filters.js";
import { readDesiredState } from "../../src/desired/index.js";
import { formatProblem } from "../../src/errors.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-filters-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function read(name: string, content: string) {
  const file = join(dir, name);
  await writeFile(file, content);
  const { state, problems } = await readDesiredState({ file });
  return { state, problems: problems.map((p) => formatProblem(p).replace(dir, "<dir>")) };
}

describe("MAQL", () => {
  test("a label and values render sorted, one value with =", () => {
    expect(renderMaql("region", ["EMEA", "APAC", "EMEA"])).toBe('{label/region} IN ("APAC", "EMEA")');
    expect(renderMaql("region", ["EMEA"])).toBe('{label/region} = "EMEA"');
  });
  test("meaning ignores order, spacing and case of IN; raw MAQL compares as folded text", () => {
    expect(sameMeaning('{label/region} IN ("EMEA","APAC")', '{label/region}  in ( "APAC", "EMEA" )')).toBe(
      true,
    );
    expect(sameMeaning('{label/region} = "EMEA"', '{label/region} IN ("EMEA")')).toBe(true);
    expect(sameMeaning('{label/region} = "EMEA"', '{label/country} = "EMEA"')).toBe(false);
    expect(meaningOf('{label/a} = "1" OR {label/b} = "2"')).toEqual({
      maql: '{label/a} = "1" OR {label/b} = "2"',
    });
  });
  test("fewer values of one label narrow; more values or another label widen", () => {
    expect(isNarrowing(renderMaql("r", ["A", "B"]), renderMaql("r", ["A"]))).toBe(true);
    expect(isNarrowing(renderMaql("r", ["A"]), renderMaql("r", ["A", "B"]))).toBe(false);
    expect(isNarrowing(renderMaql("r", ["A"]), renderMaql("s", ["A"]))).toBe(false);
  });
  test("the managed id is stable, within the id rule, and differs per workspace and assignee", () => {
    const a = managedFilterId("sales", { type: "user", id: "x".repeat(255) });
    expect(a).toMatch(/^usersync-[0-9a-f]{32}$/);
    expect(managedFilterId("sales", { type: "user", id: "jane" })).toBe(
      managedFilterId("sales", { type: "user", id: "jane" }),
    );
    expect(managedFilterId("sales", { type: "user", id: "jane" })).not.toBe(
      managedFilterId("sales", { type: "userGroup", id: "jane" }),
    );
    expect(managedFilterId("sales", { type: "user", id: "jane" })).not.toBe(
      managedFilterId("finance", { type: "user", id: "jane" }),
    );
  });
});

describe("reading", () => {
  test("YAML: label and values, raw maql, {} for managed-and-none", async () => {
    const { state, problems } = await read(
      "ok.yaml",
      `version: 1
allowEmpty: true
groups:
  - id: sales-emea
    dataFilters:
      sales-emea: {label: label/region, values: [EMEA, APAC]}
      finance: {maql: '{label/cc} = "100"'}
  - id: none
    dataFilters: {}
  - id: unmanaged
`,
    );
    expect(problems).toEqual([]);
    expect(state.groups.map((g) => g.dataFilters)).toEqual([
      [
        { workspace: "finance", maql: '{label/cc} = "100"' },
        {
          workspace: "sales-emea",
          maql: '{label/region} IN ("APAC", "EMEA")',
          label: "region",
          values: ["APAC", "EMEA"],
        },
      ],
      [],
      undefined,
    ]);
  });

  test("CSV: a dataFilters column in the style of workspaces", async () => {
    const { state, problems } = await read(
      "ok.csv",
      "email,groups,dataFilters\njoe@example.com,,sales-emea=region:EMEA+APAC; finance=cc:100\nann@example.com,,\n",
    );
    expect(problems).toEqual([]);
    expect(state.users.map((u) => u.dataFilters?.map((f) => `${f.workspace}: ${f.maql}`))).toEqual([
      ['finance: {label/cc} = "100"', 'sales-emea: {label/region} IN ("APAC", "EMEA")'],
      [],
    ]);
  });

  test("values that cannot be written safely, and malformed entries, are refused with where and why", async () => {
    const yaml = await read(
      "bad.yaml",
      `version: 1
users:
  - email: jane@example.com
    dataFilters:
      sales: {label: region, values: ['EM"EA', 'a\\\\b']}
      finance: {label: "{bad}", values: [x]}
      hr: {maql: x, label: y}
`,
    );
    expect(yaml.problems).toMatchInlineSnapshot(`
      [
        "<dir>/bad.yaml:4: users[0].dataFilters.finance.label: "{bad}" is not a label id (e.g. region, or label/region) [bad-label]",
        "<dir>/bad.yaml:4: users[0].dataFilters.hr: give either maql or label and values, not both [contradiction]",
        "<dir>/bad.yaml:4: users[0].dataFilters.sales.values: "EM\\"EA" holds a double quote ("): it cannot be written safely as a MAQL value; use raw maql, or fix the value [unsafe-filter-value]",
        "<dir>/bad.yaml:4: users[0].dataFilters.sales.values: "a\\\\\\\\b" holds a backslash: it cannot be written safely as a MAQL value; use raw maql, or fix the value [unsafe-filter-value]",
      ]
    `);
    const csv = await read(
      "bad.csv",
      "email,dataFilters\njoe@example.com,sales=EMEA; sales=region:A; x=r:\n",
    );
    expect(csv.problems).toMatchInlineSnapshot(`
      [
        "<dir>/bad.csv:2: dataFilters: "sales=EMEA" is not WORKSPACE=LABEL:VALUE+VALUE; write e.g. sales-emea=region:EMEA+APAC; finance=cost_center:100 [bad-data-filters]",
        "<dir>/bad.csv:2: dataFilters.values: must be a non-empty list of values, e.g. ["EMEA", "APAC"] [bad-type]",
      ]
    `);
  });
});
