import { mkdtemp, readFile, rm, stat, writeFile, chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CREDENTIALS_HEADER, createPasswordProvider, generatePassword } from "../../src/outputs/index.js";
import { ConfigError, SafetyRefusal, exitCodeFor } from "../../src/errors.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-pw-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("generatePassword", () => {
  it("is 20 characters with upper, lower, digit and symbol, and never repeats", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const p = generatePassword();
      expect(p).toHaveLength(20);
      expect(p).toMatch(/[A-Z]/);
      expect(p).toMatch(/[a-z]/);
      expect(p).toMatch(/[0-9]/);
      expect(p).toMatch(/[^A-Za-z0-9]/);
      expect(p).not.toMatch(/[",\s\\]/);
      seen.add(p);
    }
    expect(seen.size).toBe(200);
  });
});

describe("createPasswordProvider: generate", () => {
  it("refuses without a credentials file, naming the flag and the config key (exit 3)", async () => {
    const err = await createPasswordProvider({ source: "generate" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SafetyRefusal);
    expect((err as Error).message).toContain("--credentials-file");
    expect((err as Error).message).toContain("output.credentialsFile");
    expect(exitCodeFor(err)).toBe(3);
  });

  it("refuses an existing file others can read, saying chmod 600", async () => {
    const file = join(dir, "creds.csv");
    await writeFile(file, `${CREDENTIALS_HEADER}\n`);
    await chmod(file, 0o644);
    const err = await createPasswordProvider({ source: "generate", credentialsFile: file }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SafetyRefusal);
    expect((err as Error).message).toContain(`chmod 600 ${file}`);
    expect(await readFile(file, "utf8")).toBe(`${CREDENTIALS_HEADER}\n`);
  });

  it("creates the file with mode 0600 and a header before any password is asked for", async () => {
    const file = join(dir, "creds.csv");
    const provider = await createPasswordProvider({ source: "generate", credentialsFile: file });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, "utf8")).toBe(`${CREDENTIALS_HEADER}\n`);
    await provider.close();
  });

  it("appends each password durably before returning it, never truncating", async () => {
    const file = join(dir, "creds.csv");
    await writeFile(file, `${CREDENTIALS_HEADER}\nold@example.com,Old-Pass-1a,2020-01-01T00:00:00.000Z\n`, {
      mode: 0o600,
    });
    const provider = await createPasswordProvider({
      source: "generate",
      credentialsFile: file,
      now: () => new Date("2026-01-02T03:04:05.000Z"),
    });
    const [a, b] = await Promise.all([
      provider.passwordFor("a@example.com"),
      provider.passwordFor("B@example.com"),
    ]);
    // Written before the promise resolved: read it back while the provider is still open.
    const text = await readFile(file, "utf8");
    expect(text).toBe(
      `${CREDENTIALS_HEADER}\nold@example.com,Old-Pass-1a,2020-01-01T00:00:00.000Z\n` +
        `a@example.com,${a},2026-01-02T03:04:05.000Z\nB@example.com,${b},2026-01-02T03:04:05.000Z\n`,
    );
    await provider.close();
  });

  it("never hands out an earlier run's password, however recent: a re-added person gets a new one", async () => {
    const file = join(dir, "creds.csv");
    const old = `jane@example.com,Old-1a!xyz,2026-01-02T03:30:00.000Z`;
    const unreadableTime = `joe@example.com,Joe-2b!xyz,yesterday`;
    await writeFile(file, `${CREDENTIALS_HEADER}\n${old}\n${unreadableTime}\n`, { mode: 0o600 });
    const now = () => new Date("2026-01-02T04:30:00.000Z"); // a minute would do as well
    const provider = await createPasswordProvider({ source: "generate", credentialsFile: file, now });
    const jane = await provider.passwordFor("jane@example.com");
    const joe = await provider.passwordFor("joe@example.com");
    // In the same run, the new password is the one reused.
    expect(await provider.passwordFor("JANE@example.com")).toBe(jane);
    await provider.close();
    expect(jane).not.toBe("Old-1a!xyz");
    expect(joe).not.toBe("Joe-2b!xyz");
    expect((await readFile(file, "utf8")).split("\n").filter(Boolean)).toEqual([
      CREDENTIALS_HEADER,
      old,
      unreadableTime,
      `jane@example.com,${jane},2026-01-02T04:30:00.000Z`,
      `joe@example.com,${joe},2026-01-02T04:30:00.000Z`,
    ]);
  });
});

describe("createPasswordProvider: column, file, none", () => {
  it("column: looks the email up case-insensitively", async () => {
    const provider = await createPasswordProvider({
      source: "column",
      columnPasswords: new Map([["jane@example.com", "s3cret!"]]),
    });
    expect(await provider.passwordFor("JANE@example.com")).toBe("s3cret!");
    expect(await provider.passwordFor("other@example.com")).toBeUndefined();
  });

  it("file: one password for every new user; unreadable or missing file is a ConfigError", async () => {
    const file = join(dir, "initial.txt");
    await writeFile(file, "Initial pass 1!\n");
    const provider = await createPasswordProvider({ source: "file", passwordFile: file });
    expect(await provider.passwordFor("x@example.com")).toBe("Initial pass 1!");
    await expect(
      createPasswordProvider({ source: "file", passwordFile: join(dir, "missing") }),
    ).rejects.toBeInstanceOf(ConfigError);
    await expect(createPasswordProvider({ source: "file" })).rejects.toBeInstanceOf(ConfigError);
  });

  it("none: no password", async () => {
    const provider = await createPasswordProvider({ source: "none" });
    expect(await provider.passwordFor("x@example.com")).toBeUndefined();
  });
});
