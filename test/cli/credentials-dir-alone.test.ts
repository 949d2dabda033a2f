/**
 * `--credentials-dir` is a copy of each generated password besides the credentials file, never
 * instead of it (docs/onboarding.md): without a credentials file, apply and `credentials reset`
 * are refused (exit 3) before anything is sent and before the folder is made, and the message
 * says that the folder needs `--credentials-file` too. With `output.credentialsSecretPrefix` the
 * passwords go to Kubernetes Secrets instead, and the run says the folder is not written (a fake
 * Kubernetes API on a socket). In-process, one emulator on a socket.
 */
import { access, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { captureIo } from "../helpers/capture-io.js";
import { startFakeKubeApi } from "../helpers/fake-kube-api.js";

const TOKEN = "dir-alone-token";
const ben = { email: "ben@example.com", displayName: "Ben Ode" };
let dir: string;
let emulator: EmulatorHandle;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-dir-alone-"));
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    seed: { groups: [{ id: "sales" }], idpUsers: [{ ...ben, authenticationId: "ben-auth" }] },
  });
  const people = {
    version: 1,
    groups: [{ id: "sales" }],
    users: [{ email: "ann@example.com", id: "ann", groups: ["sales"] }],
  };
  await writeFile(join(dir, "people.yaml"), stringify(people));
  // No output.credentialsFile: generated passwords (the default) have no file to go to.
  await writeFile(
    join(dir, "usersync.yaml"),
    stringify({
      target: { baseUrl: emulator.url },
      source: { desired: join(dir, "people.yaml") },
      logging: { level: "warn", format: "json" },
    }),
  );
});
afterAll(async () => {
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(...args: string[]): Promise<{ code: number; err: string }> {
  return runWith({}, "usersync.yaml", ...args);
}
async function runWith(
  env: NodeJS.ProcessEnv,
  config: string,
  ...args: string[]
): Promise<{ code: number; err: string }> {
  const c = captureIo({ env: { USERSYNC_TOKEN: TOKEN, ...env }, cwd: dir });
  const code = await main([...args, "--config", join(dir, config)], c.io);
  return { code, err: c.err() };
}
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

function expectRefusal(err: string, folder: string): void {
  expect(err).toContain(`--credentials-dir (output.credentialsDir) ${folder} needs --credentials-file too`);
  expect(err).toContain("pass --credentials-file FILE or set output.credentialsFile");
  expect(err).toContain("nothing was sent, no folder was made");
}

describe("--credentials-dir without a credentials file", () => {
  it("apply is refused before the folder is made and before the new person's login is sent", async () => {
    const folder = join(dir, "people-apply");
    const { code, err } = await run("apply", "--yes", "--credentials-dir", folder);
    expect(code).toBe(3);
    expectRefusal(err, folder);
    expect(await exists(folder)).toBe(false);
    expect(emulator.state().idpUsers.map((u) => u.email)).toEqual([ben.email]);
    expect(emulator.state().mappings.map((m) => m.id)).not.toContain("ann");
  });

  it("credentials reset is refused before the folder is made and before the password is sent", async () => {
    const folder = join(dir, "people-reset");
    const before = emulator.state().idpUsers.find((u) => u.email === ben.email);
    const { code, err } = await run("credentials", "reset", ben.email, "--credentials-dir", folder);
    expect(code).toBe(3);
    expectRefusal(err, folder);
    expect(await exists(folder)).toBe(false);
    expect(emulator.state().idpUsers.find((u) => u.email === ben.email)).toEqual(before);
  });

  it("with Kubernetes Secrets the folder is not written, and the run says so", async () => {
    const kube = await startFakeKubeApi();
    try {
      await writeFile(
        join(dir, "secrets.yaml"),
        stringify({
          target: { baseUrl: emulator.url },
          source: { desired: join(dir, "people.yaml") },
          logging: { level: "warn", format: "json" },
          output: {
            credentialsSecretPrefix: "usersync-password",
            kubernetesServiceAccountDir: await kube.serviceAccountDir(),
          },
        }),
      );
      const folder = join(dir, "people-secrets");
      const { code, err } = await runWith(
        kube.env(),
        "secrets.yaml",
        "apply",
        "--yes",
        "--credentials-dir",
        folder,
      );
      expect(code, err).toBe(0);
      expect(err).toContain(
        "generated passwords go to Kubernetes Secrets (output.credentialsSecretPrefix); the credentials folder is not written",
      );
      expect(await exists(folder)).toBe(false);
      // ann's password went to her Secret, and her login was made with it.
      expect(kube.passwords().has("ann@example.com")).toBe(true);
      expect(emulator.state().mappings.map((m) => m.id)).toContain("ann");
    } finally {
      await kube.close();
    }
  });
});
