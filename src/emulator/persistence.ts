/**
 * JSON-file persistence and seed files. The store is written atomically (temp file in the same
 * directory, then rename) so a crash never leaves half a file; writes are coalesced (one in
 * flight, one pending) and `flush()` waits for the last one, so nothing is lost on `close()`.
 */
import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import { parseYaml } from "../desired/yaml-text.js";
import { formatProblem } from "../errors.js";
import { writeFileAtomic } from "../files.js";
import { seededOrganization } from "./organization-seed.js";
import type { Store } from "./store.js";
import type { EmulatorSeed } from "./types.js";

export const PERSIST_FORMAT_VERSION = 1;

export interface PersistedStore extends EmulatorSeed {
  formatVersion: number;
  authCounter: number;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkSeedShape(value: unknown, path: string): EmulatorSeed {
  if (!isRecord(value))
    throw new Error(`${path}: must be an object with idpUsers, mappings and groups lists`);
  for (const key of [
    "idpUsers",
    "mappings",
    "groups",
    "workspaces",
    "organizationPermissions",
    "dataFilters",
    "identityProviders",
    "organizationSettings",
  ]) {
    if (value[key] !== undefined && !Array.isArray(value[key]))
      throw new Error(`${path}: ${key} must be a list`);
  }
  return value as EmulatorSeed;
}

/**
 * Reads a seed file: JSON, or YAML for `.yaml`/`.yml`, with `idpUsers`, `mappings`, `groups`
 * and optionally `workspaces` (with their grants), `organizationPermissions`, `dataFilters` and
 * the organization's sign-in (`organization`, `identityProviders`, `organizationSettings`).
 */
export async function loadSeedFile(path: string): Promise<EmulatorSeed> {
  const text = await readFile(path, "utf8");
  const ext = extname(path).toLowerCase();
  let value: unknown;
  if (ext === ".yaml" || ext === ".yml") {
    // The desired state's YAML rules: core schema only (a tag is refused), nesting and aliases capped.
    const parsed = parseYaml(text, path);
    if (parsed.problems) {
      const lines = parsed.problems.map((p) => `  ${formatProblem(p)}`).join("\n");
      throw new Error(`cannot read the seed file ${path}:\n${lines}`);
    }
    value = parsed.yaml.data;
  } else
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new Error(`${path}: cannot parse the seed file: ${(err as Error).message}`, { cause: err });
    }
  const seed = checkSeedShape(value, path);
  try {
    seededOrganization(seed);
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`, { cause: err });
  }
  return seed;
}

/** The persisted store, or undefined when the file does not exist yet. */
export async function loadPersisted(
  path: string,
): Promise<(EmulatorSeed & { authCounter?: number }) | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(
      `${path}: the emulator's store file is not valid JSON (${(err as Error).message}); delete it to start empty`,
      { cause: err },
    );
  }
  const seed = checkSeedShape(value, path);
  const version = (seed as { formatVersion?: unknown }).formatVersion;
  if (version !== undefined && version !== PERSIST_FORMAT_VERSION) {
    throw new Error(
      `${path}: store file format ${String(version)} is not supported (expected ${PERSIST_FORMAT_VERSION})`,
    );
  }
  return seed;
}

/** Passwords are never written to disk: the emulator has no login, so nothing needs them back. */
export function toPersisted(store: Store): PersistedStore {
  const s = store.snapshot();
  const idpUsers = s.idpUsers.map(({ password: _password, ...rest }) => rest);
  return { formatVersion: PERSIST_FORMAT_VERSION, authCounter: store.authCounter, ...s, idpUsers };
}

export class Persister {
  private saved: number;
  private running: Promise<void> | undefined;
  private again = false;
  /** A failed write (e.g. the directory vanished) is reported by the next `flush()`, i.e. by `close()`. */
  private failure: unknown;

  constructor(
    private readonly path: string,
    private readonly store: Store,
  ) {
    this.saved = store.revision;
  }

  /** Called after every request; starts a write when the store changed. */
  schedule(): void {
    if (this.store.revision === this.saved) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.writeLoop()
      .catch((err: unknown) => {
        this.failure = err;
      })
      .finally(() => (this.running = undefined));
  }

  private async writeLoop(): Promise<void> {
    do {
      this.again = false;
      const revision = this.store.revision;
      const text = JSON.stringify(toPersisted(this.store), null, 1);
      await writeFileAtomic(this.path, text);
      this.saved = revision;
    } while (this.again || this.store.revision !== this.saved);
  }

  /** Makes the next flush write even though no request changed the store (e.g. a fresh seed). */
  markDirty(): void {
    this.saved = -1;
  }

  async flush(): Promise<void> {
    this.schedule();
    while (this.running) await this.running;
    if (this.failure !== undefined) {
      const err = this.failure;
      this.failure = undefined;
      throw new Error(`cannot save the emulator's store to ${this.path}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
}
