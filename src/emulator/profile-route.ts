/** `GET /api/v1/profile`: the official `Profile` shape, telling the caller which user the token belongs to. */
import { createHash } from "node:crypto";
import { JSON_TYPE, ProblemError, type Reply } from "./http-util.js";
import type { RouteContext } from "./route-context.js";

export { ORGANIZATION_ID } from "./store.js";

export function profileReply(ctx: RouteContext, userId: string): Reply {
  if (ctx.method !== "GET") throw new ProblemError(405, `${ctx.method} is not allowed on the profile (GET)`);
  const organizationId = ctx.store.organizationId;
  const hash = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 32);
  return {
    status: 200,
    contentType: JSON_TYPE,
    body: {
      organizationId,
      organizationName: "Emulated organization",
      name: userId,
      userId,
      permissions: ["MANAGE"],
      telemetryConfig: {
        context: {
          deploymentId: "usersync-emulator",
          organizationHash: hash(organizationId),
          userHash: hash(userId),
        },
        services: {},
      },
      features: { static: { context: { earlyAccess: "", earlyAccessValues: [] }, items: {} } },
      entitlements: [],
      links: {
        self: `${ctx.base}/api/v1/profile`,
        organization: `${ctx.base}/api/v1/entities/admin/organizations/${encodeURIComponent(organizationId)}`,
        user: `${ctx.base}/api/v1/entities/users/${encodeURIComponent(userId)}`,
      },
    },
  };
}
