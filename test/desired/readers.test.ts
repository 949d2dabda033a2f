import { createWriteStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ByteChecker } from "../../src/desired/byte-check.js";
import { readDesiredState } from "../../src/desired/index.js";
import { formatProblem } from "../../src/errors.js";
import { skipWithout } from "../helpers/skips.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-desired-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, content: string | Buffer): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, content);
  return file;
}

const lines = async (file: string, groupsFile?: string): Promise<string[]> =>
  (await readDesiredState({ file, ...(groupsFile ? { groupsFile } : {}) })).problems.map((p) =>
    formatProblem(p).replace(dir, "<dir>"),
  );

describe("YAML", () => {
  test("reads every field; groups absent (keep) vs empty (none); ids derived or explicit", async () => {
    const { state, problems } = await readDesiredState({ file: "fixtures/valid/users.yaml" });
    expect(problems).toEqual([]);
    expect(state.files).toEqual(["fixtures/valid/users.yaml"]);
    expect(state.groups).toEqual([
      { id: "analysts", name: "Analysts", source: { file: "fixtures/valid/users.yaml", line: 4 } },
      {
        id: "emea-analysts",
        name: "EMEA analysts",
        parents: ["analysts"],
        source: { file: "fixtures/valid/users.yaml", line: 6 },
      },
    ]);
    const [jane, john, ext, leaver, keeps] = state.users;
    expect(jane).toEqual({
      email: "Jane.Doe@Example.com",
      id: "jane.doe_example.com",
      idDerived: true,
      displayName: "Jane Doe",
      groups: ["emea-analysts"],
      identity: "builtin",
      state: "present",
      source: { file: "fixtures/valid/users.yaml", line: 10 },
    });
    expect(john).toMatchObject({
      id: "john",
      idDerived: false,
      firstname: "John",
      lastname: "Smith",
      groups: [],
    });
    expect(ext).toMatchObject({ id: "ext-user", identity: "external", authenticationId: "auth0|5f1b2c" });
    expect(leaver).toMatchObject({ state: "absent" });
    expect(keeps).not.toHaveProperty("groups");
    expect(keeps).not.toHaveProperty("displayName");
  });

  test("values are trimmed, group lists sorted and unique, and empty values are absent", async () => {
    const file = await write(
      "trim.yaml",
      'version: 1\nusers:\n  - email: "  Pat@Example.com "\n    displayName: "  "\n    groups: [" b", a, b]\n',
    );
    const { state, problems } = await readDesiredState({ file });
    expect(problems.map((p) => p.rule)).toEqual(["undeclared-group", "undeclared-group"]);
    expect(state.users[0]).toMatchObject({
      email: "Pat@Example.com",
      id: "pat_example.com",
      groups: ["a", "b"],
    });
    expect(state.users[0]).not.toHaveProperty("displayName");
  });

  test("users: [] is valid only with allowEmpty: true", async () => {
    const file = await write("allow-empty.yaml", "version: 1\nallowEmpty: true\nusers: []\n");
    const { state, problems } = await readDesiredState({ file });
    expect(problems).toEqual([]);
    expect(state.users).toEqual([]);
  });

  test("a YAML groups file beside a users CSV; duplicates across files are reported", async () => {
    const groups = await write("groups.yaml", "version: 1\ngroups:\n  - id: analysts\n  - id: sales\n");
    const users = await write("u.csv", "email,groups\njane@example.com,sales\n");
    const { state, problems } = await readDesiredState({ file: users, groupsFile: groups });
    expect(problems).toEqual([]);
    expect(state.groups.map((g) => g.id)).toEqual(["analysts", "sales"]);
    expect(
      await lines("fixtures/valid/users.yaml", await write("dup-groups.csv", "id,name\nanalysts,Again\n")),
    ).toEqual([
      '<dir>/dup-groups.csv:2: id: group "analysts" is already declared at fixtures/valid/users.yaml:4 [duplicate-group]',
    ]);
    expect(
      await lines(
        users,
        await write("users-in-groups.yaml", "version: 1\nusers: []\ngroups: [{id: sales}]\n"),
      ),
    ).toEqual([
      "<dir>/users-in-groups.yaml:2: users: unknown top-level key; allowed: version, groups [unknown-field]",
    ]);
  });

  test("a YAML file over 64 MiB is refused before it is read", async () => {
    const { truncate } = await import("node:fs/promises");
    const file = await write("huge.yaml", "version: 1\n");
    await truncate(file, 64 * 1024 * 1024 + 1); // sparse: costs no disk
    expect(await lines(file)).toEqual([
      "<dir>/huge.yaml: is 67108865 bytes; a YAML desired state may be at most 67108864 bytes (use CSV for very large files) [file-too-large]",
    ]);
  });

  test("defaults.identity applies to users without an identity", async () => {
    const file = await write(
      "ext.yaml",
      "version: 1\nusers:\n  - email: a@example.com\n    authenticationId: sub-1\n",
    );
    const { state, problems } = await readDesiredState({ file, defaults: { identity: "external" } });
    expect(problems).toEqual([]);
    expect(state.users[0]).toMatchObject({ identity: "external", authenticationId: "sub-1" });
  });
});

