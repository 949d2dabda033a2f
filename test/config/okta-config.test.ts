/** `source.okta` (docs/okta.md): defaults, the org URL's mistakes named, rules that pick exactly one way. */
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { loadConfig } from "../../src/config/index.js";

async function load(okta: string, env: NodeJS.ProcessEnv = {}) {
  const dir = await mkdtemp(join(tmpdir(), "okta-config-"));
  const file = join(dir, "usersync.yaml");
  await writeFile(file, `source:\n  type: okta\n  okta:\n${okta.replace(/^/gm, "    ")}\n`);
  return { dir, config: await loadConfig({ file, env, cwd: dir }) };
}

const errorOf = async (okta: string): Promise<string> => {
  try {
    await load(okta);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => `${p.field}: ${p.message}`).join("\n");
    throw err;
  }
  throw new Error("no error");
};

test("defaults: half the quota left, STAGED absent, external identity, full mode; paths resolved", async () => {
  const { dir, config } = await load(
    "orgUrl: https://acme.okta.com/\ncredentials: { clientId: 0oa1, privateKeyFile: key.pem }\ngroups: [{ groupName: Analytics }]",
    { USERSYNC_OKTA_PRIVATE_KEY: "not a setting" },
  );
  expect(config.policy.mode).toBe("full");
  expect(config.warnings).toEqual([]);
  expect(config.source.okta).toMatchObject({
    orgUrl: "https://acme.okta.com",
    headroom: "50%",
    staged: "absent",
    identity: "external",
    concurrency: 4,
    attributes: { email: "{email}", firstname: "{firstName}", lastname: "{lastName}" },
    credentials: {
      clientId: "0oa1",
      privateKeyFile: join(dir, "key.pem"),
      privateKeyEnv: "USERSYNC_OKTA_PRIVATE_KEY",
    },
    groups: [{ groupName: "Analytics", lowerCase: true }],
  });
});

test("a wrong org URL is named with the fix", async () => {
  const groups = "\ngroups: [{ groupId: 00g1 }]";
  expect(await errorOf(`orgUrl: https://acme-admin.okta.com${groups}`)).toContain(
    'use the org URL without "-admin" (https://acme.okta.com)',
  );
  expect(await errorOf(`orgUrl: https://acme.okta.com/oauth2/default${groups}`)).toContain("has a path");
  expect(await errorOf(`orgUrl: http://acme.okta.com${groups}`)).toContain("must start with https://");
});

test("a rule picks by exactly one of groupId, groupName or search; at least one rule", async () => {
  const url = "orgUrl: https://acme.okta.com\n";
  expect(await errorOf(`${url}groups: [{ groupId: 00g1, search: 'type eq "OKTA_GROUP"' }]`)).toContain(
    "exactly one of groupId, groupName or search",
  );
  expect(await errorOf(`${url}groups: []`)).toContain("pick at least one group");
  expect(await errorOf(`${url}groups: [{ groupId: 00g1 }]\nheadroom: "99%"`)).toContain("at most 95%");
});

test("docs/okta.md's configuration loads as written", async () => {
  const doc = await readFile(join(import.meta.dirname, "../../docs/okta.md"), "utf8");
  const block = /^```yaml\n([\s\S]*?)^```$/m.exec(doc)![1]!;
  const dir = await mkdtemp(join(tmpdir(), "okta-doc-"));
  await writeFile(join(dir, "usersync.yaml"), block);
  const config = await loadConfig({ file: join(dir, "usersync.yaml"), env: {}, cwd: dir });
  expect(config.source.okta?.groups).toMatchObject([
    { search: 'profile.name sw "analytics-"', id: "{name}" },
    { groupName: "Finance", id: "finance", workspaces: { finance: ["VIEW", "ANALYZE"] } },
  ]);
});
