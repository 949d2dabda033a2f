import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { expect, test } from "vitest";
import { envNameOf, LEAVES, loadConfig } from "../../src/config/index.js";

const example = resolve("config.example.yaml");

test("config.example.yaml loads and holds exactly the defaults", async () => {
  const fromExample = await loadConfig({ file: example, env: {}, cwd: "/" });
  const defaults = await loadConfig({ env: {}, cwd: "/nonexistent-dir-for-defaults" });
  const { configFile, ...rest } = fromExample;
  expect(configFile).toBe(example);
  expect(rest).toEqual(defaults);
});

test("config.example.yaml documents every key, each under its section", async () => {
  const text = await readFile(example, "utf8");
  const lines = text.split("\n");
  for (const leaf of Object.keys(LEAVES)) {
    const parts = leaf.split(".");
    // Each part appears as a key (possibly commented out) after the previous one, at a deeper indent.
    let from = 0;
    parts.forEach((part, depth) => {
      const at = lines.findIndex(
        (l, i) =>
          i >= from && new RegExp(`^#? {0,1}\\s{${depth * 2}}${part}:`).test(l.replace(/^(\s*)# /, "$1")),
      );
      expect(at, `${leaf} is documented in config.example.yaml`).toBeGreaterThanOrEqual(0);
      from = at + 1;
    });
  }
});

test("environment variable names follow USERSYNC_<SECTION>_<KEY>", () => {
  expect(envNameOf("target.baseUrl")).toBe("USERSYNC_TARGET_BASE_URL");
  expect(envNameOf("policy.maxDeletes")).toBe("USERSYNC_POLICY_MAX_DELETES");
  expect(envNameOf("execution.concurrency")).toBe("USERSYNC_EXECUTION_CONCURRENCY");
  expect(envNameOf("policy.groups.createReferenced")).toBe("USERSYNC_POLICY_GROUPS_CREATE_REFERENCED");
});
