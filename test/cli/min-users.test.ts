import { describe, expect, it } from "vitest";
import { checkMinUsersCount, checkMinUsersShare } from "../../src/cli/min-users.js";
import { configSchema } from "../../src/config/schema.js";
import { exitCodeFor, InputError } from "../../src/errors.js";
import { SourceIncompleteError } from "../../src/desired/sources/errors.js";
import type { DesiredState, DesiredUser } from "../../src/desired/types.js";

const user = (i: number, state: DesiredUser["state"] = "present"): DesiredUser => ({
  email: `u${i}@example.com`,
  id: `u${i}`,
  idDerived: true,
  identity: "builtin",
  state,
  source: { file: "users.yaml", line: i },
});
const desired = (present: number, absent = 0): DesiredState => ({
  users: [...Array(present).keys()]
    .map((i) => user(i))
    .concat([...Array(absent).keys()].map((i) => user(1000 + i, "absent"))),
  groups: [],
  files: ["ldap://dir/ou=people"],
});
const config = (source: Record<string, unknown>) => configSchema.parse({ source });

describe("source.minUsers", () => {
  it("a count refuses fewer present users (absent rows do not count), with the source named", () => {
    expect(() => checkMinUsersCount(desired(9, 5), config({ minUsers: 10 }))).toThrow(InputError);
    expect(() => checkMinUsersCount(desired(9, 5), config({ minUsers: 10 }))).toThrow(
      /ldap:\/\/dir\/ou=people gave 9 user/,
    );
    expect(() => checkMinUsersCount(desired(10), config({ minUsers: 10 }))).not.toThrow();
  });

  it("an ldap source needs at least one user by default; a file source has no default", () => {
    expect(() => checkMinUsersCount(desired(0), config({ type: "ldap" }))).toThrow(SourceIncompleteError);
    expect(() => checkMinUsersCount(desired(0), config({}))).not.toThrow();
  });

  it("a directory's short read is exit 5 (not proved whole; a later run may succeed), a file's is exit 4", () => {
    const codeOf = (type: string): number => {
      try {
        checkMinUsersCount(desired(9), config({ type, minUsers: 10 }));
      } catch (err) {
        return exitCodeFor(err);
      }
      return 0;
    };
    expect(codeOf("ldap")).toBe(5);
    expect(codeOf("file")).toBe(4);
  });

  it("a percentage is of the managed users, and is not checked before listing", () => {
    expect(() => checkMinUsersCount(desired(1), config({ minUsers: "90%" }))).not.toThrow();
    expect(() => checkMinUsersShare(desired(89), config({ minUsers: "90%" }), 100)).toThrow(
      /90% of 100 managed users = 90/,
    );
    expect(() => checkMinUsersShare(desired(90), config({ minUsers: "90%" }), 100)).not.toThrow();
  });
});
