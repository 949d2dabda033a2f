/**
 * The LDAP source against a real OpenLDAP slapd (sizelimit 500, 1,500 people): paging past the
 * limit, nested groups, parents, problems naming the DN and the attribute, and failures that
 * must never read as "no users".
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../../../src/errors.js";
import { configSchema } from "../../../../src/config/schema.js";
import { readLdapDesired, type LdapConfig } from "../../../../src/desired/sources/ldap/index.js";
import { binaryText, evaluate } from "../../../../src/desired/sources/ldap/template.js";
import { escapeFilterValue } from "../../../../src/desired/sources/ldap/groups.js";
import {
  findSlapd,
  READER_DN,
  READER_PASSWORD,
  SKIP_MESSAGE,
  startSlapd,
  SUFFIX,
  type Slapd,
} from "../../../helpers/slapd.js";
import { directoryLdif, GROUPS, PEOPLE } from "../../../helpers/directory-ldif.js";

const COUNT = 1500;
const available = findSlapd() !== undefined;
if (!available) console.warn(SKIP_MESSAGE);

let slapd: Slapd;
beforeAll(async () => {
  if (available) slapd = await startSlapd(directoryLdif(COUNT));
}, 60_000);
afterAll(async () => {
  await slapd?.remove();
});

const env = { LDAP_PW: READER_PASSWORD };

function ldapConfig(over: Partial<Record<string, unknown>> = {}): LdapConfig {
  const parsed = configSchema.parse({
    source: {
      type: "ldap",
      ldap: {
        url: slapd.url,
        bindDn: READER_DN,
        passwordEnv: "LDAP_PW",
        baseDn: PEOPLE,
        groupBaseDn: GROUPS,
        attributes: {
          email: "{mail}",
          id: "{uid}",
          displayName: "{cn}",
          firstname: "{givenName}",
          lastname: "{sn}",
        },
        lowerCase: ["email"],
        groups: [{ dn: `*,${GROUPS}`, cn: "*", parents: "directory" }],
        ...over,
      },
    },
  });
  return parsed.source.ldap!;
}

describe.skipIf(!available)("LDAP source against slapd", () => {
  it("reads 1,500 people past the server's size limit of 500, with nested groups expanded", async () => {
    const { state, problems } = await readLdapDesired({
      config: ldapConfig(),
      env,
      defaultIdentity: "builtin",
    });
    expect(problems).toEqual([]);
    expect(state.users).toHaveLength(COUNT);
    expect(state.files).toEqual([`${slapd.url}/${PEOPLE}`]);
    const first = state.users.find((u) => u.id === "p000000")!;
    expect(first).toMatchObject({
      email: "p000000@example.com",
      displayName: "Person 0",
      firstname: "Person",
      lastname: "N0",
      groups: ["all-staff", "backend", "contractors", "engineering"],
    });
    expect(state.users.find((u) => u.id === "p001499")!.groups).toEqual(["all-staff", "sales"]);
    const parents = Object.fromEntries(state.groups.map((g) => [g.id, g.parents]));
    expect(parents).toEqual({
      "all-staff": [],
      backend: ["engineering"],
      contractors: [],
      engineering: ["all-staff"],
      frontend: ["engineering"],
      sales: ["all-staff"],
    });
  });

  it("rules pick groups by name, derive ids by template, and nesting can be switched off", async () => {
    const config = ldapConfig({
      groups: [{ cn: "*end", id: "team-{cn}", name: "Team {cn}", parents: ["teams"] }, { cn: "teams-root" }],
      nested: "none",
    });
    const { state, problems } = await readLdapDesired({ config, env, defaultIdentity: "builtin" });
    // "teams" is named as a parent but no rule makes it: the desired state says so.
    expect(problems.map((p) => p.rule)).toContain("unknown-parent");
    expect(state.groups.map((g) => [g.id, g.name])).toEqual([
      ["team-backend", "Team backend"],
      ["team-frontend", "Team frontend"],
    ]);
    expect(state.users.find((u) => u.id === "p000000")!.groups).toEqual(["team-backend"]);
  });

  it("group rules attach workspace permissions (keys may be templates) and organization permissions", async () => {
    const config = ldapConfig({
      groups: [
        {
          cn: "*end",
          parents: [],
          workspaces: {
            "ws-{cn}": ["VIEW", "analyze"],
            shared: { permissions: ["VIEW"], hierarchy: ["VIEW"] },
          },
          organization: ["SELF_CREATE_TOKEN"],
        },
        { cn: "sales", parents: [], workspaces: { "{cn}": ["READ"] } },
      ],
      userFilter: "(uid=p00000*)",
    });
    const { state, problems } = await readLdapDesired({ config, env, defaultIdentity: "builtin" });
    const backend = state.groups.find((g) => g.id === "backend")!;
    expect(backend.workspaces).toEqual([
      { workspace: "shared", permissions: ["VIEW"], hierarchy: ["VIEW"] },
      { workspace: "ws-backend", permissions: ["ANALYZE", "VIEW"], hierarchy: [] },
    ]);
    expect(backend.organization).toEqual(["SELF_CREATE_TOKEN"]);
    // A wrong name in a rule is reported at the group's DN, naming the rule's key.
    expect(problems).toEqual([
      expect.objectContaining({
        file: `cn=sales,${GROUPS}`,
        field: "source.ldap.groups[1].workspaces.sales",
        rule: "unknown-permission",
      }),
    ]);
  });

  it("group rules attach data filters, the workspace key and the values templated from the group", async () => {
    const config = ldapConfig({
      groups: [
        {
          cn: "*end",
          parents: [],
          dataFilters: { "ws-{cn}": { label: "team", values: ["{cn}", "shared"] } },
        },
      ],
      userFilter: "(uid=p00000*)",
    });
    const { state, problems } = await readLdapDesired({ config, env, defaultIdentity: "builtin" });
    expect(problems).toEqual([]);
    expect(state.groups.find((g) => g.id === "backend")!.dataFilters).toEqual([
      {
        workspace: "ws-backend",
        maql: '{label/team} IN ("backend", "shared")',
        label: "team",
        values: ["backend", "shared"],
      },
    ]);
  });

  it("a problem names the entry's DN and the attribute", async () => {
    const config = ldapConfig({ baseDn: SUFFIX, userFilter: "(&(objectClass=inetOrgPerson)(uid=nomail))" });
    const { problems } = await readLdapDesired({ config, env, defaultIdentity: "builtin" });
    expect(problems).toEqual([
      expect.objectContaining({ file: `uid=nomail,ou=others,${SUFFIX}`, field: "{mail}", rule: "required" }),
    ]);
  });

  it("values with invisible or direction-changing characters: refused in a login, warned in a name", async () => {
    const config = ldapConfig({
      baseDn: SUFFIX,
      userFilter: "(uid=spoofed)",
      attributes: {
        email: "{mail}",
        id: "{uid}",
        displayName: "{cn}",
        identity: "external",
        authenticationId: "{employeeNumber}",
      },
    });
    const { state, problems } = await readLdapDesired({ config, env, defaultIdentity: "builtin" });
    const file = `uid=spoofed,ou=others,${SUFFIX}`;
    expect(problems).toEqual([
      expect.objectContaining({ file, field: "{cn}", rule: "invisible-character", severity: "warning" }),
      expect.objectContaining({
        file,
        field: "{employeeNumber}",
        rule: "invisible-character",
        severity: "error",
        message: expect.stringMatching(/^"sub<U\+200B>1" holds U\+200B \(zero width space\)/),
      }),
    ]);
    expect(state.users).toEqual([]);
  });

  it("a search that finds nobody is an error, never an empty desired state", async () => {
    const config = ldapConfig({ userFilter: "(uid=nobody-here)" });
    const { problems } = await readLdapDesired({ config, env, defaultIdentity: "builtin" });
    expect(problems.map((p) => p.rule)).toEqual(["empty-directory"]);
  });

  it("a wrong bind password is an InputError with the server's message and without the password", async () => {
    const wrong = "wrong-password-91x";
    const err = await readLdapDesired({
      config: ldapConfig(),
      env: { LDAP_PW: wrong },
      defaultIdentity: "builtin",
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/bind as cn=reader.*invalid credentials \(LDAP result 49\)/i);
    expect((err as Error).message).not.toContain(wrong);
  });

  it("reads the bind password from source.ldap.passwordFile (a trailing newline dropped)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "usersync-ldap-pw-"));
    try {
      const file = join(dir, "pw");
      await writeFile(file, `${READER_PASSWORD}\n`, { mode: 0o600 });
      const config = ldapConfig({ passwordFile: file, userFilter: "(uid=p00000*)" });
      const { state } = await readLdapDesired({ config, env: {}, defaultIdentity: "builtin" });
      expect(state.users).toHaveLength(10);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("StartTLS against a server without TLS is an InputError, not a plain-text bind", async () => {
    const err = await readLdapDesired({
      config: ldapConfig({ startTls: true }),
      env,
      defaultIdentity: "builtin",
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/StartTLS failed/);
  });

  it("a missing password stops before connecting, and says where to put it", async () => {
    const err = await readLdapDesired({ config: ldapConfig(), env: {}, defaultIdentity: "builtin" }).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).toContain("LDAP_PW");
  });
});

describe.skipIf(!available)("LDAP source against a slapd whose size limit also caps paged searches", () => {
  it("a read cut at the size limit is an InputError, never a short desired state", async () => {
    const strict = await startSlapd(directoryLdif(600), { strictSizeLimit: true });
    try {
      const config = { ...ldapConfig(), url: strict.url };
      const err = await readLdapDesired({ config, env, defaultIdentity: "builtin" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toMatch(/size limit exceeded \(LDAP result 4\)/);
    } finally {
      await strict.remove();
    }
  });
});

describe("LDAP templates", () => {
  it("escapes DNs put into a filter", () => {
    expect(escapeFilterValue("cn=a*(b)\\c")).toBe("cn=a\\2a\\28b\\29\\5cc");
  });

  it("evaluates templates case-insensitively; a missing attribute gives no value", () => {
    const values = new Map([
      ["uid", ["jdoe"]],
      ["mail", ["J@x.org", "other@x.org"]],
    ]);
    expect(evaluate("{UID}@example.com", values)).toBe("jdoe@example.com");
    expect(evaluate("{mail}", values)).toBe("J@x.org");
    expect(evaluate("{sn}", values)).toBeUndefined();
    expect(evaluate("external", values)).toBe("external");
  });

  it("writes AD's objectGUID in its text form", () => {
    const guid = Buffer.from("78563412bc9af0de0123456789abcdef", "hex");
    expect(binaryText("objectGUID", guid)).toBe("12345678-9abc-def0-0123-456789abcdef");
  });
});
