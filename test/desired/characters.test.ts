/**
 * Control characters that arrive through escapes are refused like raw control bytes; keys and
 * logins may hold nothing invisible or direction-changing; names shown to people are warned about
 * what hides or reorders them (src/desired/characters.ts, docs/desired-state.md).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readDesiredState } from "../../src/desired/index.js";
import { ProblemList } from "../../src/desired/problems.js";
import { normaliseUser, type RawRecord, type UserField } from "../../src/desired/records.js";
import { formatProblem } from "../../src/errors.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-characters-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function read(name: string, text: string) {
  const file = join(dir, name);
  await writeFile(file, text);
  const { state, problems } = await readDesiredState({ file });
  return { state, lines: problems.map((p) => formatProblem(p).replace(dir, "<dir>")) };
}

const HINT =
  'remove it (in YAML an escape such as "\\0" or "\\x1b" in a quoted value writes one) [control-character]';

describe("control characters from escapes are refused like raw bytes", () => {
  test.each([
    ["\\0", "U+0000 (NUL)"],
    ["\\x1b[2J", "U+001B (escape)"],
    ["\\e", "U+001B (escape)"],
    ["\\a", "U+0007"],
    ["\\N", "U+0085 (next line)"],
    ["\\u007f", "U+007F (delete)"],
  ])('displayName "a%sb"', async (escape, what) => {
    const { state, lines } = await read(
      "escape.yaml",
      `version: 1\nusers:\n  - email: a@example.com\n    displayName: "a${escape}b"\n`,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^<dir>/escape\\.yaml:4: users\\[0\\]\\.displayName: "a<U\\+[0-9A-F]{4}>.*b" holds the control character `,
      ),
    );
    expect(lines[0]).toContain(`holds the control character ${what}: ${HINT}`);
    // Nothing with it ever reaches a plan: the run stops (exit 4) on any error.
    expect(state.users[0]?.displayName ?? "").not.toMatch(/\p{Cc}/u);
  });

  test("in every field, and in JSON syntax (\\u0000) as in YAML's", async () => {
    const json = JSON.stringify({
      version: 1,
      users: [
        {
          email: "a\u0000@example.com",
          id: "a\u0000",
          authenticationId: "sub\u0001",
          identity: "external",
          firstname: "A\u0008",
          groups: ["g\u0000"],
        },
      ],
      groups: [{ id: "g", name: "G\u001b" }],
    });
    const { lines } = await read("json.yaml", json);
    expect(lines).toEqual([
      `<dir>/json.yaml:1: groups[0].name: "G<U+001B>" holds the control character U+001B (escape): ${HINT}`,
      `<dir>/json.yaml:1: users[0].authenticationId: "sub<U+0001>" holds the control character U+0001: ${HINT}`,
      `<dir>/json.yaml:1: users[0].email: "a<U+0000>@example.com" holds the control character U+0000 (NUL): ${HINT}`,
      `<dir>/json.yaml:1: users[0].firstname: "A<U+0008>" holds the control character U+0008: ${HINT}`,
      '<dir>/json.yaml:1: users[0].groups: "g<U+0000>" is not a valid group id (letters, digits, ".", "_", "-"; not starting with "."; at most 255) [bad-group-id]',
      '<dir>/json.yaml:1: users[0].id: "a<U+0000>" is not a valid user id: use letters, digits, ".", "_" and "-", not starting with ".", at most 255 characters (or leave it empty to derive it from the email) [bad-id]',
    ]);
  });

  test("a password with one is refused without showing the password", async () => {
    const { lines } = await read(
      "password.yaml",
      'version: 1\nusers:\n  - email: a@example.com\n    password: "s3cret\\0x"\n',
    );
    expect(lines).toContain(
      `<dir>/password.yaml:4: users[0].password: holds the control character U+0000 (NUL): ${HINT}`,
    );
    expect(lines.join("\n")).not.toContain("s3cret");
  });

  test("tabs and line breaks stay allowed in names (a raw file may hold them) but not in keys", async () => {
    const { state, lines } = await read(
      "breaks.yaml",
      'version: 1\nusers:\n  - email: a@example.com\n    displayName: "Ann\\tB\\nC"\n  - email: "b@example.com"\n    identity: external\n    authenticationId: "sub\\t1"\n',
    );
    expect(state.users[0]?.displayName).toBe("Ann\tB\nC");
    expect(lines).toEqual([
      `<dir>/breaks.yaml:7: users[1].authenticationId: "sub<U+0009>1" holds the control character U+0009 (tab): ${HINT}`,
    ]);
  });
});

describe("invisible and direction-changing characters", () => {
  test("are refused in emails and logins, warned in names; the value is shown with them made visible", async () => {
    const { state, lines } = await read(
      "invisible.yaml",
      [
        "version: 1",
        "users:",
        '  - email: "ann\\u200B@example.com"',
        '  - email: "bob@example.com\\u202E"',
        '  - email: "carl@exa\\u00ADmple.com"',
        "  - email: dan@example.com",
        "    identity: external",
        '    authenticationId: "auth0|\\u2066123\\u2069"',
        "  - email: eve@example.com",
        '    displayName: "Eve \\u202Egnp.exe"',
        '    lastname: "Smith\\u200B"',
        '  - email: "fay@example.com"',
        '    id: "fay\\uFEFF1"',
        '    groups: ["sales\\u200D"]',
        '  - email: "gil\\u200C@example.com"',
        '    state: "absent\\u200B"',
        "",
      ].join("\n"),
    );
    const refused =
      "which cannot be seen or changes the direction of text: a login or key with it looks like another one and is not; type the value again [invisible-character]";
    const warned =
      "which cannot be seen or reorders the text where the name is shown; it is sent as written: type the value again if you did not mean it [invisible-character]";
    expect(lines).toEqual(
      [
        `<dir>/invisible.yaml:3: users[0].email: "ann<U+200B>@example.com" holds U+200B (zero width space), ${refused}`,
        `<dir>/invisible.yaml:4: users[1].email: "bob@example.com<U+202E>" holds U+202E (right-to-left override), ${refused}`,
        `<dir>/invisible.yaml:5: users[2].email: "carl@exa<U+00AD>mple.com" holds U+00AD (soft hyphen), ${refused}`,
        `<dir>/invisible.yaml:8: users[3].authenticationId: "auth0|<U+2066>123<U+2069>" holds U+2066 (left-to-right isolate), ${refused}`,
        `warning: <dir>/invisible.yaml:10: users[4].displayName: "Eve <U+202E>gnp.exe" holds U+202E (right-to-left override), ${warned}`,
        `warning: <dir>/invisible.yaml:11: users[4].lastname: "Smith<U+200B>" holds U+200B (zero width space), ${warned}`,
        '<dir>/invisible.yaml:13: users[5].id: "fay<U+FEFF>1" is not a valid user id: use letters, digits, ".", "_" and "-", not starting with ".", at most 255 characters (or leave it empty to derive it from the email) [bad-id]',
        '<dir>/invisible.yaml:14: users[5].groups: "sales<U+200D>" is not a valid group id (letters, digits, ".", "_", "-"; not starting with "."; at most 255) [bad-group-id]',
        `<dir>/invisible.yaml:15: users[6].email: "gil<U+200C>@example.com" holds U+200C (zero width non-joiner), ${refused}`,
        '<dir>/invisible.yaml:16: users[6].state: "absent<U+200B>" is not a state: use present or absent [bad-state]',
      ].map((l) => l.replace(/^warning: /, "")),
    );
    // Only the person with a warned name is read; the others are refused.
    expect(state.users.map((u) => u.email)).toEqual(["eve@example.com"]);
  });

  test("joiners and variation selectors in names are not warned: emoji and Persian names need them", async () => {
    const { state, lines } = await read(
      "names.yaml",
      'version: 1\nusers:\n  - email: a@example.com\n    displayName: "Ana 👩‍💻 ❤️"\n  - email: b@example.com\n    displayName: "می‌خواهم"\n',
    );
    expect(lines).toEqual([]);
    expect(state.users.map((u) => u.displayName)).toEqual(["Ana 👩‍💻 ❤️", "می‌خواهم"]);
  });

  test("the same in a CSV file (where raw control bytes are refused by the byte check)", async () => {
    const { lines } = await read(
      "invisible.csv",
      "email,displayName,identity,authenticationId\n\u2067a@example.com,A\u202Eb,external,sub\u200B1\n",
    );
    expect(lines.map((l) => l.replace(/ holds .*\[/, " … ["))).toEqual([
      '<dir>/invisible.csv:2: authenticationId: "sub<U+200B>1" … [invisible-character]',
      '<dir>/invisible.csv:2: displayName: "A<U+202E>b" … [invisible-character]',
      '<dir>/invisible.csv:2: email: "<U+2067>a@example.com" … [invisible-character]',
    ]);
  });

  test("a value read from a directory goes through the same rules (an LDAP entry, located at its DN)", () => {
    const problems = new ProblemList();
    const dn = "uid=ann,ou=people,dc=example,dc=com";
    const raw: RawRecord<UserField> = {
      line: 1,
      text: { email: "ann\u200B@example.com", displayName: "Ann\u202E" },
      lists: { groups: ["staff"] },
      where: (field) => ({ file: dn, field: field === "email" ? "{mail}" : "{cn}" }),
    };
    const ctx = { problems, defaultIdentity: "builtin" as const, passwordWarned: { value: false } };
    expect(normaliseUser(raw, ctx)).toBeUndefined();
    expect(problems.items.map((p) => [formatProblem(p).replace(/, which .*$/, ""), p.severity])).toEqual([
      [`${dn}: {mail}: "ann<U+200B>@example.com" holds U+200B (zero width space)`, "error"],
      [`${dn}: {cn}: "Ann<U+202E>" holds U+202E (right-to-left override)`, "warning"],
    ]);
  });
});
