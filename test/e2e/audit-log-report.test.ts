/** `plan --log-report`: the drift as one JSON log line, so `kubectl logs` of the audit Job shows it. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import { runCli, withTempDir } from "./run-cli.js";
import { TOKEN, cliEnv, makeUsers, seedOf, writeConfig, writeDesired } from "../reliability/org.js";

describe("plan --log-report", () => {
  it("logs the drift as one JSON line with counts and steps, and exits 2 with --detailed-exitcode", async () => {
    await withTempDir(async (dir) => {
      const users = makeUsers(3);
      const emulator = await startEmulator({
        port: 0,
        tokens: { [TOKEN]: "admin" },
        seed: seedOf(users.slice(0, 1)),
      });
      try {
        const config = await writeConfig(dir, { logging: { level: "info" } });
        await writeDesired(join(dir, "users.yaml"), users);
        const args = [
          "plan",
          "--config",
          config,
          "--desired",
          join(dir, "users.yaml"),
          "--base-url",
          emulator.url,
        ];
        const r = await runCli([...args, "--detailed-exitcode", "--format", "markdown", "--log-report"], {
          env: cliEnv(),
        });
        expect(r.code, r.stderr).toBe(2);
        const lines = r.stderr
          .split("\n")
          .filter((l) => l.includes('"report":"drift"'))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatchObject({ level: 40, drift: true, counts: { create: 4 } });
        expect((lines[0]!["steps"] as { id: string }[]).map((s) => s.id)).toContain(
          "createCredentials:u0002@reliability.example",
        );

        await writeDesired(join(dir, "same.yaml"), users.slice(0, 1));
        const same = await runCli(
          [
            "plan",
            "--config",
            config,
            "--desired",
            join(dir, "same.yaml"),
            "--base-url",
            emulator.url,
            "--log-report",
          ],
          { env: cliEnv() },
        );
        expect(same.code, same.stderr).toBe(0);
        expect(same.stderr).toContain('"drift":false');
      } finally {
        await emulator.close();
      }
    });
  });
});
