/**
 * `identity.default: external` with a directory source (issue 38, point 6): Entra and Okta decide
 * who signs in as whom in their own rule, so the setting is refused with a pointer to it; an LDAP
 * rule may use it only with the attribute that is the login's claim.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { loadConfig } from "../../src/config/index.js";

async function problemsOf(yaml: string): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), "identity-default-"));
  const file = join(dir, "usersync.yaml");
  await writeFile(file, yaml);
  try {
    await loadConfig({ file, env: {}, cwd: dir });
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => `${p.field} ${p.rule}: ${p.message}`);
    throw err;
  }
}

const entra = `source:
  type: entra
  entra:
    tenant: contoso.onmicrosoft.com
    clientId: 1b2c3d4e-0000-4000-8000-000000000002
    groups: [{ displayName: Analytics }]
`;
const okta = `source:
  type: okta
  okta:
    orgUrl: https://acme.okta.com
    credentials: { clientId: 0oa1, privateKeyFile: key.pem }
    groups: [{ groupName: Analytics }]
`;
const ldap = (authenticationId: string) => `source:
  type: ldap
  ldap:
    url: ldap://127.0.0.1:3890
    baseDn: dc=example,dc=org
    attributes:
      email: "{mail}"
${authenticationId}    groups: [{ cn: analytics }]
`;

test("Entra: refused, naming source.entra.attributes.authenticationId and docs/entra.md", async () => {
  const problems = await problemsOf(`identity:\n  default: external\n${entra}`);
  expect(problems).toHaveLength(1);
  expect(problems[0]).toMatch(
    /^identity\.default directory-decides-identity: does not apply to an Entra ID source/,
  );
  expect(problems[0]).toContain("source.entra.attributes.authenticationId");
  expect(problems[0]).toContain("docs/entra.md");
  expect(await problemsOf(entra)).toEqual([]);
});

test("Okta: refused, naming source.okta.identity and docs/okta.md", async () => {
  const problems = await problemsOf(`identity:\n  default: external\n${okta}`);
  expect(problems).toHaveLength(1);
  expect(problems[0]).toContain("source.okta.identity");
  expect(problems[0]).toContain("docs/okta.md");
});

test("LDAP: allowed with attributes.authenticationId, refused without it", async () => {
  expect(
    await problemsOf(`identity:\n  default: external\n${ldap('      authenticationId: "{entryUUID}"\n')}`),
  ).toEqual([]);
  const problems = await problemsOf(`identity:\n  default: external\n${ldap("")}`);
  expect(problems).toHaveLength(1);
  expect(problems[0]).toContain("needs source.ldap.attributes.authenticationId");
});
