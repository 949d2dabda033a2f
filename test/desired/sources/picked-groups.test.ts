/**
 * The sources room's two shared steps of a directory that picks groups by rule and signs people
 * in itself (Okta, Google): picking (../picked-groups.ts: the first rule that picks a group wins,
 * each group keeps its rule's place) and keying people by the organization's claim
 * (../sign-in.ts `keyBySubjectClaim`). Each directory's own way is tested against its stand-in
 * (google/, okta/, e2e); here the rule itself, with a directory made up in a few lines.
 */
import { describe, expect, it } from "vitest";
import { ProblemList } from "../../../src/desired/problems.js";
import type { RecordContext } from "../../../src/desired/records.js";
import type { GroupRule } from "../../../src/desired/sources/group-rule.js";
import { pickGroups, userGroups, type GroupKind } from "../../../src/desired/sources/picked-groups.js";
import { keyBySubjectClaim, type SubjectClaims } from "../../../src/desired/sources/sign-in.js";
import type { DesiredUser, ReadTally } from "../../../src/desired/types.js";

interface Group {
  id?: string;
  name: string;
}
const KIND: GroupKind<Group> = {
  setting: "source.made-up",
  keyPrefix: "made-up:",
  idOf: (g) => g.id,
  nameTemplate: "{name}",
  values: (g) => new Map([["name", [g.name]]]),
  label: (g) => `made-up group ${g.name}`,
};
const read = (what: string): ReadTally => ({ what, pages: 1, announced: "unknown", read: 1 });

describe("pickGroups and userGroups", () => {
  it("keeps each group once, with the first rule that picked it and that rule's place", async () => {
    const rules: GroupRule[] = [
      { lowerCase: true, workspaces: { a: ["VIEW"] } },
      { lowerCase: true },
      { lowerCase: true, name: "Second {name}" },
    ];
    const answers: Group[][] = [
      [{ id: "g1", name: "Sales" }],
      [{ name: "No id" }, { id: "g2", name: "Finance Team" }],
      [
        { id: "g2", name: "Finance Team" },
        { id: "g1", name: "Sales" },
        { id: "g3", name: "Ops" },
      ],
    ];
    const asked: string[] = [];
    const { picked, reads } = await pickGroups({
      kind: KIND,
      rules,
      pick: async (rule, ruleKey) => {
        asked.push(ruleKey);
        const i = rules.indexOf(rule);
        return { groups: answers[i]!, read: read(`rule ${i}`) };
      },
    });
    expect(asked).toEqual([
      "source.made-up.groups[0]",
      "source.made-up.groups[1]",
      "source.made-up.groups[2]",
    ]);
    expect(reads.map((r) => r.what)).toEqual(["rule 0", "rule 1", "rule 2"]);
    expect(picked.map((p) => [p.group.id, p.ruleKey])).toEqual([
      ["g1", "source.made-up.groups[0]"],
      ["g2", "source.made-up.groups[1]"],
      ["g3", "source.made-up.groups[2]"],
    ]);
    expect(picked[0]!.rule).toBe(rules[0]);

    const problems = new ProblemList();
    const ctx: RecordContext = { problems, defaultIdentity: "external", passwordWarned: { value: false } };
    const { groups, userGroupOf } = userGroups(picked, KIND, ctx);
    expect(problems.items).toEqual([]);
    expect(groups.map((g) => [g.id, g.name])).toEqual([
      ["sales", "Sales"],
      ["finance_team", "Finance Team"],
      ["ops", "Second Ops"],
    ]);
    expect([...userGroupOf]).toEqual([
      ["g1", "sales"],
      ["g2", "finance_team"],
      ["g3", "ops"],
    ]);
  });
});

interface Person {
  id: string;
  mail?: string;
}
const CLAIMS: SubjectClaims<Person> = {
  directory: "Made-up",
  subWarning: "people are keyed by sub",
  idOf: (p) => p.id,
  reader: (claim) => {
    if (claim === "sub") return undefined;
    if (claim === "email") return { from: "the mail attribute", field: "mail", read: (p) => p.mail };
    throw new Error(`no ${claim}`);
  },
  fix: (field) => `give everyone ${field}`,
};
const person = (email: string, o: Partial<DesiredUser> = {}): DesiredUser => ({
  email,
  id: email,
  idDerived: true,
  identity: "external",
  authenticationId: `sub-of-${email}`,
  state: "present",
  source: { file: "made-up", line: 1 },
  ...o,
});

describe("keyBySubjectClaim", () => {
  it("leaves sub in place, re-keys present external people by the claim, and names who cannot be", () => {
    const users = [person("a@x"), person("b@x"), person("left@x", { state: "absent" }), person("c@x")];
    const directory = new Map<string, Person>([
      ["a@x", { id: "1", mail: " a@mail " }],
      ["b@x", { id: "2", mail: "b@mail" }],
      ["c@x", { id: "3", mail: "c@mail" }],
    ]);
    keyBySubjectClaim(CLAIMS, { claim: "sub", users, userOf: (u) => directory.get(u.id) });
    expect(users.map((u) => u.authenticationId)).toEqual([
      "sub-of-a@x",
      "sub-of-b@x",
      "sub-of-left@x",
      "sub-of-c@x",
    ]);
    keyBySubjectClaim(CLAIMS, { claim: "email", users, userOf: (u) => directory.get(u.id) });
    expect(users.map((u) => u.authenticationId)).toEqual(["a@mail", "b@mail", "sub-of-left@x", "c@mail"]);

    directory.set("b@x", { id: "2" });
    directory.delete("c@x");
    expect(() =>
      keyBySubjectClaim(CLAIMS, { claim: "email", users, userOf: (u) => directory.get(u.id) }),
    ).toThrow(
      'the organization keys people by the ID-token claim "email" (oauthSubjectIdClaim), which Made-up fills from the mail attribute, but 2 of 3 Made-up people have no mail: b@x (2), c@x (?). give everyone mail',
    );
    expect(() => keyBySubjectClaim(CLAIMS, { claim: "oid", users, userOf: () => undefined })).toThrow(
      "no oid",
    );
  });
});
