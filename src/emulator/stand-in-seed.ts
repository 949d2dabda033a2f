/**
 * What every directory stand-in of `usersync emulator --directory KIND` shares (stand-ins.ts
 * holds the table): how a kind is started and what it hands back, how its seed file is read, and
 * the rehearsal config written beside its key, secret or CA, so that a person (and the docs test)
 * can plan against it without pasting.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";

export interface StandInStart {
  /** A seed file (YAML or JSON), or undefined for generated made-up people. */
  seed: string | undefined;
  port: number;
  /** Where the key, secret or CA usersync needs are written (created when missing). */
  dir: string;
}

export interface RunningStandIn {
  url: string;
  /** The `source:` block that reads it, to paste into a config. */
  source: string;
  /** Lines for the person: what was written where, how to trust the CA. */
  notes: string[];
  close(): Promise<void>;
}

export type StandInKind = (o: StandInStart) => Promise<RunningStandIn>;

export async function readSeed(file: string): Promise<Record<string, unknown>> {
  const text = await readFile(file, "utf8");
  const value: unknown = parse(text);
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new Error(`the seed ${file} is not a mapping (users:, groups:)`);
  return value as Record<string, unknown>;
}

export function listOf<T>(seed: Record<string, unknown>, key: string, file: string): T[] {
  const v = seed[key];
  if (!Array.isArray(v)) throw new Error(`the seed ${file} has no list ${key}:`);
  return v as T[];
}

export const REHEARSAL_CONFIG = "rehearsal.yaml";
const WRITTEN_BY = "# Written by `usersync emulator --directory";

/** The file's text, or undefined when there is none. */
async function existing(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/**
 * `DIR/rehearsal.yaml`: the service emulator as the target, the stand-in as the source; what the
 * printed block says, ready to plan with. Returns its path. A file of that name the emulator did
 * not write (a person's own config) is never overwritten.
 */
export async function writeRehearsalConfig(o: {
  dir: string;
  kind: string;
  serviceUrl: string;
  source: string;
}): Promise<string> {
  const file = join(o.dir, REHEARSAL_CONFIG);
  const before = await existing(file);
  if (before !== undefined && !before.startsWith(WRITTEN_BY))
    throw new Error(
      `${file} exists and was not written by usersync emulator: give the stand-in a folder of its own (--directory-files DIR)`,
    );
  const text = [
    `${WRITTEN_BY} ${o.kind}\` for a rehearsal (docs/emulator.md): the`,
    "# service emulator as the target, its directory stand-in as the source. Both stop with the",
    "# emulator; a new start writes this file again. Copy it to rehearse more (docs/configuration.md).",
    "target:",
    `  baseUrl: ${o.serviceUrl}`,
    "  allowInsecureHttp: true # the emulator is plain http on 127.0.0.1",
    o.source,
    "",
  ].join("\n");
  await writeFile(file, text);
  return file;
}
