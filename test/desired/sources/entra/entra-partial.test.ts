/**
 * Entra's partial build (BuildInput.only, src/desired/sources/changes/partial.ts) against its
 * whole build, on pictures read whole from the Graph stand-in over a real socket: the small tenant
 * (nested groups, `parents: directory`, a group picked by id) and a generated one (guests, who are
 * skipped, disabled people, people in two groups). Each person's record is the whole build's, line
 * and groups included, and the group sizes are the whole read's.
 */
import { describe, it } from "vitest";
import { createLogger } from "../../../../src/logging.js";
import { configSchema } from "../../../../src/config/schema.js";
import { openEntraFeed } from "../../../../src/desired/sources/entra/feed.js";
import { generateTenant, STAND_IN_CLIENT, STAND_IN_TENANT } from "../../../../src/emulator/graph/generate.js";
import { SECRET, entraSettings, startStandIn } from "../../../helpers/entra.js";
import { expectPartialBuildsAgree, usingFeed } from "../../../helpers/change-feed.js";

const ctx = {
  env: { USERSYNC_ENTRA_CLIENT_SECRET: SECRET },
  logger: createLogger({ level: "silent", format: "json" }),
  defaultIdentity: "builtin" as const,
};

describe("Entra's partial build agrees with its whole build", () => {
  it("the small tenant: nested groups, parents from the directory, a group picked by id", async () => {
    const graph = await startStandIn();
    try {
      const config = configSchema.parse({ source: { type: "entra", entra: entraSettings(graph.url) } });
      await usingFeed(openEntraFeed(config, ctx), async (feed) => {
        const { picture } = await feed.readWhole();
        for (const seed of [1, 2, 3]) expectPartialBuildsAgree(feed, picture, ctx, seed);
      });
    } finally {
      await graph.close();
    }
  });

  it("a generated tenant: guests skipped, disabled people, people in two groups", async () => {
    const graph = await startStandIn({ tenant: generateTenant({ people: 400, groups: 4, secret: SECRET }) });
    try {
      const entra = {
        ...entraSettings(graph.url),
        tenant: STAND_IN_TENANT,
        clientId: STAND_IN_CLIENT,
        groups: [{ filter: "startswith(displayName,'Team')" }],
      };
      const config = configSchema.parse({ source: { type: "entra", entra } });
      await usingFeed(openEntraFeed(config, ctx), async (feed) => {
        const { picture } = await feed.readWhole();
        for (const seed of [1, 2]) expectPartialBuildsAgree(feed, picture, ctx, seed);
      });
    } finally {
      await graph.close();
    }
  });
});