describe("YAML values that are not text", () => {
  test("are refused without repeating the value (it may be a password, and 007 reads as 7)", async () => {
    const file = await write(
      "types.yaml",
      "version: 1\nusers:\n  - email: a@example.com\n    password: 12345678901\n    id: 007\n",
    );
    const { problems } = await readDesiredState({ file });
    const text = problems.map(formatProblem).join("\n");
    expect(text).toContain(
      "users[0].password: must be text, not a number: put the value in quotes as written",
    );
    expect(text).toContain("users[0].id: must be text, not a number");
    expect(text).not.toContain("12345678901");
    expect(text).not.toMatch(/"7"/);
  });
});

describe("CSV", () => {
  test("BOM, CRLF, quoted commas, quotes and newlines are accepted; line numbers count physical lines", async () => {
    const { state, problems } = await readDesiredState({ file: "fixtures/valid/users-bom-crlf.csv" });
    expect(problems.filter((p) => p.severity !== "warning")).toEqual([]);
    expect(state.users.map((u) => [u.email, u.id, u.displayName, u.groups, u.source.line])).toEqual([
      ["jane@example.com", "jane", "Doe, Jane", ["analysts", "emea-analysts"], 2],
      ["bob@example.com", "bob", 'Bob "the builder"\r\nSmith', [], 3],
      ["ext@partner.example", "ext", "External", ["analysts"], 5],
    ]);
    expect(state.users[2]).toMatchObject({ identity: "external", authenticationId: "auth0|123" });
    // Groups referenced but declared nowhere are warnings: they may exist in the service.
    expect(problems.map((p) => [p.rule, p.severity])).toEqual([
      ["undeclared-group", "warning"],
      ["undeclared-group", "warning"],
    ]);
  });

  test("a users CSV and a groups CSV; a missing groups column keeps groups, an empty cell means none", async () => {
    const { state, problems } = await readDesiredState({
      file: "fixtures/valid/users.csv",
      groupsFile: "fixtures/valid/groups.csv",
    });
    expect(problems).toEqual([]);
    expect(state.files).toEqual(["fixtures/valid/users.csv", "fixtures/valid/groups.csv"]);
    expect(state.groups).toEqual([
      {
        id: "analysts",
        name: "Analysts",
        parents: [],
        source: { file: "fixtures/valid/groups.csv", line: 2 },
      },
      {
        id: "emea-analysts",
        name: "EMEA analysts",
        parents: ["analysts"],
        source: { file: "fixtures/valid/groups.csv", line: 3 },
      },
    ]);
    expect(state.users.map((u) => u.groups)).toEqual([["emea-analysts"], ["analysts", "emea-analysts"], []]);
    // '-carol is a neutralised formula cell: the reader strips the one leading quote.
    expect(state.users[2]!.id).toBe("-carol");
    const noGroups = await write("no-groups-column.csv", "email\njane@example.com\n");
    expect((await readDesiredState({ file: noGroups })).state.users[0]).not.toHaveProperty("groups");
  });

  test("rows before a stray quote are all checked too: every problem at once", async () => {
    const file = await write("stray.csv", 'email,id\na@x.co,.bad1\nb@x.co,.bad2\nc@x.co,c\nd@x.co,d"x\n');
    const { problems } = await readDesiredState({ file });
    expect(problems.map((p) => [p.line, p.rule])).toEqual([
      [2, "bad-id"],
      [3, "bad-id"],
      [5, "csv-quote"],
    ]);
  });

  test("rows before a line of invalid UTF-8 are checked too; the rest of the file is not", async () => {
    const file = await write(
      "latin1-late.csv",
      Buffer.concat([
        Buffer.from("email,id\na@x.co,.bad1\nb@x.co,b\nc@x.co,c"),
        Buffer.from([0xe9]),
        Buffer.from("\nd@x.co,.bad4\n"),
      ]),
    );
    const { problems } = await readDesiredState({ file });
    expect(problems.map((p) => [p.line, p.rule])).toEqual([
      [2, "bad-id"],
      [4, "not-utf8"],
    ]);
  });

  test("rows of separators only (a spreadsheet's empty rows) are skipped like blank lines", async () => {
    const file = await write(
      "sheet.csv",
      "email,id,groups\r\na@example.com,a,\r\n,,\r\n ,, \r\nb@example.com,b,\r\n,,\r\n",
    );
    const { state, problems } = await readDesiredState({ file });
    expect(problems).toEqual([]);
    expect(state.users.map((u) => [u.id, u.source.line])).toEqual([
      ["a", 2],
      ["b", 5],
    ]);
  });

  test("a file that mixes CRLF, LF and CR line ends is read row by row, with its physical lines", async () => {
    const file = await write(
      "mixed-ends.csv",
      'email,id,displayName,groups,identity\r\na@example.com,a,A,,\nb@example.com,b,"B\r\nTwo",,\r\nc@example.com,c,C,,\rd@example.com,.bad,D,,\n',
    );
    const { state, problems } = await readDesiredState({ file });
    expect(problems.map((p) => [p.line, p.rule])).toEqual([[6, "bad-id"]]);
    expect(state.users.map((u) => [u.id, u.displayName, u.source.line])).toEqual([
      ["a", "A", 2],
      ["b", "B\r\nTwo", 3],
      ["c", "C", 5],
    ]);
  });

  test("a CRLF split between two chunks of the stream ends one row, not two", async () => {
    // The read stream hands over 64 KiB chunks: put a CR at the end of the first, after a row
    // of spaces only (skipped like a blank line).
    const head = "email,id,displayName\r\na@example.com,a,A\r\n";
    const text = `${head}${" ".repeat(64 * 1024 - head.length - 3)},,\r\nb@example.com,b,B\nc@example.com,c,C\r\n`;
    expect(text.indexOf("\r\nb@")).toBe(64 * 1024 - 1);
    const { state, problems } = await readDesiredState({ file: await write("split-crlf.csv", text) });
    expect(problems).toEqual([]);
    expect(state.users.map((u) => [u.id, u.source.line])).toEqual([
      ["a", 2],
      ["b", 4],
      ["c", 5],
    ]);
  });

  test("column names match case-insensitively; empty cells are absent", async () => {
    const file = await write("case.csv", "EMAIL,DisplayName,State\njane@example.com,,\n");
    const { state, problems } = await readDesiredState({ file });
    expect(problems).toEqual([]);
    expect(state.users[0]).toEqual({
      email: "jane@example.com",
      id: "jane_example.com",
      idDerived: true,
      identity: "builtin",
      state: "present",
      source: { file, line: 2 },
    });
  });

  test("groups CSV rules: cycles, unknown parents, bad ids, missing id column", async () => {
    const users = await write("one-user.csv", "email\njane@example.com\n");
    const groups = await write("cycle.csv", "id,name,parents\na,A,b\nb,B,a;elsewhere\n.bad,Bad,\n");
    expect(await lines(users, groups)).toEqual([
      "<dir>/cycle.csv:2: parents: groups form a cycle: a -> b -> a; a group cannot be its own ancestor [group-cycle]",
      '<dir>/cycle.csv:3: parents: parent "elsewhere" is not declared in the desired state: it must exist in the service (plan checks that) [unknown-parent]',
      '<dir>/cycle.csv:4: id: ".bad" is not a valid group id (letters, digits, ".", "_", "-"; not starting with "."; at most 255) [bad-group-id]',
    ]);
    expect(await lines(users, await write("no-id.csv", "name\nA\n"))).toEqual([
      "<dir>/no-id.csv:1: id: the header has no id column; it is required (the first row must name the columns, e.g. id,name,parents) [missing-column]",
    ]);
    expect(await lines(users, await write("no-rows.csv", "id,name\n"))).toEqual([
      "<dir>/no-rows.csv: has no group rows: a groups file lists at least one group (id,name,parents) [empty-file]",
    ]);
  });

  test("a password column warns once per file; values are never in messages", async () => {
    const file = await write(
      "pw.csv",
      "email,password\na@example.com,Sup3r-secret\nb@example.com,An0ther-secret\n",
    );
    const { state, problems } = await readDesiredState({ file });
    expect(problems.map((p) => [p.rule, p.severity, p.line])).toEqual([
      ["password-discouraged", "warning", 2],
    ]);
    expect(JSON.stringify(problems)).not.toMatch(/Sup3r|An0ther/);
    expect(state.users.map((u) => u.password)).toEqual(["Sup3r-secret", "An0ther-secret"]);
  });

  test("missing files and unknown extensions are problems, not exceptions", async () => {
    expect(await lines(join(dir, "nope.csv"))).toEqual([
      "<dir>/nope.csv: does not exist: check the path (relative paths start at the current directory) [file-not-found]",
    ]);
    expect(await lines(await write("users.txt", "email\n"))).toEqual([
      '<dir>/users.txt: cannot tell the format from the extension ".txt": use .yaml, .yml or .csv (or set source.format) [format]',
    ]);
    const { problems } = await readDesiredState({
      file: await write("users.txt", "email\na@example.com\n"),
      format: "csv",
    });
    expect(problems).toEqual([]);
  });

  test("a 2 MB line is refused with its line number instead of being buffered", async () => {
    const file = await write(
      "huge-line.csv",
      `email,displayName\na@example.com,A\nb@example.com,${"x".repeat(2 * 1024 * 1024)}\nc@example.com,C\n`,
    );
    expect(await lines(file)).toEqual([
      "<dir>/huge-line.csv:3: the row is longer than 1048576 characters (a missing closing quote?); reading stopped here [field-too-long]",
    ]);
  });

  test("streaming: a generated 50,000-row file reads correctly, line numbers included", async () => {
    const file = join(dir, "big.csv");
    const out = createWriteStream(file);
    out.write("email,id,displayName,groups\r\n");
    for (let i = 0; i < 50_000; i++) out.write(`user${i}@example.com,u${i},"User, ${i}",g${i % 7};all\r\n`);
    await new Promise<void>((resolve, reject) =>
      out.end((err?: Error | null) => (err ? reject(err) : resolve())),
    );
    const { state, problems } = await readDesiredState({ file });
    expect(problems.filter((p) => p.severity !== "warning")).toEqual([]);
    expect(state.users).toHaveLength(50_000);
    expect(state.users[49_999]).toMatchObject({
      email: "user49999@example.com",
      id: "u49999",
      displayName: "User, 49999",
      groups: ["all", "g5"],
      source: { file, line: 50_001 },
    });
    expect(new Set(state.users.map((u) => u.id)).size).toBe(50_000);
  });

  test("invalid UTF-8 after many good chunks is found with its line", async () => {
    const good = "email\n" + Array.from({ length: 20_000 }, (_, i) => `u${i}@example.com\n`).join("");
    const file = await write(
      "late-latin1.csv",
      Buffer.concat([Buffer.from(good), Buffer.from("m\xfcller@example.com\n", "latin1")]),
    );
    expect(await lines(file)).toEqual([
      '<dir>/late-latin1.csv:20002: byte 0xFC is not valid UTF-8; save the file as UTF-8 (e.g. "CSV UTF-8" in a spreadsheet) and try again [not-utf8]',
    ]);
  });
});

