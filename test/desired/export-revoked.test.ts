/**
 * An export tells the truth about logins and filters (issue 39): a person whose built-in login was
 * revoked is written as such (state: absent), never as an SSO user still in their groups; hand-made
 * filters are listed only when asked, as a comment marked as not usersync's, and the file reads
 * back to a valid desired state.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readDesiredState, renderExport } from "../../src/desired/index.js";
import { loginOf } from "../../src/desired/export-logins.js";
import type { ActualState } from "../../src/service/types.js";
import { managedFilterId, MANAGED_TAG } from "../../src/data-filters.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-export-revoked-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sales = { type: "userGroup" as const, id: "sales" };
const actual: ActualState = {
  idpUsers: [{ email: "jane@example.com", displayName: "Jane", authenticationId: "auth-jane" }],
  mappings: [
    { id: "jane", authenticationId: "auth-jane", email: "jane@example.com", groups: ["sales"] },
    // Their built-in login was deleted (deletions: revoke): the mapping and its groups stay.
    { id: "leaver", authenticationId: "auth-leaver", email: "leaver@example.com", groups: ["sales"] },
  ],
  groups: [{ id: "sales", parents: [] }],
  dataFilters: {
    workspaces: ["ws-sales"],
    filters: [
      {
        id: managedFilterId("ws-sales", sales),
        workspace: "ws-sales",
        assignee: sales,
        maql: '{label/region} IN ("EMEA")',
        tags: [MANAGED_TAG],
        managed: true,
      },
      {
        id: "by-hand",
        title: 'All "rows" # not ours',
        workspace: "ws-sales",
        assignee: { type: "user", id: "jane" },
        maql: '{label/region} = "ALL"\n# newline',
        tags: [],
        managed: false,
      },
    ],
  },
};

describe("logins", () => {
  test("the rule: a missing built-in login is revoked where the organization signs in with it, external where it uses SSO", () => {
    const org = (signIn: "builtin" | "oidc" | undefined, builtinIdp = true) => ({ builtinIdp, signIn });
    expect(
      loginOf(
        { authenticationId: "a" },
        { email: "a@x", displayName: "", authenticationId: "a" },
        org("oidc"),
      ),
    ).toBe("active");
    expect(loginOf({ authenticationId: "a" }, undefined, org("builtin"))).toBe("revoked");
    expect(loginOf({}, undefined, org("oidc"))).toBe("revoked");
    expect(loginOf({ authenticationId: "a" }, undefined, org("oidc"))).toBe("external");
    expect(loginOf({ authenticationId: "a" }, undefined, org("builtin", false))).toBe("external");
    // The service did not say (legacy): kept external, as before.
    expect(loginOf({ authenticationId: "a" }, undefined, org(undefined))).toBe("external");
  });

  test("YAML: the revoked person is state: absent, with no groups; it reads back as a valid file", async () => {
    const out = renderExport(actual, { format: "yaml", profile: "v1", signIn: "builtin" });
    expect(out.users).toContain(
      "- email: leaver@example.com\n    id: leaver\n    identity: builtin\n    state: absent\n",
    );
    expect(out.users).not.toMatch(/identity: external/);
    expect(out.warnings).toContainEqual(
      expect.stringMatching(
        /^1 user\(s\) whose built-in login was revoked are exported as such: state: absent/,
      ),
    );
    const file = join(dir, "org.yaml");
    await writeFile(file, out.users);
    const read = await readDesiredState({ file });
    expect(read.problems).toEqual([]);
    const leaver = read.state.users.find((u) => u.id === "leaver");
    expect(leaver).toMatchObject({ state: "absent", identity: "builtin" });
    expect(leaver?.groups).toBeUndefined();
  });

  test("CSV: a state column only when someone is revoked", async () => {
    const out = renderExport(actual, { format: "csv", profile: "v1", signIn: "builtin" });
    const [header, , leaver] = out.users.trimEnd().split(/\r?\n/);
    expect(header).toBe("email,id,displayName,firstname,lastname,groups,identity,authenticationId,state");
    expect(leaver).toBe("leaver@example.com,leaver,,,,,builtin,,absent");
    const sso = renderExport(actual, { format: "csv", profile: "v1", signIn: "oidc" });
    expect(sso.users.split("\n")[0]).not.toContain("state");
    expect(sso.users).toContain("leaver@example.com,leaver,,,,sales,external,auth-leaver");
  });
});

describe("hand-made filters", () => {
  test("left out unless asked; asked, listed in a trailing comment marked as not usersync's, never as desired state", async () => {
    const plain = renderExport(actual, { format: "yaml", profile: "v1", signIn: "builtin" });
    expect(plain.users).not.toContain("by-hand");
    const out = renderExport(actual, {
      format: "yaml",
      profile: "v1",
      signIn: "builtin",
      handMadeFilters: true,
    });
    const comment = out.users.slice(out.users.indexOf("# Hand-made data filters"));
    expect(comment).toBe(
      [
        "# Hand-made data filters: 1, made outside usersync (no usersync tag or id). Not part",
        "# of the desired state above: usersync never changes or deletes them, and the service applies",
        "# them together with usersync's. Listed by usersync export --hand-made-filters, for the record.",
        '#   workspace "ws-sales", user "jane": id "by-hand", title "All \\"rows\\" # not ours", MAQL "{label/region} = \\"ALL\\"\\n# newline"',
        "",
      ].join("\n"),
    );
    // usersync's own filter is still desired state; the hand-made one is not.
    const file = join(dir, "with-hand-made.yaml");
    await writeFile(file, out.users);
    const read = await readDesiredState({ file });
    expect(read.problems).toEqual([]);
    expect(read.state.groups.find((g) => g.id === "sales")?.dataFilters).toHaveLength(1);
    expect(read.state.users.find((u) => u.id === "jane")?.dataFilters).toBeUndefined();
  });

  test("usersync's filters outside the kept workspaces are not written as desired state", () => {
    const out = renderExport(actual, { format: "yaml", profile: "v1", filterScope: () => false });
    expect(out.users).not.toContain("dataFilters");
  });
});
