/**
 * Reading a desired state: one users file (YAML or CSV), an optional groups file, every problem
 * of every rule in one pass. Never throws for bad input; the caller decides (exit 4 on errors).
 */
import { readdir, stat } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { closest } from "../suggest.js";
import { checkGroups, checkUsers } from "./checks.js";
import { ProblemList, sortProblems } from "./problems.js";
import { readCsv } from "./read-csv.js";
import type { CsvShape } from "./read-csv.js";
import { readYaml } from "./read-yaml.js";
import type { ColumnMapping } from "./column-map.js";
import { GROUP_FIELDS, normaliseGroup, normaliseUser, USER_FIELDS } from "./records.js";
import type { GroupField, RecordContext, UserField } from "./records.js";
import type { DesiredFormat, DesiredGroup, DesiredUser, Identity, ReadDesiredResult } from "./types.js";

export type {
  DesiredFormat,
  DesiredGroup,
  DesiredState,
  DesiredUser,
  Evidence,
  Identity,
  ReadDesiredResult,
} from "./types.js";
export { readLdapDesired, renderDesiredYaml, type LdapConfig } from "./sources/ldap/index.js";
export { deriveUserId, emailProblem, isValidId, ID_PATTERN } from "./ids.js";
export { validateForProfile } from "./profile.js";
export { groupsPathFor, renderExport } from "./export.js";
export type { ExportOptions, ExportResult } from "./export.js";
export { isError } from "./problems.js";
export { resolveGroupNames } from "./group-names.js";
export { isDay } from "./dates.js";
export type { ColumnMapping } from "./column-map.js";
export { sliceDesired, type SliceSelector } from "./slice.js";
export { keyLines, parseYaml } from "./yaml-text.js";

export interface ReadDesiredOptions {
  file: string;
  groupsFile?: string;
  /** Default: by extension (.yaml, .yml, .csv). */
  format?: DesiredFormat;
  defaults?: { identity?: Identity };
  /** Extra columns of a users CSV kept on each user (`columns`) for a target's selector. */
  columns?: readonly string[];
  /** `source.columns`: a users CSV's own header mapped to the fields (column-map.ts). */
  mapping?: ColumnMapping;
}

const USERS_CSV: CsvShape<UserField> = {
  fields: USER_FIELDS,
  required: ["email"],
  lists: ["groups", "organization"],
  noun: "user",
};
const GROUPS_CSV: CsvShape<GroupField> = {
  fields: GROUP_FIELDS,
  required: ["id"],
  lists: ["parents", "organization"],
  noun: "group",
};

export async function readDesiredState(options: ReadDesiredOptions): Promise<ReadDesiredResult> {
  const problems = new ProblemList();
  const files = [options.file, ...(options.groupsFile !== undefined ? [options.groupsFile] : [])];
  const users: DesiredUser[] = [];
  const groups: DesiredGroup[] = [];
  const defaultIdentity = options.defaults?.identity ?? "builtin";

  const main = await readSafely({
    file: options.file,
    format: options.format,
    role: "users",
    columns: options.columns,
    mapping: options.mapping,
    problems,
    defaultIdentity,
    users,
    groups,
  });
  if (options.groupsFile !== undefined)
    await readSafely({
      file: options.groupsFile,
      format: undefined,
      role: "groups",
      problems,
      defaultIdentity,
      users,
      groups,
    });

  if (main.readable && users.length === 0 && !main.allowEmpty && !problems.hasErrors)
    problems.error(
      { file: options.file },
      "empty-file",
      main.format === "csv"
        ? "has no user rows: an empty desired state is never valid input by accident (a file cut short?)"
        : "has no users: an empty desired state is never valid by accident; write allowEmpty: true at the top if you mean it",
    );
  checkUsers(users, problems);
  checkGroups(groups, users, problems);
  return { state: { users, groups, files }, problems: sortProblems(problems.items, files) };
}

interface ReadOneOptions {
  file: string;
  format: DesiredFormat | undefined;
  role: "users" | "groups";
  columns?: readonly string[] | undefined;
  mapping?: ColumnMapping | undefined;
  problems: ProblemList;
  defaultIdentity: Identity;
  users: DesiredUser[];
  groups: DesiredGroup[];
}

interface ReadOneResult {
  readable: boolean;
  allowEmpty: boolean;
  format: DesiredFormat | undefined;
}

/** An I/O failure half-way (permissions, a vanished file) is a problem too: the reader never throws for input. */
async function readSafely(options: ReadOneOptions): Promise<ReadOneResult> {
  try {
    return await readOne(options);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    options.problems.error(
      { file: options.file },
      "file-unreadable",
      `cannot be read (${typeof code === "string" ? code : (err as Error).message}): check its permissions`,
    );
    return { readable: false, allowEmpty: false, format: undefined };
  }
}

/**
 * The path names a file; otherwise the problem is reported. A path that is not there is
 * `file-not-found` (exit 5: a share may not be mounted yet), unless its folder holds a desired
 * state file of nearly that name: then it is a typo (`path-typo`, exit 4), and a Job must not
 * retry it. An empty folder is what the kubelet mounts for a missing subPath: not there (yet),
 * exit 5. A folder with files in it is a person naming the folder (`--desired fixtures/demo`):
 * `not-a-file`, exit 4, no later run fixes that.
 */
