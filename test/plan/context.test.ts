import { describe, expect, test } from "vitest";
import { lower } from "../../src/plan/context.js";

describe("lower (email keys)", () => {
  test.each([
    ["jane@example.com", "jane@example.com"],
    ["  Jane.Doe@Example.COM ", "jane.doe@example.com"],
    ["ÉLODIE@exemple.fr", "élodie@exemple.fr"],
    ["straße@EXAMPLE.de", "straße@example.de"],
    ["\tzoë@example.org\n", "zoë@example.org"],
  ])("%j → %j, as trim().toLowerCase() gives", (input, expected) => {
    expect(lower(input)).toBe(expected);
    expect(lower(input)).toBe(input.trim().toLowerCase());
  });
});
