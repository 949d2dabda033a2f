/**
 * `source.columns` (issue 49): how a users CSV as HR exports it maps to the desired fields. Each
 * field comes from one column, or from the first non-empty of several, with simple transforms
 * (values are always trimmed; `lower`; a value `map`). docs/onboarding.md shows a whole mapping.
 */
import { z } from "zod";
import { USER_FIELDS } from "../desired/records.js";

const columnNames = z.union([
  z.string().min(1, "must name a column of the file"),
  z.array(z.string().min(1, "must name a column of the file")).min(1, "must name at least one column"),
]);

const mappedField = z.union([
  columnNames,
  z.strictObject({
    /** The column, or columns tried in order: the first non-empty value is taken. */
    from: columnNames,
    /** Lower-cases the value (an e-mail written in capitals). */
    lower: z.boolean().default(false),
    /** Replaces a whole value (each item of a list field): HR's department name -> a group id. */
    map: z.record(z.string(), z.string()).optional(),
  }),
]);

/** Unset: the file's header uses usersync's own column names (docs/desired-state.md). */
export const columnsSection = z.partialRecord(z.enum(USER_FIELDS), mappedField).optional();

export type ColumnsConfig = NonNullable<z.infer<typeof columnsSection>>;
