/**
 * Rehearse from the CLI (issue 38, item 7): `usersync emulator --directory graph|okta|google`
 * serves a directory stand-in from a seed file beside the service (whose seed sets how the
 * organization signs people in) and prints the `source:` block that reads it; that block, pasted
 * into a config, converges: plan, apply, and a plan that is empty, each person keyed by the
 * organization's claim; the config the emulator wrote beside the key plans the same.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { ROOT, runCli, startCli, withTempDir } from "./run-cli.js";

async function printed(out: () => string, done: Promise<unknown>): Promise<string> {
  for (let i = 0; i < 600; i++) {
    if (/groups:\n\s+- .+\n/.test(out())) return out();
    const over = await Promise.race([
      done.then(() => true),
      new Promise((r) => setTimeout(() => r(false), 50)),
    ]);
    if (over) break;
  }
  throw new Error(`the emulator printed no source block:\n${out()}`);
}

/** Per kind: the source type, the organization seed's name, and Ada's id in the directory (what her login's claim carries). */
const KINDS = {
  okta: { type: "okta", organization: "okta", ada: "00u1ada" },
  graph: { type: "entra", organization: "entra", ada: "1a000000-0000-4000-8000-000000000001" },
  google: { type: "google", organization: "google", ada: "100000000000000000001" },
} as const;

describe.each(Object.keys(KINDS) as (keyof typeof KINDS)[])("usersync emulator --directory %s", (kind) => {
  it("prints a source block that converges against the emulator it serves beside", async () => {
    await withTempDir(async (dir) => {
      const seed = join(ROOT, "fixtures", "stand-ins", `${kind}.yaml`);
      const organization = join(
        ROOT,
        "fixtures",
        "stand-ins",
        `organization-${KINDS[kind].organization}.yaml`,
      );
      const { child, done } = startCli(
        [
          "emulator",
          "--port",
          "0",
          "--seed",
          organization,
          "--directory",
          kind,
          "--directory-seed",
          seed,
          "--directory-files",
          dir,
          "--log-level",
          "warn",
        ],
        { cwd: dir },
      );
      let stdout = "";
      child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
      try {
        const text = await printed(() => stdout, done);
        const base = text.split("\n")[0]!;
        expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        // The notes are comments; the block parses as YAML as printed.
        const block = parse(text.slice(text.indexOf("source:"))) as { source: Record<string, unknown> };
        expect(block.source["type"]).toBe(KINDS[kind].type);
        expect(text).not.toMatch(/BEGIN PRIVATE KEY/);
        const config = join(dir, "pasted.yaml");
        await writeFile(
          config,
          stringify({
            target: { baseUrl: base, allowInsecureHttp: true },
            ...block,
            policy: { deletions: "remove" },
            logging: { format: "json", level: "warn" },
          }),
        );
        const env = { USERSYNC_TOKEN: "dev-token" };
        const apply = await runCli(["apply", "--config", config, "--yes"], { env, cwd: dir });
        expect(apply.stderr).not.toMatch(/"level":50/);
        expect(apply.code).toBe(0);
        const again = await runCli(["plan", "--config", config, "--detailed-exitcode"], { env, cwd: dir });
        expect(again.code, again.stdout + again.stderr).toBe(0);
        expect(again.stdout).toMatch(/No changes/);
        // Each person is keyed by the claim the seeded organization names (its identity provider's).
        const users = (await (
          await fetch(`${base}/api/v1/entities/users?size=100`, {
            headers: { Authorization: "Bearer dev-token" },
          })
        ).json()) as { data: { attributes: { email?: string; authenticationId?: string } }[] };
        const ada = users.data.find((u) => u.attributes.email === "ada@example.org");
        expect(ada?.attributes.authenticationId).toBe(KINDS[kind].ada);
        // The config written beside the key reads the same and targets the same emulator.
        const written = join(dir, "rehearsal.yaml");
        expect(text).toContain(`a config that reads it and targets this emulator: ${written}`);
        const same = await runCli(["plan", "--config", written, "--detailed-exitcode"], { env, cwd: dir });
        expect(same.code, same.stdout + same.stderr).toBe(0);
      } finally {
        child.kill("SIGTERM");
        expect((await done).code).toBe(0);
      }
    });
  }, 120_000);
});

describe("usersync emulator --directory with a seed it cannot serve", () => {
  it("never overwrites a rehearsal.yaml it did not write (exit 4, the fix named)", async () => {
    await withTempDir(async (dir) => {
      const mine = "target: { baseUrl: https://analytics.example.com }\n";
      await writeFile(join(dir, "rehearsal.yaml"), mine);
      const r = await runCli(
        ["emulator", "--port", "0", "--directory", "okta", "--directory-files", dir, "--log-level", "warn"],
        { cwd: dir },
      );
      expect(r.code).toBe(4);
      expect(r.stderr).toContain(
        "was not written by usersync emulator: give the stand-in a folder of its own",
      );
      expect(await readFile(join(dir, "rehearsal.yaml"), "utf8")).toBe(mine);
    });
  });

  it("stops before it listens (exit 4), naming the seed and what to add", async () => {
    await withTempDir(async (dir) => {
      const seed = join(dir, "google.yaml");
      await writeFile(
        seed,
        stringify({
          users: [{ id: "1", primaryEmail: "ada@example.org", name: { givenName: "Ada" } }],
          groups: [
            { id: "g", email: "sales@example.org", name: "Sales", members: [{ id: "1", type: "USER" }] },
          ],
        }),
      );
      const r = await runCli(
        [
          "emulator",
          "--port",
          "0",
          "--directory",
          "google",
          "--directory-seed",
          seed,
          "--directory-files",
          dir,
        ],
        { cwd: dir },
      );
      expect(r.code).toBe(4);
      expect(r.stderr).toContain(`the seed ${seed} has no active admin (a user with isAdmin: true)`);
      expect(r.stdout).toBe("");
    });
  });
});
