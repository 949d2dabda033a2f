/**
 * The source contract through the built CLI, on a real slapd: every plan format says what the
 * plan was made from (the evidence), a successful apply remembers each picked group's size in
 * the state file, and a group that suddenly reads empty (here: gone) against it stops the run
 * with exit 5 and no request to the service, until `--allow-empty-groups` believes it for one run.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "ldapts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { directoryLdif, groupDn, GROUPS, PEOPLE } from "../helpers/directory-ldif.js";
import {
  READER_DN,
  READER_PASSWORD,
  ROOT_DN,
  ROOT_PASSWORD,
  slapdAvailable,
  startSlapd,
  type Slapd,
} from "../helpers/slapd.js";
import { logMessages, runCli, withTempDir } from "./run-cli.js";

const COUNT = 60;
const TOKEN = "evidence-e2e-token-41d";
const available = slapdAvailable();

let slapd: Slapd;
let emulator: EmulatorHandle;
beforeAll(async () => {
  if (!available) return;
  slapd = await startSlapd(directoryLdif(COUNT));
  emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" } });
}, 60_000);
afterAll(async () => {
  await emulator?.close();
  await slapd?.remove();
});

const env = { USERSYNC_TOKEN: TOKEN, USERSYNC_LDAP_PASSWORD: READER_PASSWORD };

async function writeConfig(dir: string): Promise<{ config: string; stateFile: string }> {
  const config = join(dir, "usersync.yaml");
  const stateFile = join(dir, "state.json");
  await writeFile(
    config,
    stringify({
      target: { baseUrl: emulator.url, allowInsecureHttp: true },
      source: {
        type: "ldap",
        ldap: {
          url: slapd.url,
          bindDn: READER_DN,
          baseDn: PEOPLE,
          groupBaseDn: GROUPS,
          attributes: { email: "{mail}", id: "{uid}", authenticationId: "{uid}" },
          lowerCase: ["email"],
          groups: [{ dn: `*,${GROUPS}` }],
        },
      },
      identity: { default: "external" },
      policy: { mode: "full", deletions: "remove", maxDeletes: "100%" },
      state: { file: stateFile },
      execution: { requestsPerSecond: 10_000, concurrency: 16 },
      logging: { format: "json", level: "info" },
    }),
  );
  return { config, stateFile };
}

describe.skipIf(!available)("the source's evidence and the picked groups' sizes (slapd + emulator)", () => {
  it("shows the evidence, remembers the sizes, and refuses a group that vanished until allowed", async () => {
    await withTempDir(async (dir) => {
      const { config, stateFile } = await writeConfig(dir);
      const first = await runCli(["apply", "--config", config, "--yes"], { env });
      expect(first.code).toBe(0);
      // The text plan names the source and how the read was proved whole.
      expect(first.stdout).toMatch(
        new RegExp(
          `^Source ldap ${slapd.url.replace(/[.]/g, "\\.")}/${PEOPLE}: 60 people from 1 read \\(1 page\\)`,
          "m",
        ),
      );
      expect(logMessages(first.stderr)).toContain("group sizes recorded");
      const state = JSON.parse(await readFile(stateFile, "utf8")) as { groupSizes: Record<string, number> };
      expect(state.groupSizes).toEqual({
        "ldap:all-staff": 60,
        "ldap:backend": 24,
        "ldap:contractors": 1,
        "ldap:engineering": 42,
        "ldap:frontend": 18,
        "ldap:sales": 18,
      });

      const json = await runCli(["plan", "--config", config, "--format", "json"], { env });
      expect(json.code).toBe(0);
      const plan = JSON.parse(json.stdout) as {
        source: { kind: string; reads: unknown[]; groupSizes: unknown };
      };
      expect(plan.source.kind).toBe("ldap");
      expect(plan.source.reads).toEqual([
        { what: `users under ${PEOPLE}`, pages: 1, announced: "unknown", read: 60 },
      ]);
      const markdown = await runCli(["plan", "--config", config, "--format", "markdown"], { env });
      expect(markdown.stdout).toContain(`Source ldap ${slapd.url}/${PEOPLE}: 60 people`);

      // The frontend group is gone from the directory: not believed, nothing sent.
      const root = new Client({ url: slapd.url });
      await root.bind(ROOT_DN, ROOT_PASSWORD);
      await root.del(groupDn("frontend"));
      await root.unbind();
      emulator.resetLog();
      const refused = await runCli(["apply", "--config", config, "--yes"], { env });
      expect(refused.code).toBe(5);
      expect(refused.stderr).toContain(
        "ldap:frontend (18 members at the last successful run, not found now)",
      );
      expect(refused.stderr).toContain("--allow-empty-groups");
      expect(emulator.requestLog()).toEqual([]);

      // A person who knows the group really went says so for one run; the new sizes are the yardstick after.
      const allowed = await runCli(["apply", "--config", config, "--yes", "--allow-empty-groups"], { env });
      expect(allowed.code).toBe(0);
      const after = JSON.parse(await readFile(stateFile, "utf8")) as { groupSizes: Record<string, number> };
      expect(after.groupSizes["ldap:frontend"]).toBeUndefined();
      const settled = await runCli(["plan", "--config", config, "--detailed-exitcode"], { env });
      expect(settled.code).toBe(0);
    });
  }, 120_000);
});
