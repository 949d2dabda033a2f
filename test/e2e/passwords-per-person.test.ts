/**
 * Passwords per person (issue 49, item 7) through the built CLI on one emulator: onboarding two
 * people with --credentials-dir writes one 0600 file each, holding the password the service has;
 * `credentials reset` gives one a new password (written, not printed; the display name kept);
 * a person revoked and re-added (their row without a name) gets a fresh password, never the old
 * one, and keeps the name their user record holds, not the e-mail's local part.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { runCli } from "./run-cli.js";

const TOKEN = "per-person-token";
let dir: string;
let emulator: EmulatorHandle;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-per-person-"));
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    seed: { groups: [{ id: "sales" }] },
  });
  await writeFile(
    join(dir, "usersync.yaml"),
    stringify({
      target: { baseUrl: emulator.url },
      source: { desired: join(dir, "people.yaml") },
      policy: { mode: "full", maxDeletes: 1, deletions: "revoke" },
      output: { credentialsFile: join(dir, "credentials.csv") },
      execution: { requestsPerSecond: 10_000 },
      logging: { level: "warn", format: "json" },
    }),
  );
});
afterAll(async () => {
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
});

async function people(users: object[]): Promise<void> {
  await writeFile(join(dir, "people.yaml"), stringify({ version: 1, groups: [{ id: "sales" }], users }));
}
const ann = { email: "ann@example.com", id: "ann", firstname: "Ann", lastname: "Lee", groups: ["sales"] };
const ben = { email: "ben@example.com", id: "ben", displayName: "Ben Ode", groups: ["sales"] };
const cli = (...args: string[]) =>
  runCli([...args, "--config", join(dir, "usersync.yaml")], { env: { USERSYNC_TOKEN: TOKEN } });
const login = (email: string) => emulator.state().idpUsers.find((u) => u.email === email);
const personFile = async (email: string) => {
  const text = await readFile(join(dir, "people", `${email}.txt`), "utf8");
  return text.trimEnd().split("\n")[1]!.split(",")[1]!;
};

describe("passwords per person", () => {
  it("onboards two people with one 0600 file each; a re-added person gets a fresh password and keeps the name", async () => {
    await people([ann, ben]);
    const first = await cli("apply", "--yes", "--credentials-dir", join(dir, "people"));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`one file per person in ${join(dir, "people")}`);
    expect((await stat(join(dir, "people"))).mode & 0o777).toBe(0o700);
    for (const email of [ann.email, ben.email]) {
      expect((await stat(join(dir, "people", `${email}.txt`))).mode & 0o777).toBe(0o600);
      expect(login(email)?.password).toBe(await personFile(email));
    }
    const old = await personFile(ann.email);

    // Ben lost his: a reset writes a new one, never prints it, keeps his display name.
    const benBefore = await personFile(ben.email);
    const reset = await cli("credentials", "reset", ben.email, "--credentials-dir", join(dir, "people"));
    expect(reset.code, reset.stderr).toBe(0);
    const benNew = await personFile(ben.email);
    expect(benNew).not.toBe(benBefore);
    expect(login(ben.email)?.password).toBe(benNew);
    expect(login(ben.email)?.displayName).toBe("Ben Ode");
    expect(reset.stdout + reset.stderr).not.toContain(benNew);
    expect(await readFile(join(dir, "credentials.csv"), "utf8")).toContain(`${ben.email},${benNew},`);
    const nobody = await cli("credentials", "reset", "nobody@example.com");
    expect(nobody.code).toBe(4);

    await people([{ ...ann, state: "absent" }, ben]);
    const revoke = await cli("apply", "--yes");
    expect(revoke.code, revoke.stderr).toBe(0);
    expect(login(ann.email)).toBeUndefined();

    // Back the same hour, her row without a name: a fresh password, her name kept.
    await people([{ email: ann.email, id: "ann", groups: ["sales"] }, ben]);
    const back = await cli("apply", "--yes", "--credentials-dir", join(dir, "people"));
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/1 for existing users/);
    const fresh = await personFile(ann.email);
    expect(fresh).not.toBe(old);
    expect(login(ann.email)?.password).toBe(fresh);
    expect(login(ann.email)?.displayName).toBe("Ann Lee");
  }, 240_000);
});
