/** The group ids of a record (a user's groups, a group's parents), checked. */
import { visible } from "./characters.js";
import { isValidId } from "./ids.js";
import type { ProblemList, Where } from "./problems.js";

/** A value that may be a group's name (group-names.ts): visible characters, at most 255. */
const GROUP_NAME = /^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]{1,255}$/u;

/** `names`: a user's groups may name a group (resolved by group-names.ts); parents are ids only. */
export function checkGroupIds(
  where: Where,
  ids: readonly string[] | undefined,
  problems: ProblemList,
  options: { names?: boolean } = {},
): void {
  for (const g of ids ?? [])
    if (!isValidId(g) && !(options.names === true && GROUP_NAME.test(g)))
      problems.error(
        where,
        "bad-group-id",
        `"${visible(g)}" is not a valid group id (letters, digits, ".", "_", "-"; not starting with "."; at most 255)`,
      );
}
