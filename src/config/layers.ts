/**
 * The three sources of config values, each turned into a plain nested object with the origin of
 * every key (for messages): the YAML file (with line numbers), `USERSYNC_…` environment
 * variables, and CLI flags. Precedence is applied by merging them in order.
 */
import { readFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { keyLines, parseYaml } from "../desired/yaml-text.js";
import type { Problem } from "../errors.js";
import { envNameOf, LEAVES, PERCENT_PATTERN, PATH_LEAVES } from "./schema.js";
import { OKTA_PATH_LEAVES } from "../desired/sources/okta/schema.js";
import type { LeafKind } from "./schema.js";
import { didYouMean } from "./known-keys.js";

export type Tree = Record<string, unknown>;

/** Where a value came from: a file (and line), an environment variable or a flag. */
export interface Origin {
  file: string;
  line?: number;
}

export interface Layer {
  data: Tree;
  /** Dotted key path -> origin. */
  origins: Map<string, Origin>;
  problems: Problem[];
}

export async function fileLayer(file: string): Promise<Layer> {
  const layer: Layer = { data: {}, origins: new Map(), problems: [] };
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as { code?: string }).code ?? "unknown error";
    layer.problems.push({
      file,
      rule: "file-not-found",
      message: `cannot read the config file (${code}): check the --config path`,
    });
    return layer;
  }
  const parsed = parseYaml(text, file);
  if (parsed.problems) {
    layer.problems.push(...parsed.problems);
    return layer;
  }
  const { data } = parsed.yaml;
  if (data === null || data === undefined) return layer;
  if (typeof data !== "object" || Array.isArray(data)) {
    layer.problems.push({
      file,
      line: 1,
      rule: "bad-type",
      message: "the config file must be a mapping of sections (target, source, policy, ...)",
    });
    return layer;
  }
  // `key:` with nothing after it (e.g. a section whose keys are all commented out) means unset.
  layer.data = dropNulls(data as Tree);
  for (const [path, line] of keyLines(parsed.yaml)) layer.origins.set(path, { file, line });
  return layer;
}

/**
 * The variables Kubernetes puts into every pod of a namespace with a Service named `usersync`
 * (service links): not settings, and not typos either.
 */
const SERVICE_LINK =
  /^USERSYNC_(SERVICE_HOST|SERVICE_PORT(_\w+)?|PORT(_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?)$/;

/**
 * `USERSYNC_<SECTION>_<KEY>` variables, typed by `LEAVES`. Any other `USERSYNC_` name is a
 * problem (exit 4) with the nearest known one: in a CronJob the settings are variables, and a
 * typo (`USERSYNC_POLICY_MAXDELETES`) would otherwise silently run with the default guard.
 */
export function envLayer(
  env: NodeJS.ProcessEnv,
  ignore: ReadonlySet<string>,
): Layer & { warnings: string[] } {
  const layer = {
    data: {} as Tree,
    origins: new Map<string, Origin>(),
    problems: [] as Problem[],
    warnings: [] as string[],
  };
  const byName = new Map(Object.entries(LEAVES).map(([leaf, kind]) => [envNameOf(leaf), { leaf, kind }]));
  for (const [name, raw] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b))) {
    if (!name.startsWith("USERSYNC_") || raw === undefined || ignore.has(name) || SERVICE_LINK.test(name))
      continue;
    const known = byName.get(name);
    if (!known) {
      layer.problems.push({
        file: `env ${name}`,
        rule: "unknown-env",
        message: `not a config key; ${didYouMean(name, [...byName.keys()])}unset it, or see docs/configuration.md for the variables`,
      });
      continue;
    }
    const origin = { file: `env ${name}` };
    const value = parseTyped(raw, known.kind);
    if (value === undefined) {
      layer.problems.push({
        ...origin,
        field: known.leaf,
        rule: "bad-env",
        message: `"${raw}" is not ${describe(known.kind)}`,
      });
      continue;
    }
    setPath(layer.data, known.leaf, value);
    layer.origins.set(known.leaf, origin);
  }
  return layer;
}

/** CLI flags: a map of dotted key path -> value, named by the flag for messages. */
export function flagLayer(values: ReadonlyArray<{ leaf: string; flag: string; value: unknown }>): Layer {
  const layer: Layer = { data: {}, origins: new Map(), problems: [] };
  for (const { leaf, flag, value } of values) {
    if (value === undefined) continue;
    setPath(layer.data, leaf, value);
    layer.origins.set(leaf, { file: flag });
  }
  return layer;
}

function parseTyped(raw: string, kind: LeafKind): unknown {
  const v = raw.trim();
  switch (kind) {
    case "string":
      return v === "" ? undefined : v;
    case "number":
      return v !== "" && Number.isFinite(Number(v)) ? Number(v) : undefined;
    case "boolean":
      return /^(true|1|yes|on)$/i.test(v) ? true : /^(false|0|no|off)$/i.test(v) ? false : undefined;
    case "list": {
      // An empty list would widen policy.scope to everything or empty policy.protect: never
      // from a variable that is merely set to nothing (a template that rendered no value).
      const items = v
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
      return items.length > 0 ? items : undefined;
    }
    case "countOrPercent":
      return /^\d+$/.test(v) ? Number(v) : PERCENT_PATTERN.test(v) ? v : undefined;
  }
}

function describe(kind: LeafKind): string {
  return {
    string: "a non-empty value",
    number: "a number",
    boolean: "true or false",
    list: "a non-empty comma-separated list (unset the variable to keep the config file's list)",
    countOrPercent: 'a count (25) or a percentage ("10%")',
  }[kind];
}

/**
 * `tree[key] = value`, as an own property even for `__proto__` (which plain assignment would
 * turn into the object's prototype, hiding it from the unknown-key check).
 */
function put(tree: Tree, key: string, value: unknown): void {
  Object.defineProperty(tree, key, { value, enumerable: true, writable: true, configurable: true });
}

function dropNulls(tree: Tree): Tree {
  const out: Tree = {};
  for (const [k, v] of Object.entries(tree)) {
    if (v === null) continue;
    put(out, k, typeof v === "object" && !Array.isArray(v) ? dropNulls(v as Tree) : v);
  }
  return out;
}

export function getPath(tree: Tree, leaf: string): unknown {
  let node: unknown = tree;
  for (const part of leaf.split(".")) {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return undefined;
    node = (node as Tree)[part];
  }
  return node;
}

export function setPath(tree: Tree, leaf: string, value: unknown): void {
  const parts = leaf.split(".");
  let node = tree;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== "object" || next === null || Array.isArray(next)) node[part] = {};
    node = node[part] as Tree;
  }
  node[parts[parts.length - 1]!] = value;
}

/** Deep merge: later layers win key by key; lists and scalars are replaced whole. */
export function merge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    const bothObjects = [b, v].every((x) => typeof x === "object" && x !== null && !Array.isArray(x));
    put(out, k, bothObjects ? merge(b as Tree, v as Tree) : v);
  }
  return out;
}

/** Relative paths of a layer resolve against its base folder, so a config file works from any cwd. */
export function resolvePaths(tree: Tree, baseDir: string): void {
  for (const leaf of [...PATH_LEAVES, ...OKTA_PATH_LEAVES]) {
    const v = getPath(tree, leaf);
    if (typeof v === "string" && v !== "" && !isAbsolute(v)) setPath(tree, leaf, resolve(baseDir, v));
  }
}
