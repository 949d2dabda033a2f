/**
 * A partial desired state (DesiredState.partial, src/desired/sources/changes/partial.ts) holds only
 * the people a changes-only run built. Planned against a whole listing, everyone else would read
 * as gone, so `listChecked` refuses it before listing (src/cli/listing.ts): against the built-in
 * emulator, with a state whose targeted listing is not possible, it stops and nothing is written.
 */
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { toPolicy, type LoadedConfig } from "../../src/config/index.js";
import { createLogger } from "../../src/logging.js";
import { connect } from "../../src/cli/target.js";
import { listChecked } from "../../src/cli/listing.js";
import type { DesiredState } from "../../src/desired/types.js";

describe("a partial desired state and the listing", () => {
  it("is never planned against a whole listing", async () => {
    const config = {
      ...configSchema.parse({ target: { baseUrl: "embedded" } }),
      warnings: [],
    } as LoadedConfig;
    const logger = createLogger({ level: "silent", format: "json" });
    const connection = await connect({ config, logger });
    try {
      const desired: DesiredState = { users: [], groups: [], files: ["directory"] };
      // Partial, but with no targeted listing (as when more people were touched than maxPeople).
      Object.defineProperty(desired, "partial", { value: { users: 100, present: 90 }, enumerable: false });
      const policy = toPolicy(config, {});
      await expect(listChecked({ config, logger }, { connection, desired, policy })).rejects.toThrow(
        /touched people only cannot be planned against a whole listing/,
      );
      expect(connection.embedded?.requestLog().filter((r) => r.method !== "GET") ?? []).toEqual([]);
    } finally {
      await connection.close();
    }
  });
});
