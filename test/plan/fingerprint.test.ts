/** The hand-written fast fingerprints must equal the generic canonical-JSON ones (saved plans depend on them). */
import fc from "fast-check";
import { expect, test } from "vitest";
import { digestActual, fingerprintIdpUser, fingerprintMapping, hash } from "../../src/plan/fingerprint.js";
import type { Mapping } from "../../src/service/types.js";

const text = fc.string({ maxLength: 6 });
const opt = fc.option(text, { nil: undefined });

test("fingerprintMapping and fingerprintIdpUser equal hash() of the canonical object", () => {
  fc.assert(
    fc.property(
      fc.record({
        id: text,
        authenticationId: opt,
        firstname: opt,
        lastname: opt,
        email: opt,
        groups: fc.array(text, { maxLength: 3 }),
      }),
      fc.record({ email: text, displayName: text, authenticationId: text }),
      (m, u) => {
        const mapping = Object.fromEntries(
          Object.entries(m).filter(([, v]) => v !== undefined),
        ) as unknown as Mapping;
        expect(fingerprintMapping(mapping)).toBe(hash({ ...mapping, groups: [...mapping.groups].sort() }));
        expect(fingerprintIdpUser(u)).toBe(
          hash({
            email: u.email.toLowerCase(),
            displayName: u.displayName,
            authenticationId: u.authenticationId,
          }),
        );
      },
    ),
    { numRuns: 200 },
  );
});

test("digestActual: the same state in any order gives one digest; any changed object another", () => {
  const a = { id: "a", authenticationId: "x", groups: ["g"] };
  const b = { id: "b", authenticationId: "y", groups: [] };
  const state = (mappings: Mapping[]) => ({ idpUsers: [], groups: [{ id: "g", parents: [] }], mappings });
  const digest = digestActual(state([a, b]));
  expect(digest).toMatch(/^[0-9a-f]{16}$/);
  expect(digestActual(state([b, a]))).toBe(digest);
  expect(digestActual(state([a, { ...b, groups: ["g"] }]))).not.toBe(digest);
  expect(digestActual(state([a]))).not.toBe(digest);
});
