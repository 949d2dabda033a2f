/**
 * The `permissions` section of the config (docs/permissions.md): which workspace and
 * organization permissions usersync may change, and the guard over their removals.
 */
import { z } from "zod";

const MAX_REMOVALS_HELP =
  'must be a count (e.g. 25) or a percentage of the managed permission assignments (e.g. "10%")';

/** `percent`: the pattern of a percentage (`10%`), shared with `policy.maxDeletes`. */
export function permissionsSection(percent: RegExp) {
  return z.strictObject({
    /** `all` (or `*`), one glob, or a list of workspace ids and globs. Unset: no workspace permission is managed. */
    workspaces: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
    maxRemovals: z
      .union(
        [
          z.number().int(MAX_REMOVALS_HELP).min(0, MAX_REMOVALS_HELP),
          z.string().regex(percent, MAX_REMOVALS_HELP),
        ],
        { error: MAX_REMOVALS_HELP },
      )
      .default("10%"),
    organization: z.strictObject({ allowManage: z.boolean().default(false) }).prefault({}),
  });
}
