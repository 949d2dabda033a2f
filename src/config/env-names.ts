/** The environment variable of a config key. */

/** `policy.maxDeletes` -> `USERSYNC_POLICY_MAX_DELETES` */
export function envNameOf(leaf: string): string {
  return `USERSYNC_${leaf
    .split(".")
    .map((part) => part.replace(/([a-z0-9])([A-Z])/g, "$1_$2"))
    .join("_")
    .toUpperCase()}`;
}
