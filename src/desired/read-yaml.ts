/**
 * YAML reader: `version: 1`, `users:` and `groups:` lists, optional `allowEmpty: true`. Values
 * come from `toJS` (with the alias limit that defuses billion-laughs files); lines come from the
 * parsed nodes, so every problem points at its item or key.
 */
import { readFile, stat } from "node:fs/promises";
import { isMap, isScalar, isSeq } from "yaml";
import type { YAMLMap } from "yaml";
import { checkBytes } from "./byte-check.js";
import type { ProblemList, Where } from "./problems.js";
import type { GroupField, RawRecord, UserField } from "./records.js";
import { GROUP_FIELDS, USER_FIELDS } from "./records.js";
import { parseYaml } from "./yaml-text.js";

export const MAX_YAML_BYTES = 64 * 1024 * 1024;

const TOP_KEYS = ["version", "users", "groups", "allowEmpty"] as const;
const LIST_FIELDS: readonly string[] = ["groups", "parents"];

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
}): Promise<YamlRead> {
  const { file, problems } = options;
  const out: YamlRead = { users: [], groups: [], allowEmpty: false, parsed: false };
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
  const parsed = parseYaml(text, file);
  if (parsed.problems) {
    problems.items.push(...parsed.problems.map((p) => ({ ...p, severity: "error" as const })));
    return out;
  }
  const { doc, data, lineOf } = parsed.yaml;
  if (!isPlainObject(data) || !isMap(doc.contents)) {
    problems.error(
      { file, line: lineOf(doc.contents) ?? 1 },
      "bad-type",
      "the top level must be a mapping with version: 1 and a users list",
    );
    return out;
  }
  out.parsed = true;
  const top = doc.contents;
  const keyLine = (map: YAMLMap, key: string): number | undefined =>
    lineOf(map.items.find((p) => isScalar(p.key) && p.key.value === key)?.key);
  const allowedTop: readonly string[] = options.usersAllowed ? TOP_KEYS : ["version", "groups"];
  for (const key of Object.keys(data))
    if (!allowedTop.includes(key))
      problems.error(
        { file, line: keyLine(top, key) ?? 1, field: key },
        "unknown-field",
        `unknown top-level key; allowed: ${allowedTop.join(", ")}${key === "token" ? " (a token never goes into a desired-state file)" : ""}`,
      );

  if (data.version !== 1)
    problems.error(
      { file, line: keyLine(top, "version") ?? 1, field: "version" },
      "version",
      data.version === undefined
        ? "is missing: start the file with version: 1"
        : `must be 1, not ${JSON.stringify(data.version)}`,
    );
  if (data.allowEmpty !== undefined && typeof data.allowEmpty !== "boolean")
    problems.error(
      { file, line: keyLine(top, "allowEmpty") ?? 1, field: "allowEmpty" },
      "bad-type",
      "must be true or false",
    );
  out.allowEmpty = data.allowEmpty === true;

  const list = <F extends string>(key: "users" | "groups", fields: readonly F[]): Array<RawRecord<F>> => {
    const value = data[key];
    if (value === undefined || value === null) return [];
    const node = doc.get(key, true);
    if (!Array.isArray(value) || !isSeq(node)) {
      problems.error(
        { file, line: keyLine(top, key) ?? 1, field: key },
        "bad-type",
        `must be a list (each item starting with "- ")`,
      );
      return [];
    }
    return value.flatMap((item, i) => {
      const itemNode = node.items[i];
      const path = `${key}[${i}]`;
      const line = lineOf(itemNode) ?? keyLine(top, key) ?? 1;
      if (!isPlainObject(item)) {
        problems.error(
          { file, line, field: path },
          "bad-type",
          "must be a mapping of fields (e.g. email: ...)",
        );
        return [];
      }
      const record = toRecord({ item, itemNode, path, line, fields, file, problems, lineOf });
      return record ? [record] : [];
    });
  };
  if (options.usersAllowed) {
    out.users = list("users", USER_FIELDS);
  }
  out.groups = list("groups", GROUP_FIELDS);
  return out;
}

function toRecord<F extends string>(options: {
  item: Record<string, unknown>;
  itemNode: unknown;
  path: string;
  line: number;
  fields: readonly F[];
  file: string;
  problems: ProblemList;
  lineOf: (node: unknown) => number | undefined;
}): RawRecord<F> | undefined {
  const { item, path, line, fields, file, problems, lineOf } = options;
  const map = isMap(options.itemNode) ? options.itemNode : undefined;
  const fieldLine = (key: string): number =>
    lineOf(map?.items.find((p) => isScalar(p.key) && p.key.value === key)?.key) ?? line;
  const where = (field: string): Where => ({ file, line: fieldLine(field), field: `${path}.${field}` });
  const text: Partial<Record<F, string>> = {};
  const lists: Partial<Record<F, string[]>> = {};
  let ok = true;
  for (const [key, value] of Object.entries(item)) {
    const field = fields.find((f) => f === key);
    if (field === undefined) {
      problems.error(where(key), "unknown-field", `unknown field; allowed: ${fields.join(", ")}`);
      continue;
    }
    if (value === null || value === undefined) continue;
    if (LIST_FIELDS.includes(field)) {
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
        `must be text, not ${Array.isArray(value) ? "a list" : typeof value}: quote the value (e.g. "${String(value)}")`,
      );
      ok = false;
    }
  }
  if (!ok) return undefined;
  return { line, text, lists, where: (field: F) => where(field) };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