describe("ByteChecker", () => {
  test("a multi-byte character split across chunks is valid; a cut-off one at the end is not", () => {
    const bytes = Buffer.from("a\nmüller 🎉\n", "utf8");
    for (let cut = 0; cut <= bytes.length; cut++) {
      const c = new ByteChecker();
      expect(c.push(bytes.subarray(0, cut))).toBeUndefined();
      expect(c.push(bytes.subarray(cut))).toBeUndefined();
      expect(c.end()).toBeUndefined();
    }
    const c = new ByteChecker();
    expect(c.push(Buffer.from([0x61, 0x0a, 0xf0, 0x9f]))).toBeUndefined();
    expect(c.end()).toMatchObject({ rule: "not-utf8", line: 2 });
  });

  test("overlong encodings and surrogates are invalid; tabs and CR are fine; NUL is binary", () => {
    expect(new ByteChecker().push(Buffer.from([0xc0, 0x80]))).toMatchObject({ rule: "not-utf8" });
    expect(new ByteChecker().push(Buffer.from([0xed, 0xa0, 0x80]))).toMatchObject({ rule: "not-utf8" });
    expect(new ByteChecker().push(Buffer.from("a\tb\r\n"))).toBeUndefined();
    expect(new ByteChecker().push(Buffer.from("a\n\nb\0"))).toMatchObject({ rule: "binary", line: 3 });
  });
});

