import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { neutraliseCell, unneutraliseCell } from "../../src/desired/csv-cell.js";
import { groupsPathFor, readDesiredState, renderExport } from "../../src/desired/index.js";
import type { DesiredState } from "../../src/desired/index.js";
import type { ActualState } from "../../src/service/types.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-export-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const actual: ActualState = {
  idpUsers: [
    { email: "Jane@Example.com", displayName: 'Jane, "JD" Doe', authenticationId: "auth-jane" },
    { email: "bob@example.com", displayName: '=HYPERLINK("http://evil")', authenticationId: "auth-bob" },
    { email: "other-org@example.com", displayName: "Not ours", authenticationId: "auth-other" },
  ],
  mappings: [
    {
      id: "zed-ext",
      authenticationId: "oidc|42",
      email: "zed@partner.example",
      firstname: "Zed",
      lastname: "+Plus",
      groups: [],
    },
    { id: "jane", authenticationId: "auth-jane", firstname: "Jane", groups: ["sales", "emea"] },
    { id: "-bob", authenticationId: "auth-bob", groups: ["-admins"] },
    { id: "ghost", authenticationId: "oidc|gone", groups: [] },
    { id: "jane-twin", authenticationId: "auth-jane", groups: [] },
  ],
  groups: [
    { id: "sales", name: "Sales\nTeam", parents: [] },
    { id: "emea", name: "EMEA", parents: ["sales"] },
    { id: "-admins", parents: [] },
  ],
};

/** What a desired state says about users and groups, without source positions. */
function describeState(state: DesiredState): unknown {
  return {
    users: state.users.map(({ source: _s, ...u }) => u).sort((a, b) => a.id.localeCompare(b.id)),
    groups: state.groups
      .map(({ source: _s, ...g }) => ({ ...g, parents: g.parents ?? [] }))
      .sort((a, b) => a.id.localeCompare(b.id)),
  };
}

const expectedUsers = [
  {
    email: "bob@example.com",
    id: "-bob",
    idDerived: false,
    displayName: '=HYPERLINK("http://evil")',
    groups: ["-admins"],
    identity: "builtin",
    state: "present",
  },
  {
    email: "Jane@Example.com",
    id: "jane",
    idDerived: false,
    displayName: 'Jane, "JD" Doe',
    firstname: "Jane",
    groups: ["emea", "sales"],
    identity: "builtin",
    state: "present",
  },
  {
    email: "zed@partner.example",
    id: "zed-ext",
    idDerived: false,
    firstname: "Zed",
    lastname: "+Plus",
    groups: [],
    identity: "external",
    authenticationId: "oidc|42",
    state: "present",
  },
];

async function yamlExport(): Promise<string> {
  const file = join(dir, "again.yaml");
  await writeFile(file, renderExport(actual, { format: "yaml", profile: "v1" }).users);
  return file;
}

