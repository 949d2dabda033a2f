/**
 * Initial passwords for new built-in users (DESIGN section 6).
 *
 * `generate`: a crypto-random password, appended as `email,password,createdAt` to the credentials
 * file and fsync'ed before `passwordFor` resolves, so the create that carries it is only sent
 * once the password is durable: a crash never leaves a user whose password nobody knows.
 * The file is created with mode 0600, only ever appended to, and refused when group or others
 * may read it. The newest line for an email wins.
 *
 * A password is reused only within the run that drew it (a create retried in this run sends the
 * same one). A line from an earlier run is never handed out again: a person revoked and re-added,
 * or a new person given a former colleague's address, gets a fresh password, not one somebody
 * else may know. A create from a crashed run that lands late answers the next run's create with
 * "exists"; that step then sets the newly written password (apply/run-step.ts), so the newest
 * line stays the password the service has.
 *
 * With a credentials folder (output.credentialsDir), each password is also written to one 0600
 * file per person in it, flushed before the create is sent (outputs/person-credentials.ts).
 */
import { randomInt } from "node:crypto";
import { constants, promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { ConfigError, SafetyRefusal } from "../errors.js";
import type { PasswordProvider } from "../apply/index.js";
import { csvField, openCredentialsDir, type PersonFiles } from "./person-credentials.js";

export interface PasswordProviderOptions {
  source: "generate" | "column" | "file" | "none";
  credentialsFile?: string;
  /** One 0600 file per person besides the credentials file (generate only). */
  credentialsDir?: string;
  passwordFile?: string;
  /** Lower-case email -> password from the desired state's `password` column. */
  columnPasswords?: ReadonlyMap<string, string>;
  /** Test hook for `createdAt`. */
  now?: () => Date;
}

export const CREDENTIALS_HEADER = "email,password,createdAt";

const UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ";
const LOWER = "abcdefghijkmnopqrstuvwxyz";
const DIGITS = "23456789";
/** No comma, quote or backslash: a password never needs CSV quoting or shell escaping in a file. */
const SYMBOLS = "!#%+-=?@^_~";
const ALPHABET = UPPER + LOWER + DIGITS + SYMBOLS;
export const GENERATED_LENGTH = 20;

/** 20 characters, uniformly drawn (crypto.randomInt has no modulo bias), with every class present. */
export function generatePassword(): string {
  for (;;) {
    let out = "";
    for (let i = 0; i < GENERATED_LENGTH; i++) out += ALPHABET[randomInt(ALPHABET.length)];
    if ([UPPER, LOWER, DIGITS, SYMBOLS].every((set) => [...out].some((c) => set.includes(c)))) return out;
  }
}

/** Validates everything before any request is sent; opens (creating, mode 0600) the credentials file. */
export async function createPasswordProvider(options: PasswordProviderOptions): Promise<PasswordProvider> {
  switch (options.source) {
    case "none":
      return { source: "none", passwordFor: async () => undefined, close: async () => {} };
    case "column": {
      const passwords = options.columnPasswords ?? new Map<string, string>();
      return {
        source: "column",
        passwordFor: async (email) => passwords.get(email.toLowerCase()),
        close: async () => {},
      };
    }
    case "file": {
      const password = await readPasswordFile(options.passwordFile);
      return { source: "file", passwordFor: async () => password, close: async () => {} };
    }
    case "generate": {
      if (options.credentialsDir !== undefined && !options.credentialsFile)
        throw credentialsDirAlone(options.credentialsDir);
      const dir =
        options.credentialsDir === undefined ? undefined : await openCredentialsDir(options.credentialsDir);
      return openCredentialsFile(options.credentialsFile, options.now ?? (() => new Date()), dir);
    }
  }
}

/** The folder is a copy besides the credentials file, never instead of it: refused before it is made. */
function credentialsDirAlone(dir: string): SafetyRefusal {
  return new SafetyRefusal({
    message: `--credentials-dir (output.credentialsDir) ${dir} needs --credentials-file too: the folder holds a copy of each generated password besides the credentials file, not instead of it; pass --credentials-file FILE or set output.credentialsFile (nothing was sent, no folder was made)`,
  });
}

async function readPasswordFile(path: string | undefined): Promise<string> {
  if (!path) {
    throw new ConfigError({
      message:
        "identity passwords: `file` needs a password file (identity.passwordFile); set it or choose another password policy",
    });
  }
  let text: string;
  try {
    text = await fs.readFile(path, "utf8");
  } catch (err) {
    throw new ConfigError({
      message: `password file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"}); check the path and its permissions`,
    });
  }
  // Only a trailing line break is dropped: spaces may be part of a password.
  const password = text.replace(/\r?\n$/, "");
  if (password === "" || password.includes("\n")) {
    throw new ConfigError({ message: `password file ${path} must hold exactly one non-empty line` });
  }
  return password;
}

async function openCredentialsFile(
  path: string | undefined,
  now: () => Date,
  dir?: PersonFiles,
): Promise<PasswordProvider> {
  const handle = await openCredentialsAppend(path);
  // This run's passwords only: an earlier run's line is never handed out again.
  const known = new Map<string, string>();
  // Appends are chained so lines never interleave and each is durable before its caller goes on.
  let chain: Promise<unknown> = Promise.resolve();
  let generated = 0;
  return {
    source: "generate",
    credentialsFile: path as string,
    ...(dir ? { credentialsDir: dir.path } : {}),
    generated: () => generated,
    passwordFor(email) {
      const key = email.toLowerCase();
      const at = now();
      const written = known.get(key);
      if (written !== undefined) return Promise.resolve(written);
      // Counted as written (a retry handed the same password is not a second one).
      generated += 1;
      const password = generatePassword();
      known.set(key, password);
      const line = `${csvField(email)},${password},${at.toISOString()}\n`;
      const durable = chain.then(async () => {
        await handle.write(line);
        await handle.datasync();
        await dir?.write(email, password);
      });
      chain = durable.catch(() => {});
      return durable.then(() => password);
    },
    async close() {
      await chain;
      await handle.close();
    },
  };
}

/** Opens (creating, mode 0600, header) the credentials file for appending; refused when others can read it. */
export async function openCredentialsAppend(path: string | undefined): Promise<FileHandle> {
  if (!path) {
    throw new SafetyRefusal({
      message:
        "generated passwords need a credentials file to write them to: pass --credentials-file FILE or set output.credentialsFile (nothing was sent)",
    });
  }
  let handle: FileHandle;
  try {
    handle = await fs.open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
  } catch (err) {
    throw new ConfigError({
      message: `credentials file ${path} cannot be opened for appending (${(err as NodeJS.ErrnoException).code ?? "error"})`,
    });
  }
  // fstat after opening: what we checked is the file we write to, whoever created it.
  const st = await handle.stat();
  if (!st.isFile() || (st.mode & 0o077) !== 0) {
    await handle.close();
    throw new SafetyRefusal({
      message: st.isFile()
        ? `credentials file ${path} can be read or written by group or others (mode ${(st.mode & 0o777).toString(8)}); run: chmod 600 ${path}`
        : `credentials file ${path} is not a regular file`,
    });
  }
  if (st.size === 0) {
    await handle.write(`${CREDENTIALS_HEADER}\n`);
    await handle.sync();
  }
  return handle;
}
