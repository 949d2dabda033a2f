/**
 * Exit 5, "the source of the desired state could not be read", through the built CLI: a desired
 * or groups file that is not there (a share not mounted), a directory that accepts the connection
 * and never answers the bind. Nothing reaches the service. What is wrong in the input or the
 * config stays exit 4: a scheduler retries 5 and fails 4 at once.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { runCli, withTempDir } from "./run-cli.js";

const TOKEN = "unavailable-e2e-token-5d1";
const env = { USERSYNC_TOKEN: TOKEN, USERSYNC_LDAP_PASSWORD: "reader-secret-x" };
let emulator: EmulatorHandle;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" } });
});
afterAll(async () => {
  await emulator?.close();
});

async function config(dir: string, extra: Record<string, unknown>): Promise<string> {
  const file = join(dir, "usersync.yaml");
  await writeFile(
    file,
    stringify({ target: { baseUrl: emulator.url }, logging: { format: "json", level: "warn" }, ...extra }),
  );
  return file;
}

describe("a file source that is not there: exit 5, nothing sent", () => {
  it("a missing desired file, a missing groups file and validate of a missing file", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "users.csv"), "email,groups\njane@example.com,staff\n");
      const cases: Array<[string, string[], Record<string, unknown>]> = [
        ["desired file", ["plan"], { source: { desired: join(dir, "share", "users.csv") } }],
        [
          "groups file",
          ["apply", "--yes"],
          { source: { desired: join(dir, "users.csv"), groups: join(dir, "share", "groups.csv") } },
        ],
      ];
      for (const [name, args, extra] of cases) {
        emulator.resetLog();
        const r = await runCli([...args, "--config", await config(dir, extra)], {
          env: { ...env, USERSYNC_LOGGING_FORMAT: "json" },
        });
        expect(r.code, `${name}: ${r.stderr}`).toBe(5);
        expect(r.stderr, name).toContain('"code":"SOURCE_UNAVAILABLE","exitCode":5');
        expect(r.stderr, name).toContain("does not exist");
        expect(emulator.requestLog(), name).toEqual([]);
      }
      const validate = await runCli(["validate", join(dir, "share", "users.csv")], { env });
      expect(validate.code).toBe(5);
    });
  });

  it("a file that is there but wrong stays exit 4", async () => {
    await withTempDir(async (dir) => {
      await mkdir(join(dir, "share"));
      await writeFile(join(dir, "share", "users.csv"), "email,colour\njane@example.com,red\n");
      const r = await runCli(
        ["plan", "--config", await config(dir, { source: { desired: join(dir, "share", "users.csv") } })],
        {
          env,
        },
      );
      expect(r.code).toBe(4);
      expect(r.stderr).toContain("unknown column");
    });
  });
});

describe("a directory that does not answer: exit 5", () => {
  let server: Server;
  let port = 0;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    // Accepts the connection and never answers: a directory hung or behind a black-holing firewall.
    server = createServer((s) => void sockets.push(s));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it("a bind that times out is an outage, not invalid input", async () => {
    await withTempDir(async (dir) => {
      const file = await config(dir, {
        source: {
          type: "ldap",
          ldap: {
            url: `ldap://127.0.0.1:${port}`,
            bindDn: "cn=reader,dc=example,dc=org",
            baseDn: "dc=example,dc=org",
            timeoutMs: 300,
          },
        },
      });
      emulator.resetLog();
      const r = await runCli(["apply", "--config", file, "--yes"], { env });
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toContain("bind as cn=reader,dc=example,dc=org failed");
      expect(r.stderr).not.toContain("reader-secret-x");
      expect(emulator.requestLog()).toEqual([]);
    });
  });
});
