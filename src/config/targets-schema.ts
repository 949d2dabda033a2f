/**
 * `targets:` (issue 31, docs/multi-org.md): many organizations from one config. Each entry names
 * one organization: its URL, its own token, its slice of the source (its own desired file, or a
 * selector over the shared source) and overrides of `policy` and `permissions`. Everything else
 * (execution, identity, output, state, logging) is shared; output and state paths become one per
 * target (targets.ts).
 */
import { z } from "zod";
import { USER_FIELDS } from "../desired/records.js";
import { countOrPercent } from "./values.js";

/** A DNS label: it names Secrets, files, metrics labels and the Indexed Job's order. */
export const TARGET_NAME = /^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/;

const path = z.string().min(1, "must be a file path");
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name");

/** Which people and groups of the shared source a target receives (desired/slice.ts). */
const select = z
  .strictObject({
    /** Members of these groups (ids, `*` globs) or of any group below them, with their groups. */
    groups: z.array(z.string().min(1)).min(1).optional(),
    /** Users whose CSV column `name` holds `value` (the users file's extra column). */
    column: z.strictObject({ name: z.string().min(1), value: z.string() }).optional(),
    /** Everyone: the target mirrors the whole source (said explicitly, never a default). */
    all: z.literal(true).optional(),
  })
  .refine((s) => [s.groups, s.column, s.all].filter((x) => x !== undefined).length === 1, {
    error: "select needs exactly one of groups, column or all",
  });

export const targetEntry = z.strictObject({
  name: z
    .string()
    .regex(TARGET_NAME, "must be a lower-case DNS label of at most 40 characters (a-z, 0-9, -)"),
  baseUrl: z.string().min(1),
  apiProfile: z.enum(["auto", "v1", "legacy"]).optional(),
  /** Default: USERSYNC_TOKEN_<NAME> (or target.tokenFile when it holds {target}); never another target's. */
  tokenEnv: envName.optional(),
  tokenFile: path.optional(),
  /** Allows this target's token to be the same variable or file as another target's. */
  shareToken: z.boolean().default(false),
  caFile: path.optional(),
  allowInsecureHttp: z.boolean().optional(),
  embeddedData: path.optional(),
  /** Its own desired state (not the shared source). */
  desired: path.optional(),
  groups: path.optional(),
  format: z.enum(["auto", "yaml", "csv"]).optional(),
  select: select.optional(),
  /** A select that gives nobody is refused (exit 4) unless this organization may be empty. */
  allowEmptySlice: z.boolean().default(false),
  /** This organization's slice (or own file) must give at least this many people: overrides source.minUsers. */
  minUsers: countOrPercent({
    minCount: 1,
    help: 'must be a count (e.g. 40) or a percentage of the organization\'s managed users (e.g. "90%")',
    key: "targets[].minUsers",
  }).optional(),
  /** Merged over the shared sections, key by key, and checked as they are (targets.ts). */
  policy: z.record(z.string(), z.unknown()).optional(),
  permissions: z.record(z.string(), z.unknown()).optional(),
});

export type TargetEntry = z.infer<typeof targetEntry>;

export const targetsSection = z
  .array(targetEntry)
  .default([])
  .superRefine((entries, ctx) => {
    const seen = new Set<string>();
    entries.forEach((e, i) => {
      if (seen.has(e.name))
        ctx.addIssue({ code: "custom", path: [i, "name"], message: `the name ${e.name} is used twice` });
      seen.add(e.name);
      if ((e.desired === undefined) === (e.select === undefined))
        ctx.addIssue({
          code: "custom",
          path: [i],
          message:
            "a target needs its slice: desired: FILE (its own desired state) or select: {groups: [...]} | {column: {name, value}} | {all: true} over the shared source, not both",
        });
      const column = e.select?.column?.name;
      if (column !== undefined && USER_FIELDS.some((f) => f.toLowerCase() === column.toLowerCase()))
        ctx.addIssue({
          code: "custom",
          path: [i, "select", "column", "name"],
          message: `${column} is a column of the desired state (${USER_FIELDS.join(", ")}): select by a column of its own, e.g. tenant`,
        });
      if (e.groups !== undefined && e.desired === undefined)
        ctx.addIssue({
          code: "custom",
          path: [i, "groups"],
          message: "groups goes with desired (a CSV's groups file)",
        });
    });
  });
