/**
 * The `permissions` section of the config (docs/permissions.md): which workspace and
 * organization permissions usersync may change, and the guard over their removals.
 */
import { z } from "zod";
import { countOrPercent } from "./values.js";

export const permissionsSection = z.strictObject({
  /** `all` (or `*`), one glob, or a list of workspace ids and globs. Unset: no workspace permission is managed. */
  workspaces: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
  maxRemovals: countOrPercent({
    minCount: 0,
    help: 'must be a count (e.g. 25) or a percentage of the managed permission assignments (e.g. "10%")',
    key: "permissions.maxRemovals",
  }).default("10%"),
  organization: z.strictObject({ allowManage: z.boolean().default(false) }).prefault({}),
});
