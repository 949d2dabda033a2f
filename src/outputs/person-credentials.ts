/**
 * One file per person for generated passwords (output.credentialsDir, `--credentials-dir`),
 * besides the credentials file: what a person hands one new colleague without showing them
 * everyone else's. The folder is created 0700 and refused when group or others may read it, like
 * the credentials file. Each file is named by a safe form of the e-mail (`<email>.txt`), holds
 * `email,password` under a header, mode 0600, and replaces the person's earlier file (a reset);
 * it is written to a temporary name, flushed and renamed, so it is durable and whole before the
 * create (or the reset) that carries the password is sent.
 */
import { constants, promises as fs } from "node:fs";
import { join } from "node:path";
import { ConfigError, SafetyRefusal } from "../errors.js";

export interface PersonFiles {
  readonly path: string;
  /** Resolves once the person's file is whole and flushed. */
  write(email: string, password: string): Promise<void>;
}

/** `Ana.Nowak+x@Acme.example` → `ana.nowak+x@acme.example.txt`; anything else unusual becomes `_`. */
export function personFileName(email: string): string {
  const safe = email
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9@._+-]/g, "_")
    .replace(/^\.+/, "_");
  return `${safe}.txt`;
}

/** Makes (0700) or checks the folder before anything is sent. */
export async function openCredentialsDir(path: string): Promise<PersonFiles> {
  try {
    await fs.mkdir(path, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new ConfigError({
      message: `credentials folder ${path} cannot be created (${(err as NodeJS.ErrnoException).code ?? "error"}); check the path`,
    });
  }
  const st = await fs.stat(path);
  if (!st.isDirectory()) throw new ConfigError({ message: `credentials folder ${path} is not a folder` });
  if ((st.mode & 0o077) !== 0) {
    throw new SafetyRefusal({
      message: `credentials folder ${path} can be read or entered by group or others (mode ${(st.mode & 0o777).toString(8)}); run: chmod 700 ${path} (nothing was sent)`,
    });
  }
  return { path, write: (email, password) => writePersonFile(path, email, password) };
}

async function writePersonFile(dir: string, email: string, password: string): Promise<void> {
  const file = join(dir, personFileName(email));
  const temp = `${file}.${process.pid}.tmp`;
  const handle = await fs.open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600);
  try {
    await handle.chmod(0o600);
    await handle.write(`email,password\n${csvField(email)},${password}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temp, file);
  const folder = await fs.open(dir, constants.O_RDONLY);
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
