import { chmod, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPasswordProvider } from "../../src/outputs/index.js";
import { personFileName } from "../../src/outputs/person-credentials.js";
import { SafetyRefusal, exitCodeFor } from "../../src/errors.js";
import type { PasswordProvider } from "../../src/apply/index.js";
import { withEmulatorClient } from "../helpers/env.js";
import { aDesiredUser, aPolicy, desiredOf, planAndApply } from "../apply/scenario.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-pp-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("one credentials file per person (output.credentialsDir)", () => {
  it("makes the folder 0700 and one 0600 file per person, named by the e-mail", async () => {
    const credentialsDir = join(dir, "people");
    const credentialsFile = join(dir, "creds.csv");
    const provider = await createPasswordProvider({ source: "generate", credentialsFile, credentialsDir });
    const ann = await provider.passwordFor("Ann.Lee@A.com");
    await provider.close();
    expect((await stat(credentialsDir)).mode & 0o777).toBe(0o700);
    const file = join(credentialsDir, "ann.lee@a.com.txt");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, "utf8")).toBe(`email,password\nAnn.Lee@A.com,${ann}\n`);
    expect(personFileName("../x/y@a.com")).toBe("__x_y@a.com.txt");
  });

  it("refuses a folder group or others can read, saying chmod 700 (exit 3)", async () => {
    const credentialsDir = join(dir, "open");
    await createPasswordProvider({ source: "generate", credentialsFile: join(dir, "c.csv"), credentialsDir });
    await chmod(credentialsDir, 0o755);
    const err = await createPasswordProvider({
      source: "generate",
      credentialsFile: join(dir, "c2.csv"),
      credentialsDir,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SafetyRefusal);
    expect(exitCodeFor(err)).toBe(3);
    expect((err as Error).message).toContain(`chmod 700 ${credentialsDir}`);
  });

  it("each person's file is whole before the create carrying the password is sent", async () => {
    const env = await withEmulatorClient({ emulator: {} });
    const credentialsDir = join(dir, "people");
    try {
      const inner = await createPasswordProvider({
        source: "generate",
        credentialsFile: join(dir, "creds.csv"),
        credentialsDir,
      });
      const checked: string[] = [];
      const passwords: PasswordProvider = {
        ...inner,
        async passwordFor(email) {
          const password = await inner.passwordFor(email);
          // The emulator has not yet seen this person's create; the file already holds the password.
          const posted = env.emulator
            .requestLog()
            .filter((r) => r.method === "POST" && /\/auth\/users$/.test(r.url));
          expect(posted).toHaveLength(checked.length);
          const text = await readFile(join(credentialsDir, personFileName(email)), "utf8");
          expect(text).toContain(`,${password}\n`);
          checked.push(email);
          return password;
        },
      };
      const desired = desiredOf(
        ["ann@a.com", "ben@a.com"].map((email) =>
          aDesiredUser({ email, id: email.split("@")[0]!, displayName: email, groups: [] }),
        ),
      );
      const { result } = await planAndApply({
        client: env.client,
        desired,
        policy: aPolicy({ passwords: "generate" }),
        apply: { passwords, concurrency: 1 },
      });
      await inner.close();
      expect(result.counts.failed).toBe(0);
      expect(checked.sort()).toEqual(["ann@a.com", "ben@a.com"]);
      const stored = new Map(env.emulator.state().idpUsers.map((u) => [u.email, u.password]));
      for (const email of checked) {
        const text = await readFile(join(credentialsDir, personFileName(email)), "utf8");
        expect(text).toBe(`email,password\n${email},${stored.get(email)}\n`);
      }
    } finally {
      await env.close();
    }
  });
});
