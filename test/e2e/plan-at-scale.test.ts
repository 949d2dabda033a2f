/**
 * A 20,000-person plan through the built CLI, against the embedded emulator: every format opens
 * with the summary, compact text stays under 400 lines, Markdown under 1 MiB.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, withTempDir } from "./run-cli.js";

const PEOPLE = 20_000;

async function planBig(format: string, extra: string[] = []) {
  return withTempDir(async (dir) => {
    const rows = ["email,id,displayName"];
    for (let i = 0; i < PEOPLE; i++) rows.push(`p${i}@scale.example,p${i},Person ${i}`);
    const desired = join(dir, "users.csv");
    await writeFile(desired, `${rows.join("\n")}\n`);
    const args = ["plan", "--desired", desired, "--base-url", "embedded", "--format", format, ...extra];
    return runCli(args, { cwd: dir, env: { USERSYNC_LOGGING_LEVEL: "warn" } });
  });
}

describe(`a plan for ${PEOPLE.toLocaleString("en-US")} new people`, () => {
  it("text is compact by default: the summary first, a sample per kind, under 400 lines", async () => {
    const r = await planBig("text");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.length).toBeLessThan(400);
    expect(lines.slice(0, 6)).toEqual([
      "DRY RUN — nothing will be changed",
      "Mode incremental · profile v1 · membership exact · deletions revoke",
      "",
      "Summary:",
      "  People    20,000 to add",
      "  Estimate  40,000 requests, about 14 min at the configured limits",
    ]);
    expect(r.stdout).toContain("20,000 people to add:");
    expect(r.stdout).toContain("  … and 19,995 more people to add");
    expect(r.stdout).toContain("(--detail compact): every change with --detail full");
    expect(lines.at(-1)).toBe("Plan: changes for 20,000 people (20,000 to add).");
    expect(r.stdout).not.toMatch(/createCredentials|authenticationId|heldBack|0 held back/);
  });

  it("--detail summary shows the summary alone; --detail applies to text only", async () => {
    const r = await planBig("text", ["--detail", "summary"]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("# user");
    expect(r.stdout.trimEnd().split("\n").length).toBeLessThan(15);
    const json = await planBig("json", ["--detail", "full"]);
    expect(json.code).toBe(4);
    expect(json.stderr).toContain("--detail applies to --format text only");
  });

  it("Markdown opens with the summary and stays under 1 MiB, pointing at the JSON plan", async () => {
    const r = await planBig("markdown");
    expect(r.code).toBe(0);
    expect(Buffer.byteLength(r.stdout)).toBeLessThan(1024 * 1024);
    const body = r.stdout.split("\n");
    expect(body.slice(0, 11)).toEqual([
      "## usersync plan",
      "",
      "> **DRY RUN — nothing will be changed**",
      "",
      "Organization: embedded emulator",
      "",
      "Mode incremental · profile v1 · membership exact · deletions revoke",
      "",
      "**Plan: changes for 20,000 people (20,000 to add).**",
      "",
      "- **People:** 20,000 to add",
    ]);
    expect(r.stdout).toMatch(/more rows not shown.*`usersync plan --format json --out plan\.json`/);
  });

  it("JSON opens with the summary object, counting people", async () => {
    const r = await planBig("json");
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as Record<string, unknown> & { steps: unknown[] };
    expect(Object.keys(plan).slice(0, 2)).toEqual(["formatVersion", "summary"]);
    expect(plan["summary"]).toMatchObject({
      people: { add: PEOPLE, change: 0, revoke: 0, remove: 0, heldBack: 0 },
      groups: { add: 0, change: 0, remove: 0 },
      estimate: { requests: 2 * PEOPLE },
    });
    expect(plan.steps).toHaveLength(2 * PEOPLE);
  });
});
