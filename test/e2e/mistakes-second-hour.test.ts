/**
 * The newcomer's second hour (issue 32), beyond the table of mistakes.test.ts: what a plan says
 * when a guard trips or the mode keeps grants, through the built CLI against one emulator holding
 * the demo organization (nothing here writes to it), and the pointers the shipped files give to
 * docs sections, the log levels --help and config.example.yaml name.
 */
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { logMessages, ROOT, runCli, withTempDir } from "./run-cli.js";

const TOKEN = "second-hour-token-61c";
const DEMO = join(ROOT, "fixtures", "demo");

let emulator: EmulatorHandle;
beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    seed: await loadSeedFile(join(DEMO, "organization.yaml")),
  });
});
afterAll(async () => {
  expect(emulator.requestLog().filter((r) => r.method !== "GET")).toEqual([]);
  await emulator.close();
});

const env = {
  USERSYNC_TOKEN: TOKEN,
  USERSYNC_PERMISSIONS_WORKSPACES: "all",
  USERSYNC_DATA_FILTERS_WORKSPACES: "all",
};
const ONE_PERSON =
  "version: 1\nusers:\n  - email: ada.lovelace@demo.example\n    id: ada.lovelace\n    displayName: Ada Lovelace\n";

describe("a tripped deletion guard", () => {
  it("says the count and the flag once, lists the names once, and logs one warn line", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "users.yaml"), ONE_PERSON);
      const args = ["--base-url", emulator.url, "--desired", join(dir, "users.yaml"), "--mode", "full"];
      const r = await runCli(["apply", ...args, "--yes"], { env });
      expect(r.code, r.stderr).toBe(3);
      // The demo organization has 31 managed people: 30 of them to revoke, 3 allowed.
      expect(r.stdout).toMatch(/^ {2}Deletion guard .*every deletion is held back\. .*--allow-deletes 30/m);
      expect(r.stdout).toContain(
        "Held back by the deletion guard, 3 allowed: read them, then --allow-deletes 30 for one run (30):\n",
      );
      expect(r.stdout).toContain(
        "  ! user grace.hopper: revoke: access revoked (their built-in login is deleted: the mapping stays, groups, permissions and API tokens removed)\n",
      );
      // The reason once, in the plan and in the apply's summary: not once per person.
      expect(r.stdout.match(/over policy\.maxDeletes/g) ?? []).toEqual([]);
      expect(r.stdout.match(/held back by the deletion limit/g)).toHaveLength(1);
      const warnings = r.stderr
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { level: number; msg: string })
        .filter((l) => l.level === 40 && l.msg.startsWith("deletion guard"));
      expect(warnings.map((w) => w.msg)).toEqual([
        "deletion guard: 30 people to revoke or remove, 3 allowed (policy.maxDeletes): every deletion is held back. Read the plan's list, then --allow-deletes 30 lifts the limit for one run",
      ]);
    });
  });
});

describe("incremental mode keeping a grant the file no longer lists", () => {
  // The demo's sales group holds VIEW on the sales workspace; the file manages the group but lists nothing.
  const KEEPS =
    "version: 1\ngroups:\n  - id: sales\n    name: Sales\n    workspaces: {}\n" +
    ONE_PERSON.slice("version: 1\n".length);

  it("names and counts it in text, Markdown and JSON, and never says the organization matches", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "users.yaml"), KEEPS);
      const plan = (format: string) =>
        runCli(
          ["plan", "--base-url", emulator.url, "--desired", join(dir, "users.yaml"), "--format", format],
          {
            env,
          },
        );
      const [text, markdown, json] = await Promise.all([plan("text"), plan("markdown"), plan("json")]);
      for (const r of [text, markdown, json]) expect(r.code, r.stderr).toBe(0);

      expect(text.stdout).not.toContain("matches the desired state");
      expect(text.stdout).toMatch(
        /^ {2}Kept by mode {2}.*1 workspace grant the desired state no longer lists, kept too \(mode full would revoke it\)$/m,
      );
      expect(text.stdout).toContain(
        "Kept by mode (policy.mode: incremental) (1):\n    permissions of group sales on sales: keeps VIEW: the desired state does not list sales",
      );
      expect(text.stdout.trimEnd().split("\n").at(-1)).toBe(
        "No changes. Kept only because the mode is incremental: 30 people not in the file and 1 workspace grant the desired state no longer lists (see Kept by mode).",
      );

      expect(markdown.stdout).not.toContain("matches the desired state");
      expect(markdown.stdout).toContain("### Kept by mode (policy.mode: incremental) (1)");
      expect(markdown.stdout).toContain("| permissions of group sales on sales | keeps VIEW:");

      const saved = JSON.parse(json.stdout) as {
        summary: { permissionsKeptByMode?: number };
        notices: Array<{ kind: string; target: string }>;
      };
      expect(saved.summary.permissionsKeptByMode).toBe(1);
      expect(saved.notices.filter((n) => n.kind === "keptByMode").map((n) => n.target)).toEqual([
        "permission:sales/userGroup/sales",
      ]);
    });
  });

  it("in full mode the same file revokes it instead", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "users.yaml"), KEEPS);
      const r = await runCli(
        [
          "plan",
          "--base-url",
          emulator.url,
          "--desired",
          join(dir, "users.yaml"),
          "--mode",
          "full",
          "--detail",
          "summary",
        ],
        { env },
      );
      expect(r.code, logMessages(r.stderr)).toBe(0);
      expect(r.stdout).toMatch(/^ {2}Permissions +1 group loses VIEW on sales$/m);
      expect(r.stdout).not.toContain("workspace grant");
    });
  });
});

describe("what the shipped files point at", () => {
  it('every (docs/FILE.md, "Section") pointer names a section that exists', async () => {
    const files = ["config.example.yaml", ...(await filesUnder("deploy")), ...(await filesUnder("src"))];
    const pointers: string[] = [];
    for (const file of files) {
      // Comments wrap: join their lines (`#`, `//`, ` * `) before looking.
      const text = (await readFile(join(ROOT, file), "utf8")).replace(/\s*\n\s*(#|\/\/|\*)?\s*/g, " ");
      for (const m of text.matchAll(/(docs\/[\w-]+\.md), "([A-Z][^"]+)"/g))
        pointers.push(`${file}: ${m[1]}#${m[2]}`);
    }
    expect(pointers.length).toBeGreaterThan(5);
    const broken: string[] = [];
    for (const p of pointers) {
      const [, doc, title] = /: (docs\/[\w-]+\.md)#(.*)$/.exec(p)!;
      const headings = (await readFile(join(ROOT, doc!), "utf8")).match(/^#+ .*$/gm) ?? [];
      const found = headings.some((h) =>
        h.replace(/^#+ /, "").toLowerCase().startsWith(title!.toLowerCase()),
      );
      if (!found) broken.push(p);
    }
    expect(broken).toEqual([]);
  });

  it("--help and config.example.yaml name the same log levels", async () => {
    const example = await readFile(join(ROOT, "config.example.yaml"), "utf8");
    const listed = /# (trace, debug, .*) or silent\./.exec(example)![1]!.split(", ").concat("silent");
    const help = await runCli(["plan", "--help"]);
    const levels = /--log-level LEVEL +([a-z|]+)/.exec(help.stdout)![1]!.split("|");
    expect(levels).toEqual(listed);
  });
});

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.(ts|ya?ml)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name).slice(ROOT.length + 1));
}
