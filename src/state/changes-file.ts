/**
 * The changes file beside the state file (docs/configuration.md, "The changes file"): what a
 * directory read (the picture) and where its change feed stood (the position), so the next run of
 * `source.changes.mode: changes` reads only what changed. `state.json` -> `state.changes.json`.
 * Written only after a successful run, atomically, readable by the run's user only (it holds
 * people's emails). A file that is missing, unreadable, of another format or another config is
 * never an error: the run reads whole, says why, and writes a good one.
 */
import { readFile } from "node:fs/promises";
import { writeFileAtomic } from "../files.js";
import { PICTURE_FORMAT_VERSION, type Picture, type Position } from "../desired/sources/changes/feed.js";

/**
 * 2: `digests` added (the desired users' and groups' digests, changes/touched.ts). A file of
 * formatVersion 1 is not used: the run reads whole once, says why, and writes formatVersion 2.
 */
export const CHANGES_FORMAT_VERSION = 2;

/** What the last successful apply desired, digested: by user id, and the groups as one. */
export interface DesiredDigests {
  users: ReadonlyMap<string, string>;
  groups: string;
  /** How many of the users are present (not absent): the whole state's, for a partial build's guards. */
  present?: number;
}

export interface KeptChanges {
  picture: Picture;
  position: Position;
  /** The desired state built from the picture, digested: who the next run's changes touch. */
  digests: DesiredDigests;
  /** When the last full reconcile (a whole read and a whole listing) ran (ISO 8601). */
  fullAt?: string;
  /** Managed users at the last whole listing: the base of a percentage guard in a targeted run. */
  managedUsers?: number;
  /**
   * The usersync version that built the desired state the digests are of: a partial build
   * (changes/partial.ts) trusts the digests of the people it does not build only from the same one.
   */
  builtBy?: string;
}

/** `state.json` -> `state.changes.json`; any other name gets `.changes.json` added. */
export function changesFileOf(stateFile: string): string {
  return stateFile.endsWith(".json") ? `${stateFile.slice(0, -5)}.changes.json` : `${stateFile}.changes.json`;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isTime = (v: unknown): boolean => typeof v === "string" && !Number.isNaN(Date.parse(v));
const isIds = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === "string");
const STATUSES = new Set(["enabled", "disabled", "suspended", "deleted"]);

function pictureProblem(p: unknown): string | undefined {
  if (!isRecord(p) || p["formatVersion"] !== PICTURE_FORMAT_VERSION)
    return `picture is not of formatVersion ${PICTURE_FORMAT_VERSION}`;
  if (typeof p["kind"] !== "string" || typeof p["configDigest"] !== "string" || !isTime(p["readAt"]))
    return "picture needs kind, configDigest and readAt";
  if (p["changedAt"] !== undefined && !isTime(p["changedAt"])) return "picture.changedAt is not a time";
  const groups = p["groups"];
  const people = p["people"];
  if (!Array.isArray(groups) || !Array.isArray(people)) return "picture needs groups and people";
  for (const g of groups)
    if (!isRecord(g) || typeof g["id"] !== "string" || typeof g["name"] !== "string")
      return "a picture group needs id and name";
    else if (!isIds(g["people"]) || !isIds(g["groups"]) || !isRecord(g["attributes"]))
      return `picture group ${g["id"]} needs people, groups and attributes`;
    else if (g["rule"] !== undefined && !Number.isInteger(g["rule"]))
      return `picture group ${g["id"]}: rule is not an index`;
  for (const q of people)
    if (!isRecord(q) || typeof q["id"] !== "string" || !STATUSES.has(q["status"] as string))
      return "a picture person needs id and status";
    else if (!isRecord(q["attributes"])) return `picture person ${q["id"]} needs attributes`;
  return undefined;
}

function positionProblem(p: unknown, kind: unknown): string | undefined {
  if (!isRecord(p) || p["kind"] !== kind || !isTime(p["takenAt"]) || !isRecord(p["streams"]))
    return "position needs the picture's kind, takenAt and streams";
  if (!Object.values(p["streams"]).every((s) => typeof s === "string"))
    return "position streams are not text";
  return undefined;
}

/**
 * `digests`: `groups` one digest, `users` pairs in one flat list (a user's id, then their
 * digest): 100,000 of them parse several times faster than as an object's keys.
 */