describe("renderExport", () => {
  test("warnings name what was left out and why", () => {
    const { warnings } = renderExport(actual, { format: "yaml", profile: "v1" });
    expect(warnings).toEqual([
      'user "ghost" signs in with an external identity provider but has no email attribute; it is not exported',
      'user "jane-twin" shares its authenticationId with another user (a conflict: only one can sign in); it is not exported',
      "1 built-in identity provider user(s) have no mapping in this organization and are not exported",
    ]);
  });

  test("YAML round trip: the export reads back valid and describes the same users and groups", async () => {
    const out = renderExport(actual, { format: "yaml", profile: "v1" });
    expect(out.groups).toBeUndefined();
    const file = join(dir, "export.yaml");
    await writeFile(file, out.users);
    const { state, problems } = await readDesiredState({ file });
    expect(problems).toEqual([]);
    expect(describeState(state)).toEqual({
      users: expectedUsers,
      groups: [
        { id: "-admins", parents: [] },
        { id: "emea", name: "EMEA", parents: ["sales"] },
        { id: "sales", name: "Sales\nTeam", parents: [] },
      ],
    });
    // Deterministic: the same input renders the same bytes; users sorted by id.
    expect(renderExport(actual, { format: "yaml", profile: "v1" }).users).toBe(out.users);
    expect(out.users.indexOf("id: -bob")).toBeLessThan(out.users.indexOf("id: jane"));
  });

  test("CSV round trip with a groups file; formula cells are neutralised and restored", async () => {
    const out = renderExport(actual, { format: "csv", profile: "v1" });
    expect(out.users.split("\r\n")[0]).toBe(
      "email,id,displayName,firstname,lastname,groups,identity,authenticationId",
    );
    expect(out.users).toContain(`bob@example.com,'-bob,"'=HYPERLINK(""http://evil"")",,,'-admins,builtin,`);
    expect(out.users).toContain("zed@partner.example,zed-ext,,Zed,'+Plus,,external,oidc|42");
    expect(out.groups).toBe('id,name,parents\r\n\'-admins,,\r\nemea,EMEA,sales\r\nsales,"Sales\nTeam",\r\n');
    const file = join(dir, "export.csv");
    const groupsFile = join(dir, "export-groups.csv");
    await writeFile(file, out.users);
    await writeFile(groupsFile, out.groups!);
    const { state, problems } = await readDesiredState({ file, groupsFile });
    expect(problems).toEqual([]);
    expect(describeState(state)).toEqual(
      describeState((await readDesiredState({ file: await yamlExport() })).state),
    );
    expect(describeState(state)).toMatchObject({ users: expectedUsers });
  });

  test("CSV round trip of values that already start with a quote and a formula character", async () => {
    const tricky: ActualState = {
      idpUsers: [{ email: "q@example.com", displayName: "'=cmd", authenticationId: "aq" }],
      mappings: [
        { id: "q", authenticationId: "aq", email: "q@example.com", lastname: "'+1 555", groups: [] },
      ],
      groups: [],
    };
    const out = renderExport(tricky, { format: "csv", profile: "v1" });
    const file = join(dir, "tricky.csv");
    await writeFile(file, out.users);
    const { state, problems } = await readDesiredState({ file });
    expect(problems).toEqual([]);
    expect(state.users[0]).toMatchObject({ displayName: "'=cmd", lastname: "'+1 555" });
  });

  test("neutralising a cell and reading it back gives the value, for any text (fast-check)", () => {
    const text = fc.oneof(fc.string(), fc.stringMatching(/^'{0,3}[=+\-@\t\r'a]?.{0,4}$/));
    fc.assert(fc.property(text, (v) => unneutraliseCell(neutraliseCell(v)) === v));
  });

  test("an empty organization exported as CSV says the file will not be valid", () => {
    const out = renderExport({ idpUsers: [], mappings: [], groups: [] }, { format: "csv", profile: "v1" });
    expect(out.warnings).toContain(
      "the organization has no exportable users: a CSV file without rows is not a valid desired state (export as YAML, which can say allowEmpty: true)",
    );
  });

  test("legacy: no names or parents; external users without an email are skipped with a warning", () => {
    const legacy: ActualState = {
      idpUsers: [{ email: "a@example.com", displayName: "A", authenticationId: "x" }],
      mappings: [
        { id: "a", authenticationId: "x", groups: ["g"] },
        { id: "ext", authenticationId: "sub-1", groups: [] },
      ],
      groups: [{ id: "g", parents: [] }],
    };
    const out = renderExport(legacy, { format: "csv", profile: "legacy" });
    expect(out.users).toBe(
      "email,id,displayName,groups,identity,authenticationId\r\na@example.com,a,A,g,builtin,\r\n",
    );
    expect(out.warnings).toEqual([
      'user "ext" signs in with an external identity provider but has no email attribute; it is not exported',
    ]);
  });

  test("an organization with no users exports a file that says allowEmpty", async () => {
    const out = renderExport({ idpUsers: [], mappings: [], groups: [] }, { format: "yaml", profile: "v1" });
    const file = join(dir, "empty-export.yaml");
    await writeFile(file, out.users);
    const { state, problems } = await readDesiredState({ file });
    expect(problems).toEqual([]);
    expect(state.users).toEqual([]);
    expect(out.warnings).toContain(
      "the organization has no exportable users: the file says allowEmpty: true",
    );
  });
});

test("the groups CSV of an export goes beside the users file", () => {
  expect(groupsPathFor("out/users.csv")).toBe("out/users-groups.csv");
  expect(groupsPathFor("export.CSV")).toBe("export-groups.csv");
  expect(groupsPathFor("users")).toBe("users-groups.csv");
});
