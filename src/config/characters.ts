/**
 * Characters in config values, by the desired state's rules (src/desired/characters.ts): no
 * control character in any value (from an escape in the file, or an environment variable), and
 * nothing invisible in the lists that name logins, emails, ids and groups: a `policy.protect`
 * entry with a zero-width space in it protects nobody.
 */
import { screenValue, type CharacterKind } from "../desired/characters.js";
import { ProblemList } from "../desired/problems.js";
import type { Problem } from "../errors.js";
import type { Origin, Tree } from "./layers.js";

const KEY_LISTS: readonly string[] = [
  "policy.protect",
  "policy.scope.emailDomains",
  "policy.scope.idPatterns",
  "policy.scope.groups",
];

export function characterProblems(tree: Tree, originOf: (path: string) => Origin): Problem[] {
  const problems = new ProblemList();
  const screen = (value: string, path: string, field: string): void => {
    const kind: CharacterKind = KEY_LISTS.includes(path) ? "key" : "text";
    screenValue({ value, kind, where: { ...originOf(path), field }, problems });
  };
  // The tree is a parsed YAML file (nesting capped by parseYaml) merged with flat layers.
  const walk = (value: unknown, path: string): void => {
    if (typeof value === "string") screen(value, path, path);
    else if (Array.isArray(value))
      value.forEach((v, i) => (typeof v === "string" ? screen(v, path, `${path}[${i}]`) : walk(v, path)));
    else if (typeof value === "object" && value !== null)
      for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k);
  };
  walk(tree, "");
  return problems.items;
}
