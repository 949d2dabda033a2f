/** Permissions in the desired state: the YAML and CSV forms, and every problem with file, line and field. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readDesiredState } from "../../src/desired/index.js";
import { formatProblem } from "../../src/errors.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-access-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, content: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, content);
  return file;
}

async function read(file: string, groupsFile?: string) {
  const { state, problems } = await readDesiredState({ file, ...(groupsFile ? { groupsFile } : {}) });
  return { state, problems: problems.map((p) => formatProblem(p).replace(dir, "<dir>")) };
}

describe("YAML", () => {
  test("groups and users carry workspace and organization permissions; absent means not managed", async () => {
    const file = await write(
      "ok.yaml",
      `version: 1
groups:
  - id: sales
    workspaces:
      sales-emea: [view, EXPORT, VIEW]
      finance: {permissions: [ANALYZE], hierarchy: [VIEW]}
    organization: [SELF_CREATE_TOKEN]
  - id: none
    workspaces: {}
  - id: unmanaged
users:
  - email: jane@x.com
    workspaces:
      sales-emea: []
  - email: joe@x.com
`,
    );
    const { state, problems } = await read(file);
    expect(problems).toEqual([]);
    const [sales, none, unmanaged] = state.groups;
    expect(sales).toMatchObject({
      workspaces: [
        { workspace: "finance", permissions: ["ANALYZE"], hierarchy: ["VIEW"] },
        { workspace: "sales-emea", permissions: ["EXPORT", "VIEW"], hierarchy: [] },
      ],
      organization: ["SELF_CREATE_TOKEN"],
    });
    expect(none!.workspaces).toEqual([]);
    expect(unmanaged).not.toHaveProperty("workspaces");
    expect(unmanaged).not.toHaveProperty("organization");
    expect(state.users[0]!.workspaces).toEqual([{ workspace: "sales-emea", permissions: [], hierarchy: [] }]);
    expect(state.users[1]).not.toHaveProperty("workspaces");
  });

  test("every problem at once, each at its line and field", async () => {
    const file = await write(
      "bad.yaml",
      `version: 1
groups:
  - id: sales
    workspaces:
      sales-emea: [READ]
      .bad: [VIEW]
      finance: {permissions: [VIEW], below: [VIEW]}
      hr: VIEW
    organization: [MANAGE, ADMIN]
  - id: listy
    workspaces: [sales-emea]
users:
  - email: gone@x.com
    state: absent
    workspaces: {sales-emea: [VIEW]}
`,
    );
    const { problems } = await read(file);
    expect(problems).toEqual([
      `<dir>/bad.yaml:4: groups[0].workspaces..bad: ".bad" is not a valid workspace id (letters, digits, ".", "_", "-"; not starting with "."; at most 255) [bad-workspace-id]`,
      `<dir>/bad.yaml:4: groups[0].workspaces.finance.below: unknown field; allowed: permissions, hierarchy [unknown-field]`,
      `<dir>/bad.yaml:4: groups[0].workspaces.hr: must be a list of permissions, or {permissions: [...], hierarchy: [...]}; [] for none [bad-type]`,
      `<dir>/bad.yaml:4: groups[0].workspaces.sales-emea: "READ" is not a workspace permission; known: MANAGE, ANALYZE, EXPORT, EXPORT_TABULAR, EXPORT_PDF, CREATE_AUTOMATION, USE_AI_ASSISTANT, CREATE_FILTER_VIEW, VIEW [unknown-permission]`,
      `<dir>/bad.yaml:9: groups[0].organization: "ADMIN" is not an organization permission; known: MANAGE, SELF_CREATE_TOKEN [unknown-permission]`,
      `<dir>/bad.yaml:11: groups[1].workspaces: must be a mapping of workspace ids to permissions, e.g. {sales-emea: [VIEW, EXPORT]}; {} for none [bad-type]`,
      `<dir>/bad.yaml:15: users[0].workspaces: a user marked absent carries no permissions: remove them, or the state: absent [contradiction]`,
    ]);
  });
});

describe("CSV", () => {
  test("one cell per field: WORKSPACE=A+B entries, WORKSPACE/* for the hierarchy, ;-separated", async () => {
    const users = await write(
      "users.csv",
      `email,groups,workspaces,organization
jane@x.com,sales,"sales-emea=VIEW+EXPORT; finance=analyze; finance/*=VIEW",SELF_CREATE_TOKEN
joe@x.com,sales,,
`,
    );
    const groups = await write(
      "groups.csv",
      "id,name,workspaces\nsales,Sales,sales-emea=VIEW\nempty,Empty,\n",
    );
    const { state, problems } = await read(users, groups);
    expect(problems).toEqual([]);
    expect(state.users[0]).toMatchObject({
      workspaces: [
        { workspace: "finance", permissions: ["ANALYZE"], hierarchy: ["VIEW"] },
        { workspace: "sales-emea", permissions: ["EXPORT", "VIEW"], hierarchy: [] },
      ],
      organization: ["SELF_CREATE_TOKEN"],
    });
    // The column is there: an empty cell manages the user's permissions, and grants none.
    expect(state.users[1]).toMatchObject({ workspaces: [], organization: [] });
    expect(state.groups.map((g) => g.workspaces)).toEqual([
      [{ workspace: "sales-emea", permissions: ["VIEW"], hierarchy: [] }],
      [],
    ]);
  });

  test("a cell that says one workspace twice, or no =, is refused with the form to write", async () => {
    const users = await write(
      "bad.csv",
      "email,workspaces\na@x.com,sales=VIEW;sales=EXPORT\nb@x.com,sales VIEW\nc@x.com,sales/*=VIEW;sales=VIEW\n",
    );
    const { problems } = await read(users);
    expect(problems).toEqual([
      "<dir>/bad.csv:2: workspaces: sales is named twice; write its permissions once (sales=A+B) [contradiction]",
      '<dir>/bad.csv:3: workspaces: "sales VIEW" is not WORKSPACE=PERMISSION+PERMISSION; write e.g. sales-emea=VIEW+EXPORT; finance=ANALYZE; finance/*=VIEW [bad-workspaces]',
    ]);
  });
});

describe("profile legacy", () => {
  test("has no permissions: a user or group that carries them is an error naming it", async () => {
    const { validateForProfile } = await import("../../src/desired/index.js");
    const file = await write(
      "legacy.yaml",
      "version: 1\ngroups:\n  - id: g\n    organization: []\nusers:\n  - email: a@x.com\n",
    );
    const { state } = await read(file);
    expect(validateForProfile(state, "legacy").map((p) => formatProblem(p).replace(dir, "<dir>"))).toEqual([
      `<dir>/legacy.yaml:4: groups[0].organization: group "g" carries permissions; the legacy API has none: remove them (or use the current API, profile v1) [legacy-no-permissions]`,
    ]);
  });
});
