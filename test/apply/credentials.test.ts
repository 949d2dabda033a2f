import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildApplyReport } from "../../src/apply/index.js";
import { createPasswordProvider, CREDENTIALS_HEADER, openJournal } from "../../src/outputs/index.js";
import { renderApplySummary } from "../../src/report/index.js";
import { withEmulatorClient } from "../helpers/env.js";
import { aDesiredUser, aPolicy, desiredOf, planAndApply } from "./scenario.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-creds-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("generated passwords end to end", () => {
  it("writes exactly the new users to a 0600 credentials file, and no password anywhere else", async () => {
    let logs = "";
    const logger = pino({ level: "trace" }, { write: (s: string) => void (logs += s) });
    const env = await withEmulatorClient({
      emulator: {
        seed: {
          idpUsers: [
            { email: "old@a.com", displayName: "Old", authenticationId: "auth-old", password: "Seeded-1!" },
          ],
          mappings: [{ id: "old", authenticationId: "auth-old", groups: [] }],
        },
        // Lost answers make the client retry creates: the retried create must carry the same password.
        faults: { loseAnswer: 0.3, seed: 7 },
      },
      client: { logger },
    });
    const credentialsFile = join(dir, "credentials.csv");
    const journalFile = join(dir, "run.jsonl");
    try {
      const passwords = await createPasswordProvider({ source: "generate", credentialsFile });
      const journal = await openJournal(journalFile);
      const desired = desiredOf([
        aDesiredUser({ email: "old@a.com", id: "old", displayName: "Old Renamed", groups: [] }),
        ...["Ann@a.com", "ben@a.com", "cid@a.com"].map((email) =>
          aDesiredUser({ email, id: email.split("@")[0]!.toLowerCase(), displayName: email, groups: [] }),
        ),
      ]);
      const { plan, result } = await planAndApply({
        client: env.client,
        desired,
        policy: aPolicy({ passwords: "generate" }),
        apply: { passwords, journal, logger },
      });
      await journal.close();
      await passwords.close();
      expect(result.counts.failed).toBe(0);
      expect(env.emulator.counters().faults["lose"]).toBeGreaterThan(0);

      expect((await stat(credentialsFile)).mode & 0o777).toBe(0o600);
      const [header, ...rows] = (await readFile(credentialsFile, "utf8")).trimEnd().split("\n");
      expect(header).toBe(CREDENTIALS_HEADER);
      const written = new Map(
        rows
          .map((r) => r.split(",") as [string, string, string])
          .map(([email, password]) => [email, password]),
      );
      expect([...written.keys()].sort()).toEqual(["Ann@a.com", "ben@a.com", "cid@a.com"]);
      // The service holds the password the file says (the newest line wins; here one line each).
      const stored = new Map(env.emulator.state().idpUsers.map((u) => [u.email, u.password]));
      for (const [email, password] of written) expect(stored.get(email)).toBe(password);
      expect(stored.get("old@a.com")).toBe("Seeded-1!");

      const everywhere = [
        logs,
        await readFile(journalFile, "utf8"),
        JSON.stringify(buildApplyReport(result, plan)),
        JSON.stringify(plan),
        renderApplySummary(result, { color: false }),
        JSON.stringify(env.emulator.requestLog()),
      ].join("\n");
      expect(logs).toContain("step succeeded");
      for (const password of written.values()) expect(everywhere).not.toContain(password);
    } finally {
      await env.close();
    }
  });
});