describe("state: absent", () => {
  test("an absent external user needs no authenticationId; a present one does", async () => {
    const file = await write(
      "absent.csv",
      "email,identity,state\ngone@example.com,external,absent\nhere@example.com,external,\n",
    );
    expect(await lines(file)).toEqual([
      "<dir>/absent.csv:3: authenticationId: is required for an external user: set it to the user's sub claim from the external identity provider [authentication-id-required]",
    ]);
    const { state } = await readDesiredState({ file });
    expect(state.users).toEqual([
      expect.objectContaining({ email: "gone@example.com", identity: "external", state: "absent" }),
    ]);
  });
});

describe("unreadable files", () => {
  test.skipIf(skipWithout(["notRoot"], { what: "an unreadable desired file" }))(
    "a file without read permission is a problem, not an exception",
    async () => {
      const { chmod } = await import("node:fs/promises");
      const file = await write("locked.csv", "email\na@example.com\n");
      await chmod(file, 0o000);
      expect(await lines(file)).toEqual([
        "<dir>/locked.csv: cannot be read (EACCES): check its permissions [file-unreadable]",
      ]);
    },
  );
});

describe("YAML syntax", () => {
  test("several documents and duplicate keys are syntax errors with their lines", async () => {
    const multi = await write("multi.yaml", "version: 1\nusers: [{email: a@example.com}]\n---\nversion: 1\n");
    expect(await lines(multi)).toEqual([
      "<dir>/multi.yaml:3: the file holds more than one YAML document (a line with ---): keep one [yaml-syntax]",
    ]);
    const dup = await write(
      "dup.yaml",
      "version: 1\nusers:\n  - email: a@example.com\n    email: b@example.com\n",
    );
    expect(await lines(dup)).toEqual(["<dir>/dup.yaml:4: Map keys must be unique [yaml-syntax]"]);
  });
});