async function isReadableFile(file: string, problems: ProblemList): Promise<boolean> {
  try {
    if ((await stat(file)).isFile()) return true;
    const inside = await readdir(file);
    if (inside.length === 0)
      problems.error(
        { file },
        "file-not-found",
        "is an empty folder where the file belongs (what Kubernetes mounts for a missing subPath): check that the file is there",
      );
    else {
      const files = inside.filter((n) => formatOf(n) !== undefined).sort();
      const hint =
        files.length > 0 ? ` (${files.slice(0, 3).join(", ")}${files.length > 3 ? ", …" : ""})` : "";
      problems.error(
        { file },
        "not-a-file",
        `is a folder, not a file: name the desired-state file in it${hint}`,
      );
    }
  } catch {
    const near = await nearbyFile(file);
    if (near !== undefined)
      problems.error(
        { file },
        "path-typo",
        `does not exist; did you mean ${near}? Its folder holds that file`,
      );
    else
      problems.error(
        { file },
        "file-not-found",
        `does not exist: check the path (relative paths start at the current directory)`,
      );
  }
  return false;
}

/** A YAML or CSV file beside `file` with its name but another extension, or a name one or two letters off. */
async function nearbyFile(file: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = (await readdir(dirname(file))).filter((n) => formatOf(n) !== undefined);
  } catch {
    return undefined;
  }
  const stem = (n: string): string => basename(n, extname(n)).toLowerCase();
  const typed = basename(file);
  // A name that differs in its digits is another file (users-2026-10.csv for users-2026-11.csv:
  // another month's batch), never a typo of this one: only names with the same digits are offered.
  const digits = (n: string): string => (basename(n).match(/\d+/g) ?? []).join("-");
  const sameDigits = names.filter((n) => digits(n) === digits(typed));
  const near = names.find((n) => stem(n) === stem(typed)) ?? closest(typed, sameDigits);
  return near === undefined ? undefined : join(dirname(file), near);
}

async function readOne(options: ReadOneOptions): Promise<ReadOneResult> {
  const { file, problems, role } = options;
  const format = options.format ?? formatOf(file);
  if (!(await isReadableFile(file, problems))) return { readable: false, allowEmpty: false, format };
  if (format === undefined) {
    problems.error(
      { file },
      "format",
      `cannot tell the format from the extension "${extname(file)}": use .yaml, .yml or .csv (or set source.format)`,
    );
    return { readable: false, allowEmpty: false, format };
  }
  const ctx: RecordContext = {
    problems,
    defaultIdentity: options.defaultIdentity,
    passwordWarned: { value: false },
    lists: new Map(),
  };
  const addUser = (u: DesiredUser | undefined): void => void (u && options.users.push(u));
  const addGroup = (g: DesiredGroup | undefined): void => void (g && options.groups.push(g));

  if (format === "yaml" && options.mapping !== undefined && role === "users") mappingForYaml(file, problems);
  if (format === "yaml") {
    const read = await readYaml({ file, problems, usersAllowed: role === "users" });
    read.users.forEach((r) => addUser(normaliseUser(r, ctx)));
    read.groups.forEach((r) => addGroup(normaliseGroup(r, ctx)));
    if (role === "groups" && read.parsed && read.groups.length === 0)
      problems.error({ file }, "empty-file", "has no groups: a groups file lists at least one group");
    return { readable: read.parsed, allowEmpty: read.allowEmpty, format };
  }
  return { ...(await readCsvFile(options, { addUser, addGroup, ctx })), format };
}

async function readCsvFile(
  options: ReadOneOptions,
  into: {
    addUser: (u: DesiredUser | undefined) => void;
    addGroup: (g: DesiredGroup | undefined) => void;
    ctx: RecordContext;
  },
): Promise<{ readable: boolean; allowEmpty: false }> {
  const { file, problems, role } = options;
  const { addUser, addGroup, ctx } = into;
  const before = problems.items.length;
  const read =
    role === "users"
      ? await readCsv({
          file,
          shape: {
            ...USERS_CSV,
            extra: options.columns ?? [],
            ...(options.mapping ? { mapping: options.mapping } : {}),
          },
          problems,
          onRecord: (r) => addUser(normaliseUser(r, ctx)),
        })
      : await readCsv({
          file,
          shape: GROUPS_CSV,
          problems,
          onRecord: (r) => addGroup(normaliseGroup(r, ctx)),
        });
  const cleanStop = problems.items.length === before;
  if (read.rows === 0 && cleanStop && !read.headerOk && role === "users")
    problems.error(
      { file },
      "empty-file",
      "the file is empty: the first row must name the columns (email,id,displayName,groups,...)",
    );
  if (read.rows === 0 && cleanStop && role === "groups")
    problems.error(
      { file },
      "empty-file",
      "has no group rows: a groups file lists at least one group (id,name,parents)",
    );
  return { readable: read.headerOk, allowEmpty: false };
}

function mappingForYaml(file: string, problems: ProblemList): void {
  problems.error(
    { file },
    "columns-for-yaml",
    "source.columns maps the columns of a CSV file; a YAML file names its fields as usersync does (docs/desired-state.md): remove source.columns, or give the CSV export",
  );
}

/** The format a file's extension tells (.yaml, .yml, .csv), if any. */
export function formatOf(file: string): DesiredFormat | undefined {
  const ext = extname(file).toLowerCase();
  if (ext === ".yaml" || ext === ".yml") return "yaml";
  if (ext === ".csv") return "csv";
  return undefined;
}
