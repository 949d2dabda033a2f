/**
 * Secret leak scan: full CLI runs at debug log level, with a known token and known passwords
 * (a password column, then generated ones), under faults so retry and recovery paths log too,
 * plus a run with a refused token. Every byte of stdout, stderr, the plan, report, journal and
 * metrics is searched for the token and every password: zero hits (only the credentials file,
 * whose purpose is to hold them, and the desired file the passwords came from may contain them).
 */
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import { runCli, withTempDir, type CliResult } from "../e2e/run-cli.js";
import { TOKEN, cliEnv, makeUsers, readCredentials, seedOf, writeConfig, writeDesired } from "./org.js";

const FORBIDDEN_TOKEN = "forbidden-token-2d9e51aa";

/** Every place a run writes to, except the credentials file (a run that stopped early writes fewer files). */
async function outputsOf(r: CliResult, files: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = { stdout: r.stdout, stderr: r.stderr };
  for (const f of files) {
    try {
      out[f] = await readFile(f, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  return out;
}

function hits(outputs: Record<string, string>, secrets: string[]): string[] {
  const found: string[] = [];
  for (const [where, text] of Object.entries(outputs))
    for (const s of secrets)
      if (text.includes(s)) found.push(`${where} contains a secret (${s.length} characters)`);
  return found;
}

it("no token and no password in any output of debug-level runs", async () => {
  const emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    forbiddenTokens: [FORBIDDEN_TOKEN],
    seed: seedOf(),
    faults: {
      error500: 0.05,
      throttle429: 0.03,
      retryAfterSeconds: 0.05,
      loseAnswer: 0.05,
      dropConnection: 0.02,
      seed: 7,
    },
  });
  try {
    await withTempDir(async (dir) => {
      const outputs: Record<string, string> = {};
      const run = async (name: string, args: string[], env = cliEnv()): Promise<CliResult> => {
        const files = {
          plan: join(dir, `${name}-plan.json`),
          report: join(dir, `${name}-report.json`),
          journal: join(dir, `${name}-journal.jsonl`),
          metrics: join(dir, `${name}.prom`),
        };
        const r = await runCli(
          [
            ...args,
            "--base-url",
            emulator.url,
            "--log-level",
            "debug",
            "--yes",
            "--out",
            files.plan,
            "--report",
            files.report,
            "--journal",
            files.journal,
            "--metrics-file",
            files.metrics,
          ],
          { env, cwd: dir },
        );
        const written = await outputsOf(r, Object.values(files));
        for (const [k, v] of Object.entries(written)) outputs[`${name} ${k}`] = v;
        return r;
      };

      // 1. Passwords from a column of the desired file.
      const columnUsers = makeUsers(40, { prefix: "col" });
      const columnPasswords = columnUsers.map(() => `Pw-${randomBytes(9).toString("base64url")}`);
      const csv = join(dir, "column.csv");
      await writeFile(
        csv,
        [
          "email,id,displayName,password",
          ...columnUsers.map((u, i) => `${u.email},${u.id},${u.displayName},${columnPasswords[i]}`),
        ].join("\n") + "\n",
      );
      const columnConfig = await writeConfig(dir, {
        identity: { passwords: "column" },
        execution: { retries: 8 },
      });
      const first = await run("column", ["apply", "--config", columnConfig, "--desired", csv]);
      expect(first.code, first.stderr).toBe(0);
      const stored = emulator.state().idpUsers.filter((u) => u.email.startsWith("col"));
      expect(stored.map((u) => u.password).sort()).toEqual([...columnPasswords].sort());

      // 2. Generated passwords, written only to the credentials file.
      const yaml = join(dir, "generated.yaml");
      await writeDesired(yaml, makeUsers(40, { prefix: "gen" }));
      const credentials = join(dir, "credentials.csv");
      const genConfig = await writeConfig(dir, { execution: { retries: 8 } });
      const second = await run("generate", [
        "apply",
        "--config",
        genConfig,
        "--desired",
        yaml,
        "--credentials-file",
        credentials,
      ]);
      expect(second.code, second.stderr).toBe(0);
      const generated = [...(await readCredentials(credentials)).values()];
      expect(generated).toHaveLength(40);

      // 3. A token the service refuses: the error names the status, never the token.
      const refused = await run(
        "refused",
        ["apply", "--config", genConfig, "--desired", yaml, "--credentials-file", credentials],
        { USERSYNC_TOKEN: FORBIDDEN_TOKEN },
      );
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain("403");

      // The scan covers real, debug-level output (a sanity check that there is something to scan).
      expect(outputs["column stderr"]).toMatch(/"level":20/);
      expect(Object.keys(outputs).length).toBeGreaterThanOrEqual(12);
      expect(hits(outputs, [TOKEN, FORBIDDEN_TOKEN, ...columnPasswords, ...generated])).toEqual([]);
    });
  } finally {
    await emulator.close();
  }
});
