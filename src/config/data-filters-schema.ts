/**
 * The `dataFilters` section of the config (docs/data-filters.md): on which workspaces usersync
 * keeps user data filters, and the guard over widenings (a filter removed or widened while the
 * access it guards remains).
 */
import { z } from "zod";
import { countOrPercent } from "./values.js";

export const dataFiltersSection = z.strictObject({
  /** `all` (or `*`), one glob, or a list of workspace ids and globs. Unset: no data filter is managed. */
  workspaces: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
  maxWidenings: countOrPercent({
    minCount: 0,
    help: 'must be a count (e.g. 5) or a percentage of the managed data filters (e.g. "10%")',
    key: "dataFilters.maxWidenings",
  }).default(0),
});

/** Its keys for `USERSYNC_DATA_FILTERS_…` environment overrides (schema.ts LEAVES). */
export const DATA_FILTER_LEAVES = {
  "dataFilters.workspaces": "list",
  "dataFilters.maxWidenings": "countOrPercent",
} as const;
