/** Permission changes in every rendering: the summary line, the objects, the guard, held-back removals, the apply words. */
import { describe, expect, test } from "vitest";
import { renderPlan, renderPlanSummaryLine } from "../../src/report/index.js";
import { stepInWords } from "../../src/report/apply-summary.js";
import { objectInWords } from "../../src/report/describe.js";
import { summarizePlan } from "../../src/plan/index.js";
import { permissionPlan } from "./sample-plan.js";

const text = (maxRemovals?: number) =>
  renderPlan(permissionPlan(maxRemovals === undefined ? {} : { maxRemovals }), {
    format: "text",
    dryRun: true,
    color: false,
  });

describe("a plan that changes permissions", () => {
  test("its text summary says who gains and loses what, where", () => {
    const out = text();
    expect(out).toContain(
      "  Permissions       1 group gains SELF_CREATE_TOKEN on the organization, 1 group loses ANALYZE and EXPORT on finance, 1 user gains EXPORT on sales-emea, 1 group gains EXPORT on sales-emea and VIEW on sales-emea and below\n",
    );
    expect(out).toContain(
      "  Permission guard  1 removal, 5 allowed (2 assignments managed): within the limit\n",
    );
    expect(out).toContain(
      [
        "  # workspace sales-emea",
        "    + permissions sales-emea  (1 group and 1 user gain permissions the desired state lists)",
        "        user jane: (none) → EXPORT",
        "        group sales: VIEW → EXPORT, VIEW; hierarchy: VIEW",
      ].join("\n"),
    );
    expect(out).toContain(
      "    - permissions finance  (1 group loses permissions: the desired state does not list them)",
    );
    expect(out.trimEnd().split("\n").pop()).toBe(
      "Plan: changes for 1 person (1 to change) and 4 permission changes (3 to grant, 1 to revoke).",
    );
  });

  test("removals over the limit are held back, with the flag that allows them", () => {
    const out = text(0);
    expect(out).toContain(
      "every removal is held back. Allow them for one run with --allow-permission-removals 1, or raise permissions.maxRemovals",
    );
    expect(out).toContain(
      "    ! - permissions finance  (held back: over permissions.maxRemovals (use --allow-permission-removals))",
    );
    expect(renderPlanSummaryLine(permissionPlan({ maxRemovals: 0 }))).toMatch(
      / 1 permission removal held back\.$/,
    );
    // A held-back removal is not a held-back deletion.
    expect(summarizePlan(permissionPlan({ maxRemovals: 0 })).deleteGuard.heldBack).toBe(false);
  });

  test("markdown and JSON carry the same summary", () => {
    const md = renderPlan(permissionPlan(), { format: "markdown", dryRun: true, color: false });
    expect(md).toContain("- **Permissions:** 1 group gains SELF_CREATE_TOKEN on the organization");
    expect(md).toContain(
      "| + | workspace sales-emea | permissions | user jane: (none) → EXPORT; group sales: VIEW → EXPORT, VIEW; hierarchy: VIEW |",
    );
    const json = JSON.parse(renderPlan(permissionPlan(), { format: "json", dryRun: true, color: false })) as {
      formatVersion: number;
      summary: { permissions: { grant: number; revoke: number } };
      permissionGuard: unknown;
    };
    expect(json.formatVersion).toBe(2);
    expect(json.summary.permissions).toMatchObject({ grant: 3, revoke: 1 });
    expect(json.permissionGuard).toEqual({ limit: 5, wanted: 1, managedAssignments: 2 });
  });

  test("step ids and object keys in words", () => {
    expect(stepInWords("grantWorkspacePermissions:sales-emea")).toBe("grant permissions on sales-emea");
    expect(stepInWords("revokeOrganizationPermissions:organization")).toBe(
      "revoke permissions of the organization",
    );
    expect(objectInWords("permission:sales-emea/userGroup/sales")).toBe(
      "permissions of group sales on sales-emea",
    );
    expect(objectInWords("orgPermission:user/jane")).toBe("organization permissions of user jane");
  });
});
