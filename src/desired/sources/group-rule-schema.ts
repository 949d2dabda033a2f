/**
 * The one group rule every directory shares (docs/sources.md, "Group rules"). A directory adds only
 * its way to pick groups (LDAP `dn`/`cn`, Entra `objectId`/`displayName`/`filter`, Okta
 * `groupId`/`groupName`/`search`); everything else here means the same in every directory, and
 * group-rule.ts applies it to a picked group the same way for all of them. It imports zod only, so
 * the config's schemas can build on it without a cycle.
 */
import { z } from "zod";

const template = z.string().min(1);

/** What a rule says a picked group becomes: the same keys, defaults and meaning in every directory. */
export const GROUP_RULE_FIELDS = {
  /** The user group's id: a template over the group's attributes, made a valid id. Default: the group's name. */
  id: template.optional(),
  /** The user group's name: a template. Default: the group's name (`{cn}`, `{displayName}`, `{name}`). */
  name: template.optional(),
  /** The id (and a templated workspace key) in lower case; false keeps the case and still makes it valid. */
  lowerCase: z.boolean().default(true),
  /** `directory`: the nearest picked groups it is nested in; a list: those; unset: left as they are. */
  parents: z.union([z.literal("directory"), z.array(z.string().min(1))]).optional(),
  /** Workspace permissions of every group the rule picks; a key may be a template (`"ws-{cn}"`). */
  workspaces: z.record(z.string(), z.unknown()).optional(),
  /** Data filters of every group the rule picks; the workspace key and each value may be templates. */
  dataFilters: z.record(z.string(), z.unknown()).optional(),
  /** Organization permissions of every group the rule picks. */
  organization: z.array(z.string()).optional(),
};

/** The shared part of every directory's rule, as parsed. */
export type GroupRule = z.infer<z.ZodObject<typeof GROUP_RULE_FIELDS>>;

/**
 * A directory's rule: its own pick keys beside the shared fields. `pick: "one"` wants exactly one
 * of the pick keys, `"any"` at least one; an empty selector is refused (a blank pattern is never "all").
 */
export function groupRuleSchema<S extends z.ZodRawShape>(
  pickKeys: S,
  pick: { mode: "one" | "any"; message: string },
) {
  const names = Object.keys(pickKeys);
  return z.strictObject({ ...pickKeys, ...GROUP_RULE_FIELDS }).refine(
    (rule) => {
      const set = names.filter((k) => (rule as Record<string, unknown>)[k] !== undefined).length;
      return pick.mode === "one" ? set === 1 : set >= 1;
    },
    { error: pick.message },
  );
}
