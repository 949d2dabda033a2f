/**
 * YAML reader: `version: 1`, `users:` and `groups:` lists, optional `allowEmpty: true`. A plain
 * file that has no problem is read the fast way (`readFastYaml`, js-yaml's events). Any other
 * file, and any file with a problem, is read the precise way: values from `toJS` (with the alias
 * limit that defuses billion-laughs files), lines from the parsed nodes, so every problem points
 * at its item or key. Both give the same values and lines; tests compare them.
 */
import { readFile, stat } from "node:fs/promises";
import { isMap, isScalar, isSeq } from "yaml";
import type { YAMLMap } from "yaml";
import { checkBytes } from "./byte-check.js";
import { visible } from "./characters.js";
import type { ProblemList, Where } from "./problems.js";
import type { GroupField, RawRecord, UserField } from "./records.js";
import { GROUP_FIELDS, USER_FIELDS } from "./records.js";
import { readFastYaml, type FastYaml } from "./yaml-fast.js";
import { parseYaml, type ParsedYaml } from "./yaml-text.js";
import { didYouMean } from "../suggest.js";

export const MAX_YAML_BYTES = 64 * 1024 * 1024;

const TOP_KEYS = ["version", "users", "groups", "allowEmpty"] as const;
const LIST_FIELDS: readonly string[] = ["groups", "parents"];
/** Fields whose value is read as it is and checked by their own reader (access.ts). */
const STRUCTURED_FIELDS: readonly string[] = ["workspaces", "organization", "dataFilters"];

export interface YamlRead {
  users: Array<RawRecord<UserField>>;
  groups: Array<RawRecord<GroupField>>;
  allowEmpty: boolean;
  /** The file could be parsed at all (false: nothing more to check). */
  parsed: boolean;
}

export async function readYaml(options: {
  file: string;
  problems: ProblemList;
  usersAllowed: boolean;
  /** Read the precise way only (the tests compare both ways on the same files). */
  precise?: boolean;
}): Promise<YamlRead> {
  const { file, problems } = options;
  const out = nothingRead();
  const size = (await stat(file)).size;
  if (size > MAX_YAML_BYTES) {
    problems.error(
      { file },
      "file-too-large",
      `is ${size} bytes; a YAML desired state may be at most ${MAX_YAML_BYTES} bytes (use CSV for very large files)`,
    );
    return out;
  }
  const bytes = await readFile(file);
  const finding = checkBytes(bytes);
  if (finding) {
    problems.error({ file, line: finding.line }, finding.rule, finding.message);
    return out;
  }
  const text = bytes.toString("utf8");
  if (text.trim() === "") {
    problems.error({ file }, "empty-file", "the file is empty: write version: 1 and a users list");
    return out;
  }
  const fast = options.precise ? undefined : readFastYaml(text.replace(/^\uFEFF/, ""));
  if (fast) {
    const mark = problems.items.length;
    const read = interpret(fastView(fast), options);
    if (problems.items.length === mark) return read;
    // The precise reader reports the problems, with the lines and words it has always given.
    problems.items.length = mark;
  }
  const parsed = parseYaml(text, file);
  if (parsed.problems) {
    problems.items.push(...parsed.problems.map((p) => ({ ...p, severity: "error" as const })));
    return out;
  }
  return interpret(preciseView(parsed.yaml), options);
}

const nothingRead = (): YamlRead => ({ users: [], groups: [], allowEmpty: false, parsed: false });

/** What the reader needs of a parsed file: the values, and lines to point at. */
interface YamlView {
  data: unknown;
  topIsMap: boolean;
  topLine: number | undefined;
  /** Line of a top-level key. */
  keyLine(key: string): number | undefined;
  /** The list under a top-level key (undefined: not a list). */
  list(key: string): ListLines | undefined;
}

interface ListLines {
  itemLine(i: number): number | undefined;
  /** Line of a key of item `i`, when the item is a mapping that has it. */
  fieldLine(i: number, field: string): number | undefined;
}

function preciseView({ doc, data, lineOf }: ParsedYaml): YamlView {
  const top = isMap(doc.contents) ? doc.contents : undefined;
  const keyOf = (map: YAMLMap | undefined, key: string): unknown =>
    map?.items.find((p) => isScalar(p.key) && p.key.value === key)?.key;
  return {
    data,
    topIsMap: top !== undefined,
    topLine: lineOf(doc.contents),
    keyLine: (key) => lineOf(keyOf(top, key)),
    list(key) {
      const node = top?.get(key, true);
      if (!isSeq(node)) return undefined;
      return {
        itemLine: (i) => lineOf(node.items[i]),
        fieldLine(i, field) {
          const item = node.items[i];
          return isMap(item) ? lineOf(keyOf(item, field)) : undefined;
        },
      };
    },
  };
}

function fastView(fast: FastYaml): YamlView {
  return {
    data: fast.data,
    topIsMap: fast.topIsMap,
    topLine: fast.topIsMap ? 1 : undefined,
    keyLine: (key) => fast.topKeys.get(key),
    list(key) {
      const items = fast.lists.get(key);
      if (!items) return undefined;
      return {
        itemLine: (i) => items[i]?.line,
        fieldLine: (i, field) => items[i]?.keys.get(field),
      };
    },
  };
}

