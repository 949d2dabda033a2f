/** The hand-written fast fingerprints must equal the generic canonical-JSON ones (saved plans depend on them). */
import fc from "fast-check";
import { expect, test } from "vitest";
import { fingerprintIdpUser, fingerprintMapping, hash } from "../../src/plan/fingerprint.js";
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
