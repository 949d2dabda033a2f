import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { deriveUserId, emailProblem, isValidId } from "../../src/desired/index.js";

describe("deriveUserId", () => {
  test.each([
    ["jane.doe@example.com", "jane.doe_example.com"],
    ["Jane.Doe@Example.COM", "jane.doe_example.com"],
    ["a+tag@example.com", "a_tag_example.com"],
    ["o'brien@example.ie", "o_brien_example.ie"],
    ["müller@example.de", "m_ller_example.de"],
    ["..dots@example.com", "dots_example.com"],
    ["first-last_x@sub.example.org", "first-last_x_sub.example.org"],
    // Per UTF-16 code unit, as documented: ids derived by earlier versions must not change.
    ["a\u{1F600}@x.co", "a___x.co"],
  ])("%s -> %s", (email, id) => {
    expect(deriveUserId(email)).toBe(id);
    expect(isValidId(id)).toBe(true);
  });

  test("ids over 255 characters keep 238 characters, a dash and 16 hex of sha256 of the lower-cased email", () => {
    const email = `${"A".repeat(300)}@example.com`;
    const id = deriveUserId(email);
    const digest = createHash("sha256").update(email.toLowerCase()).digest("hex").slice(0, 16);
    expect(id).toBe(`${"a".repeat(238)}-${digest}`);
    expect(id).toHaveLength(255);
    expect(isValidId(id)).toBe(true);
    // Two long emails that differ only at the end still get different ids.
    expect(deriveUserId(`${"a".repeat(300)}@example.org`)).not.toBe(id);
  });

  test("an id of exactly 255 characters is kept as it is", () => {
    const email = `${"b".repeat(243)}@example.com`; // 243 + 1 + 11 = 255
    expect(deriveUserId(email)).toBe(`${"b".repeat(243)}_example.com`);
  });
});

describe("isValidId and emailProblem", () => {
  test.each([
    ["jane", true],
    ["j.a-n_e.9", true],
    [".jane", false],
    ["", false],
    ["a".repeat(255), true],
    ["a".repeat(256), false],
    ["has space", false],
    ["jane@example.com", false],
  ])("isValidId(%j) = %s", (id, ok) => expect(isValidId(id)).toBe(ok));

  test.each([
    ["jane@example.com", undefined],
    ["j+tag@sub.example.co.uk", undefined],
    ["jane", "has no @"],
    ["a@b@example.com", "has more than one @"],
    ["@example.com", "has nothing before the @"],
    ["jane@localhost", "has no valid domain after the @ (e.g. example.com)"],
    ["jane@.example.com", "has no valid domain after the @ (e.g. example.com)"],
    ["jane@example..com", "has no valid domain after the @ (e.g. example.com)"],
    ["ja ne@example.com", "contains a space"],
    [`${"a".repeat(250)}@example.com`, "is longer than 254 characters"],
  ])("emailProblem(%j)", (email, why) => expect(emailProblem(email)).toBe(why));
});
