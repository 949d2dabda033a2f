/**
 * `source.changes` (docs/sources.md, "Changes-only runs"): whether a directory source reads only
 * what changed since its last run, and the limits after which it reads whole.
 */
import { z } from "zod";
import { DURATION_PATTERN } from "../../../config/values.js";

const DURATION_HELP =
  'must be a duration such as "24h", "7d", "1d12h" or "90m" (units w, d, h, m, s), or 0 for never';
const duration = z.union([z.string().regex(DURATION_PATTERN, DURATION_HELP), z.literal(0)], {
  error: DURATION_HELP,
});

export const changesSection = z
  .strictObject({
    /**
     * `off`: every run reads whole (and keeps no picture). `changes`: read only the changes when a
     * picture is kept and still good, else whole. `whole`: the full reconcile (a whole read and a
     * whole listing of the service), keeping the picture for the runs of mode `changes`.
     */
    mode: z.enum(["off", "changes", "whole"]).default("off"),
    /** A run of mode `changes` reads whole and lists whole when this long has passed since the last full one. */
    fullEvery: duration.default("24h"),
    /** A picture whose whole read is older than this is not used: the run reads whole. */
    maxAge: duration.default("7d"),
    /** At most this many people touched by the changes are listed one by one on the service; more: list whole. */
    maxPeople: z.number().int().min(0).max(100_000).default(100),
  })
  .prefault({});

export type ChangesConfig = z.infer<typeof changesSection>;

export const CHANGES_LEAVES = {
  "source.changes.mode": "string",
  "source.changes.fullEvery": "string",
  "source.changes.maxAge": "string",
  "source.changes.maxPeople": "number",
} as const;
