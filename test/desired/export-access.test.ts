/** `export` writes permissions back: read again, the file asks for exactly the grants the organization has. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readDesiredState, renderExport } from "../../src/desired/index.js";
import { plan } from "../../src/plan/index.js";
import type { ActualState } from "../../src/service/types.js";
import { aPolicy } from "../plan/builders.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-export-access-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const g = (id: string) => ({ type: "userGroup" as const, id });
const actual: ActualState = {
  idpUsers: [{ email: "jane@x.com", displayName: "Jane", authenticationId: "a-jane" }],
  mappings: [
    { id: "jane", authenticationId: "a-jane", groups: ["sales"] },
    { id: "joe", authenticationId: "ext-joe", email: "joe@x.com", groups: [] },
  ],
  groups: [
    { id: "sales", parents: [] },
    { id: "admins", parents: [] },
  ],
  permissions: {
    workspaces: [{ id: "sales-emea" }, { id: "finance" }],
    assignments: [
      { workspace: "finance", assignee: g("sales"), permissions: ["ANALYZE"], hierarchy: ["VIEW"] },
      {
        workspace: "sales-emea",
        assignee: { type: "user", id: "jane" },
        permissions: ["EXPORT"],
        hierarchy: [],
      },
      { workspace: "sales-emea", assignee: g("sales"), permissions: ["EXPORT", "VIEW"], hierarchy: [] },
    ],
    organization: [{ assignee: g("admins"), permissions: ["MANAGE", "SELF_CREATE_TOKEN"] }],
  },
};
const policy = aPolicy({
  mode: "full",
  permissions: { workspaces: ["*"], maxRemovals: { percent: 10 }, allowOrganizationManage: false },
});

describe("export with permissions", () => {
  test.each(["yaml", "csv"] as const)("%s: read back, it plans no permission change", async (format) => {
    const out = renderExport(actual, { format, profile: "v1" });
    expect(out.warnings).toContain(
      "organization MANAGE of 1 user(s) or group(s) is not exported: permissions.organization.allowManage is off (a file granting it would be refused)",
    );
    const file = join(dir, `org.${format}`);
    await writeFile(file, out.users);
    const groupsFile = out.groups !== undefined && format === "csv" ? join(dir, "org-groups.csv") : undefined;
    if (groupsFile) await writeFile(groupsFile, out.groups!);
    const { state, problems } = await readDesiredState({ file, ...(groupsFile ? { groupsFile } : {}) });
    expect(problems).toEqual([]);
    expect(state.groups.find((x) => x.id === "sales")!.workspaces).toEqual([
      { workspace: "finance", permissions: ["ANALYZE"], hierarchy: ["VIEW"] },
      { workspace: "sales-emea", permissions: ["EXPORT", "VIEW"], hierarchy: [] },
    ]);
    expect(state.groups.find((x) => x.id === "admins")!.organization).toEqual(["SELF_CREATE_TOKEN"]);
    expect(state.users.find((u) => u.id === "jane")!.workspaces).toEqual([
      { workspace: "sales-emea", permissions: ["EXPORT"], hierarchy: [] },
    ]);
    const p = plan({ desired: state, actual, policy, profile: "v1" });
    expect(p.steps.filter((s) => s.kind.endsWith("Permissions"))).toEqual([]);
  });

  test("the YAML form: a list, or permissions and hierarchy; CSV cells as documented", () => {
    const yaml = renderExport(actual, { format: "yaml", profile: "v1", allowOrganizationManage: true }).users;
    expect(yaml).toContain(
      "    workspaces:\n      finance:\n        permissions:\n          - ANALYZE\n        hierarchy:\n          - VIEW\n",
    );
    expect(yaml).toContain("    organization:\n      - MANAGE\n      - SELF_CREATE_TOKEN\n");
    const csv = renderExport(actual, { format: "csv", profile: "v1" });
    expect(csv.groups).toContain("sales,,,finance=ANALYZE; finance/*=VIEW; sales-emea=EXPORT+VIEW,\r\n");
    expect(csv.users.split("\r\n")[0]).toBe(
      "email,id,displayName,firstname,lastname,groups,identity,authenticationId,workspaces,organization",
    );
  });

  test("without listed permissions the export is as it always was", () => {
    const { permissions: _p, ...plain } = actual;
    const csv = renderExport(plain, { format: "csv", profile: "v1" });
    expect(csv.groups!.split("\r\n")[0]).toBe("id,name,parents");
    expect(renderExport(plain, { format: "yaml", profile: "v1" }).users).not.toContain("workspaces");
  });
});