function interpret(
  view: YamlView,
  options: { file: string; problems: ProblemList; usersAllowed: boolean },
): YamlRead {
  const { file, problems } = options;
  const out = nothingRead();
  const { data } = view;
  if (!isPlainObject(data) || !view.topIsMap) {
    problems.error(
      { file, line: view.topLine ?? 1 },
      "bad-type",
      "the top level must be a mapping with version: 1 and a users list",
    );
    return out;
  }
  out.parsed = true;
  checkTopLevel(view, data, options);
  out.allowEmpty = data.allowEmpty === true;

  const list = <F extends string>(key: "users" | "groups", fields: readonly F[]): Array<RawRecord<F>> =>
    readList({ view, value: data[key], key, fields, file, problems });
  if (options.usersAllowed) {
    out.users = list("users", USER_FIELDS);
  }
  out.groups = list("groups", GROUP_FIELDS);
  return out;
}

/** The top-level keys, `version` and `allowEmpty`: every problem reported, none fatal. */
function checkTopLevel(
  view: YamlView,
  data: Record<string, unknown>,
  options: { file: string; problems: ProblemList; usersAllowed: boolean },
): void {
  const { file, problems } = options;
  const { keyLine } = view;
  const allowedTop: readonly string[] = options.usersAllowed ? TOP_KEYS : ["version", "groups"];
  for (const key of Object.keys(data))
    if (!allowedTop.includes(key))
      problems.error(
        { file, line: keyLine(key) ?? 1, field: visible(key) },
        "unknown-field",
        `unknown top-level key; allowed: ${allowedTop.join(", ")}${key === "token" ? " (a token never goes into a desired-state file)" : ""}`,
      );

  if (data.version !== 1)
    problems.error(
      { file, line: keyLine("version") ?? 1, field: "version" },
      "version",
      data.version === undefined
        ? "is missing: start the file with version: 1"
        : `must be 1, not ${JSON.stringify(data.version)}`,
    );
  if (data.allowEmpty !== undefined && typeof data.allowEmpty !== "boolean")
    problems.error(
      { file, line: keyLine("allowEmpty") ?? 1, field: "allowEmpty" },
      "bad-type",
      "must be true or false",
    );
}

/** The records of a top-level list; a value that is no list, or an item that is no mapping, is a problem. */
function readList<F extends string>(o: {
  view: YamlView;
  value: unknown;
  key: "users" | "groups";
  fields: readonly F[];
  file: string;
  problems: ProblemList;
}): Array<RawRecord<F>> {
  const { view, value, key, fields, file, problems } = o;
  const { keyLine } = view;
  if (value === undefined || value === null) return [];
  const lines = view.list(key);
  if (!Array.isArray(value) || !lines) {
    problems.error(
      { file, line: keyLine(key) ?? 1, field: key },
      "bad-type",
      `must be a list (each item starting with "- ")`,
    );
    return [];
  }
  return value.flatMap((item, i) => {
    const path = `${key}[${i}]`;
    const line = lines.itemLine(i) ?? keyLine(key) ?? 1;
    if (!isPlainObject(item)) {
      problems.error(
        { file, line, field: path },
        "bad-type",
        "must be a mapping of fields (e.g. email: ...)",
      );
      return [];
    }
    const fieldLine = (field: string): number => lines.fieldLine(i, field) ?? line;
    const record = toRecord({ item, path, line, fields, file, problems, fieldLine });
    return record ? [record] : [];
  });
}

function toRecord<F extends string>(options: {
  item: Record<string, unknown>;
  path: string;
  line: number;
  fields: readonly F[];
  file: string;
  problems: ProblemList;
  fieldLine: (key: string) => number;
}): RawRecord<F> | undefined {
  const { item, path, line, fields, file, problems, fieldLine } = options;
  const where = (field: string): Where => ({ file, line: fieldLine(field), field: `${path}.${field}` });
  const text: Partial<Record<F, string>> = {};
  const lists: Partial<Record<F, string[]>> = {};
  const values: Partial<Record<F, unknown>> = {};
  let ok = true;
  for (const [key, value] of Object.entries(item)) {
    const field = fields.find((f) => f === key);
    if (field === undefined) {
      const at = { ...where(key), field: `${path}.${visible(key)}` };
      problems.error(
        at,
        "unknown-field",
        `unknown field; ${didYouMean(key, fields)}allowed: ${fields.join(", ")}`,
      );
      continue;
    }
    if (value === null || value === undefined) continue;
    if (STRUCTURED_FIELDS.includes(field)) values[field] = value;
    else if (LIST_FIELDS.includes(field)) {
      if (Array.isArray(value) && value.every((v) => typeof v === "string")) lists[field] = value as string[];
      else {
        problems.error(
          where(key),
          "bad-type",
          "must be a list of group ids (e.g. [sales, emea]); [] means no groups",
        );
        ok = false;
      }
    } else if (typeof value === "string") text[field] = value;
    else {
      problems.error(
        where(key),
        "bad-type",
        // The value is not repeated: it may be a password, and as YAML read it (007 → 7) it is
        // not what the file says anyway.
        Array.isArray(value) || typeof value === "object"
          ? `must be text, not a ${Array.isArray(value) ? "list" : "mapping"}: write one value (only groups and parents are lists)`
          : `must be text, not a ${typeof value}: put the value in quotes as written (unquoted, YAML reads 007 as the number 7 and true as a boolean)`,
      );
      ok = false;
    }
  }
  if (!ok) return undefined;
  return { line, text, lists, values, where: (field: F) => where(field) };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
