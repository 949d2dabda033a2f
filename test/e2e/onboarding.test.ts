/**
 * Onboarding from HR's export through the built CLI on the emulator (issue 49), lean: one
 * emulator for the file. The export as HR writes it (a byte order mark, HR's column names,
 * diacritics, an e-mail in capitals, a duplicate row) is mapped by source.columns; people start
 * on their start date and leave after their end date; the manager's dry run is a page.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { runCli, withTempDir } from "./run-cli.js";

const TOKEN = "e2e-token-hr49";
const HEADER =
  "Employee ID,Legal First Name,Preferred Name,Legal Last Name,Work Email,Department,Start Date,Termination Date";
const ROWS = [
  "E100,Łukasz,,Wiśniewski,lukasz.wisniewski@acme.example,People Operations,2026-12-01,",
  "E101,Johnathan,John,Upper,JOHN.UPPER@ACME.EXAMPLE,Sales,2026-12-01,",
  "E090,,,,olga.old@acme.example,Sales,2025-01-01,2026-11-30",
];
const CONFIG = `source:
  desired: ./hr.csv
  columns:
    id: Employee ID
    email: { from: Work Email, lower: true }
    firstname: [Preferred Name, Legal First Name]
    lastname: Legal Last Name
    groups: Department
    startDate: Start Date
    endDate: Termination Date
`;

let emulator: EmulatorHandle;
beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    seed: {
      groups: [
        { id: "people-ops", name: "People Operations" },
        { id: "sales", name: "Sales" },
      ],
      idpUsers: [{ email: "olga.old@acme.example", displayName: "Olga Old", authenticationId: "auth-olga" }],
      mappings: [
        { id: "E090", authenticationId: "auth-olga", email: "olga.old@acme.example", groups: ["sales"] },
      ],
    },
  });
});
afterAll(async () => {
  await emulator.close();
});

const writes = () => emulator.requestLog().filter((r) => r.method !== "GET").length;

describe("a month of onboarding from HR's export", { timeout: 600_000 }, () => {
  it("validates, waits for the start date, onboards on the day, offboards after the last day", async () => {
    await withTempDir(async (dir) => {
      const env = { USERSYNC_TOKEN: TOKEN };
      const run = (args: string[]) =>
        runCli([...args, "--config", join(dir, "usersync.yaml")], { cwd: dir, env });
      await writeFile(join(dir, "usersync.yaml"), CONFIG);
      const hr = (rows: string[]) =>
        writeFile(join(dir, "hr.csv"), `\uFEFF${[HEADER, ...rows].join("\r\n")}\r\n`);

      // HR's duplicate row: refused, naming both rows.
      await hr([...ROWS, ROWS[1]!]);
      const dup = await run(["validate"]);
      expect(dup.code).toBe(4);
      expect(dup.stdout).toMatch(
        /hr\.csv:5: email \(from "Work Email"\): "john\.upper@acme\.example" is already used at .*hr\.csv:3/,
      );

      // Corrected: the mapping's first rows, offline.
      await hr(ROWS);
      const ok = await run(["validate"]);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain("line 2: email=lukasz.wisniewski@acme.example  id=E100  firstname=Łukasz");

      // A week before the start: nobody is created; Olga still works.
      const before = await run(["plan", "--base-url", emulator.url, "--today", "2026-11-24"]);
      expect(before.code).toBe(0);
      expect(before.stdout).toContain(
        "Starting later (no login before the start date; today is 2026-11-24) (2)",
      );
      expect(before.stdout).toContain("No changes.");

      // The manager's dry run for the first day: a page naming the organization and the people.
      const page = await run([
        "plan",
        "--base-url",
        emulator.url,
        "--today",
        "2026-12-01",
        "--format",
        "html",
      ]);
      expect(page.code).toBe(0);
      expect(page.stdout).toContain(`<title>usersync plan: ${emulator.url}</title>`);
      expect(page.stdout).toContain("Łukasz Wiśniewski");
      expect(writes()).toBe(0);

      // On the day: the two start (groups by name), Olga's last day has passed: revoked.
      // One leaver of one managed person is over maxDeletes (10%): allowed for this run, as a person does.
      const day = await run([
        "apply",
        "--yes",
        "--base-url",
        emulator.url,
        "--today",
        "2026-12-01",
        "--allow-deletes",
        "1",
        "--credentials-file",
        join(dir, "credentials.csv"),
      ]);
      expect(day.code, day.stderr).toBe(0);
      const state = emulator.state();
      expect(state.idpUsers.map((u) => u.email).sort()).toEqual([
        "john.upper@acme.example",
        "lukasz.wisniewski@acme.example",
      ]);
      expect(state.mappings.find((m) => m.id === "E100")?.groups).toEqual(["people-ops"]);
      expect(state.idpUsers.find((u) => u.email === "lukasz.wisniewski@acme.example")?.displayName).toBe(
        "Łukasz Wiśniewski",
      );

      const credentials = await readFile(join(dir, "credentials.csv"), "utf8");
      expect(credentials).toContain("john.upper@acme.example");
      expect(credentials).not.toContain("olga");

      // The next run on the same day has nothing to do.
      const again = await run([
        "plan",
        "--base-url",
        emulator.url,
        "--today",
        "2026-12-01",
        "--detailed-exitcode",
      ]);
      expect(again.stdout).toContain("No changes. The organization matches the desired state.");
      expect(again.code).toBe(0);
    });
  });
});
