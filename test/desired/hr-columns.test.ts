/**
 * HR's file as it is (issue 49): `source.columns` maps its own header to the fields; groups are
 * referred to by name as well as id; start and end dates are read and checked.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isError, readDesiredState, resolveGroupNames, type ColumnMapping } from "../../src/desired/index.js";
import { formatProblem } from "../../src/errors.js";
import { configSchema } from "../../src/config/schema.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-hr-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HR = [
  "\uFEFFEmployee ID,Legal First Name,Preferred Name,Last Name,Work Email,Department,Start Date,Cost Center",
  "E100,Łukasz,,Wiśniewski,LUKASZ.W@ACME.EXAMPLE,People Operations,2026-12-01,CC1",
  "E101,Johnathan,John,Upper,john.upper@acme.example,Sales; Finance ,,CC2",
  "E102,Zoë,,Brontë,zoe@acme.example,sales,2026-12-40,CC3",
].join("\r\n");

const MAPPING: ColumnMapping = {
  id: "Employee ID",
  email: { from: "Work Email", lower: true },
  firstname: ["Preferred Name", "Legal First Name"],
  lastname: "Last Name",
  groups: { from: "Department", map: { "people operations": "people-ops", Finance: "finance" } },
  startDate: "Start Date",
};

async function read(content: string, mapping: ColumnMapping) {
  const file = join(dir, `hr-${Math.random().toString(36).slice(2)}.csv`);
  await writeFile(file, content);
  const result = await readDesiredState({ file, ...(Object.keys(mapping).length > 0 ? { mapping } : {}) });
  const errors = result.problems.filter(isError);
  return { ...result, lines: errors.map((p) => formatProblem(p).replace(file, "hr.csv")) };
}

describe("source.columns", () => {
  test("maps HR's columns: first non-empty, lower-case, a value map per list item; other columns ignored", async () => {
    const { state, lines } = await read(HR, MAPPING);
    const [lukasz, john] = state.users;
    expect(lukasz).toMatchObject({
      id: "E100",
      email: "lukasz.w@acme.example",
      firstname: "Łukasz",
      lastname: "Wiśniewski",
      groups: ["people-ops"],
      startDate: "2026-12-01",
    });
    expect(john).toMatchObject({
      id: "E101",
      email: "john.upper@acme.example",
      firstname: "John",
      groups: ["Sales", "finance"],
    });
    // A bad date names the row and the HR column it came from.
    expect(lines).toEqual([
      'hr.csv:4: startDate (from "Start Date"): "2026-12-40" is not a date: write it as YYYY-MM-DD (e.g. 2026-12-01); a spreadsheet may need the column formatted as text or as that date format [bad-date]',
    ]);
  });

  test("a mapped column the header lacks is named, with the nearest column of the file", async () => {
    const { lines } = await read(HR, { ...MAPPING, email: "Work E-mail" });
    expect(lines[0]).toContain(
      'source.columns.email reads column "Work E-mail", which the file\'s header does not have; did you mean Work Email?',
    );
  });

  test("the config takes a mapping and refuses an unknown field", () => {
    expect(configSchema.safeParse({ source: { columns: MAPPING } }).success).toBe(true);
    const bad = configSchema.safeParse({ source: { columns: { mail: "Work Email" } } });
    expect(bad.success).toBe(false);
  });
});

describe("groups by name", () => {
  const known = [
    { id: "people-ops", name: "People Ops" },
    { id: "sales", name: "Sales" },
    { id: "sales-emea", name: "Sales EMEA" },
    { id: "sales-us", name: "Sales EMEA" },
  ];
  const user = (groups: string[]) => ({
    email: "a@x.example",
    id: "a",
    idDerived: true,
    identity: "builtin" as const,
    state: "present" as const,
    source: { file: "hr.csv", line: 2 },
    groups,
  });

  test("a unique name becomes its group's id; the id wins over a name", () => {
    const u = user(["People Ops", "sales"]);
    expect(resolveGroupNames([u], known, { final: true })).toEqual([]);
    expect(u.groups).toEqual(["people-ops", "sales"]);
  });

  test("an ambiguous name lists the groups; an unknown one says which it could be", () => {
    const lines = resolveGroupNames([user(["Sales EMEA", "People Operations"])], known, { final: true }).map(
      formatProblem,
    );
    expect(lines).toEqual([
      'hr.csv:2: groups: "Sales EMEA" is the name of 2 groups (sales-emea, sales-us): write the id of the one you mean (or map the value in source.columns) [ambiguous-group-name]',
      'hr.csv:2: groups: "People Operations" is neither a group id nor the name of a group in the desired state or the organization; did you mean people-ops ("People Ops")? Write the id, or map the value to it in source.columns [unknown-group]',
    ]);
  });

  test("offline (validate), a value that cannot be an id is left to plan, with one warning", () => {
    const users = [user(["People Operations"]), user(["People Operations"])];
    const problems = resolveGroupNames(users, [], { final: false });
    expect(problems.map((p) => p.rule)).toEqual(["group-name"]);
  });
});

describe("the small things", () => {
  test("a name whose accents became ? is refused, naming the row and the fix", async () => {
    const { lines } = await read(
      "email,displayName\nl.w@acme.example,?ukasz Wi?niewski\nq@acme.example,Who? Me\n",
      {},
    );
    expect(lines).toEqual([
      'hr.csv:2: displayName: "?ukasz Wi?niewski" has a "?" where a letter belongs: its accented letters were replaced when the file was saved in another encoding (Windows-1252, ASCII); export or save it again as "CSV UTF-8" from the original [lost-characters]',
    ]);
  });

  test("a mistyped file name is never answered with another month's file", async () => {
    await writeFile(join(dir, "users-2026-10.csv"), "email\na@acme.example\n");
    const rule = async (name: string) =>
      (await readDesiredState({ file: join(dir, name) })).problems.map((p) => [
        p.rule,
        p.message.includes("users-2026-10.csv"),
      ]);
    // Another month: not there (exit 5), no suggestion.
    expect(await rule("users-2026-11.csv")).toEqual([["file-not-found", false]]);
    // A letter off, the same month: a typo (exit 4), the file named.
    expect(await rule("user-2026-10.csv")).toEqual([["path-typo", true]]);
  });
});
