/** Settings that do nothing under the rest of the policy are said once, as a notice. */
import { access } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ineffectiveSettings } from "../../src/config/index.js";
import { defaultPolicy, type Policy } from "../../src/plan/policy.js";
import { ROOT, runCli, withTempDir } from "../e2e/run-cli.js";

const policy = (p: Partial<Policy>): Policy => ({ ...defaultPolicy, ...p });

describe("ineffectiveSettings", () => {
  it("names prune and unlinked clean-up in incremental mode, and nothing in full mode", () => {
    const prune = { ...defaultPolicy.groups, prune: true };
    expect(ineffectiveSettings(policy({ groups: prune }))).toEqual([
      expect.stringMatching(/^policy.groups.prune has no effect in incremental mode/),
    ]);
    expect(ineffectiveSettings(policy({ unlinkedCredentials: "delete" }))).toEqual([
      expect.stringMatching(/^policy.unlinkedCredentials: delete has no effect in incremental mode/),
    ]);
    expect(
      ineffectiveSettings(policy({ mode: "full", unlinkedCredentials: "delete", deletions: "none" })),
    ).toEqual(["policy.unlinkedCredentials: delete has no effect with policy.deletions: none"]);
    expect(
      ineffectiveSettings(policy({ mode: "full", groups: prune, unlinkedCredentials: "delete" })),
    ).toEqual([]);
    expect(ineffectiveSettings(defaultPolicy)).toEqual([]);
  });

  it("plan says it once on stderr and still plans (exit 0)", async () => {
    const r = await runCli(
      ["plan", "--desired", join(ROOT, "fixtures", "demo", "users.yaml"), "--base-url", "embedded"],
      { env: { USERSYNC_POLICY_GROUPS_PRUNE: "true" } },
    );
    expect(r.code).toBe(0);
    expect(r.stderr.split("policy.groups.prune has no effect in incremental mode").length - 1).toBe(1);
  });

  it("apply says once that --credentials-file has no effect when passwords are not generated, and writes no file", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "credentials.csv");
      const r = await runCli(
        [
          "apply",
          "--desired",
          join(ROOT, "fixtures", "demo", "users.yaml"),
          "--base-url",
          "embedded",
          "--yes",
          "--credentials-file",
          file,
        ],
        { env: { USERSYNC_IDENTITY_PASSWORDS: "none" }, cwd: dir },
      );
      expect(r.code).toBe(0);
      expect(
        r.stderr.split("--credentials-file has no effect with identity.passwords: none").length - 1,
      ).toBe(1);
      await expect(access(file)).rejects.toThrow(/ENOENT/);
    });
  });
});