function digestsProblem(d: unknown): DesiredDigests | string {
  const why =
    "digests needs groups (text), users (a list of user ids each followed by a digest) and, if set, present (a count)";
  if (!isRecord(d) || typeof d["groups"] !== "string" || !Array.isArray(d["users"])) return why;
  const present = d["present"];
  if (present !== undefined && !(Number.isInteger(present) && (present as number) >= 0)) return why;
  const list: unknown[] = d["users"];
  if (list.length % 2 !== 0) return why;
  const users = new Map<string, string>();
  for (let i = 0; i < list.length; i += 2) {
    const [id, digest] = [list[i], list[i + 1]];
    if (typeof id !== "string" || typeof digest !== "string") return why;
    users.set(id, digest);
  }
  return { users, groups: d["groups"], ...(typeof present === "number" ? { present } : {}) };
}

/** The digests as the file keeps them. */
function digestsRecord(d: DesiredDigests): { groups: string; present?: number; users: string[] } {
  const users: string[] = [];
  for (const [id, digest] of d.users) users.push(id, digest);
  return { groups: d.groups, ...(d.present !== undefined ? { present: d.present } : {}), users };
}

/** The content, or why it cannot be used. All or nothing. */
export function parseChanges(text: string): KeptChanges | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return `not valid JSON (${(err as Error).message})`;
  }
  if (isRecord(value) && value["formatVersion"] === 1)
    return `formatVersion 1 (an older usersync wrote it), which keeps no digests of the desired people: this run reads whole once and writes formatVersion ${CHANGES_FORMAT_VERSION}`;
  if (!isRecord(value) || value["formatVersion"] !== CHANGES_FORMAT_VERSION)
    return `not a usersync changes file of formatVersion ${CHANGES_FORMAT_VERSION}`;
  const problem =
    pictureProblem(value["picture"]) ??
    positionProblem(value["position"], (value["picture"] as Record<string, unknown>)["kind"]);
  if (problem !== undefined) return problem;
  const digests = digestsProblem(value["digests"]);
  if (typeof digests === "string") return digests;
  if (value["fullAt"] !== undefined && !isTime(value["fullAt"])) return "fullAt is not a time";
  const managed = value["managedUsers"];
  if (managed !== undefined && !(Number.isInteger(managed) && (managed as number) >= 0))
    return "managedUsers is not a count";
  const builtBy = value["builtBy"];
  if (builtBy !== undefined && typeof builtBy !== "string") return "builtBy is not text";
  return {
    picture: value["picture"] as unknown as Picture,
    position: value["position"] as unknown as Position,
    digests,
    ...(typeof value["fullAt"] === "string" ? { fullAt: value["fullAt"] } : {}),
    ...(typeof managed === "number" ? { managedUsers: managed } : {}),
    ...(typeof builtBy === "string" ? { builtBy } : {}),
  };
}

export function serializeChanges(kept: KeptChanges): string {
  const body = {
    formatVersion: CHANGES_FORMAT_VERSION,
    about:
      "usersync's picture of the directory and where its change feed stood, for runs of source.changes.mode: changes. Written after a successful run; delete it to make the next run read whole. See docs/configuration.md.",
    ...(kept.fullAt !== undefined ? { fullAt: kept.fullAt } : {}),
    ...(kept.managedUsers !== undefined ? { managedUsers: kept.managedUsers } : {}),
    ...(kept.builtBy !== undefined ? { builtBy: kept.builtBy } : {}),
    position: kept.position,
    digests: digestsRecord(kept.digests),
    picture: kept.picture,
  };
  return `${JSON.stringify(body)}\n`;
}

/** What was kept, or why nothing usable was (missing, unreadable, another format). */
export async function readChanges(file: string): Promise<KeptChanges | { unusable: string }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    return { unusable: code === "ENOENT" ? "no changes file yet" : `${file} cannot be read (${code})` };
  }
  const parsed = parseChanges(text);
  return typeof parsed === "string" ? { unusable: `${file}: ${parsed}` } : parsed;
}

export async function writeChanges(file: string, kept: KeptChanges): Promise<void> {
  await writeFileAtomic(file, serializeChanges(kept), 0o600);
}
