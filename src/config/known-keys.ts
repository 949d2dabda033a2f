/**
 * "Did you mean …?" for a mistyped config key (`policy.maxDelete`) or `USERSYNC_…` variable,
 * like the CLI has for flags: the keys the schema knows at that place, and the nearest one.
 */
import type { z } from "zod";
export { didYouMean } from "../suggest.js";

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The object schemas at `path`, looking through defaults, optionals, pipes, arrays and unions. */
function objectsAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): Array<Record<string, z.ZodType>> {
  const def = defOf(schema);
  const inner = def.innerType ?? def.in;
  if (inner !== undefined) return objectsAt(inner, path);
  if (def.type === "union") return (def.options ?? []).flatMap((o) => objectsAt(o, path));
  if (def.type === "array" && def.element !== undefined)
    return typeof path[0] === "number" ? objectsAt(def.element, path.slice(1)) : [];
  if (def.type !== "object" || def.shape === undefined) return [];
  if (path.length === 0) return [def.shape];
  const next = def.shape[String(path[0])];
  return next === undefined ? [] : objectsAt(next, path.slice(1));
}

/** The keys the schema takes at `path` (an issue's path). */
export function keysAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] {
  return [...new Set(objectsAt(schema, path).flatMap((shape) => Object.keys(shape)))];
}
