/**
 * The campaign's pure parts (docs/audits.md, "The campaign"): who is assigned each row, how
 * decisions merge, what a revocation becomes (a plan step, a change of the file, or pending), and
 * the diff a person opens as a pull request. Expectations follow the documented rules.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { assignRows } from "../../src/review/campaign/assign.js";
import { coverage, mergeDecisions } from "../../src/review/campaign/decisions.js";
import { remedies } from "../../src/review/campaign/remedies.js";
import { renderRemovalsCsv } from "../../src/report/campaign/removals.js";
import { remediationPlan } from "../../src/review/campaign/remediation-plan.js";
import { patchCsv, patchYaml } from "../../src/review/campaign/source-patch.js";
import { unifiedDiff } from "../../src/review/campaign/unified-diff.js";
import { campaignRows } from "../../src/review/campaign/rows.js";
import type { Campaign, CampaignReason, CampaignRow, Decision } from "../../src/review/campaign/types.js";
import { toSnapshot } from "../../src/review/to-snapshot.js";
import { aReview } from "../report/review-fixture.js";
import { defaultPolicy } from "../../src/plan/policy.js";
import type { ActualState } from "../../src/service/types.js";
import type { DesiredState } from "../../src/desired/types.js";

const viaGroup = (
  chain: string[],
  ws: string,
  given: CampaignReason["given"] = "source",
): CampaignReason => ({
  kind: "group",
  holder: `userGroup/${chain[chain.length - 1]}`,
  groupChain: chain,
  grantedOn: ws,
  permissions: ["VIEW"],
  given,
  text: `group ${chain.join(" -> ")}`,
});
const direct = (id: string, ws: string, permissions = ["EXPORT", "VIEW"]): CampaignReason => ({
  kind: "direct",
  holder: `user/${id}`,
  groupChain: [],
  grantedOn: ws,
  permissions,
  given: "hand-made",
  text: "direct grant",
});
const row = (id: string, ws: string, reasons: CampaignReason[], permissions = ["VIEW"]): CampaignRow => ({
  rowId: `${id}|${ws}`,
  person: id,
  userId: id,
  email: `${id}@x.example`,
  workspace: ws,
  level: "workspace",
  permissions: permissions as CampaignRow["permissions"],
  effective: permissions as CampaignRow["permissions"],
  reasons,
  given: "source",
  status: "active",
  groups: reasons.flatMap((r) => r.groupChain.slice(0, 1)),
});

const ROWS = [
  row("ann", "sales", [viaGroup(["sales-emea", "sales"], "sales")]),
  row("bob", "finance", [direct("bob", "finance")], ["EXPORT", "VIEW"]),
  row("cid", "ops", [viaGroup(["ops"], "ops")]),
  row("dan", "lab", [viaGroup(["lab"], "lab")]),
];

const rules = {
  workspaces: { "sales*": ["sales-lead@x.example"] },
  groups: { "sales-emea": ["emea@x.example"], ops: ["ops@x.example"] },
  organizations: { acme: ["it@x.example"] },
};

describe("assignment", () => {
  it("gives a row its workspace's and its groups' reviewers, else the organization's, else default; lists the rest", () => {
    const a = assignRows(ROWS, rules, "acme");
    expect(a.rows.map((r) => [r.rowId, r.reviewers, r.assignedBy])).toEqual([
      ["ann|sales", ["emea@x.example", "sales-lead@x.example"], "workspace"],
      ["bob|finance", ["it@x.example"], "organization"],
      ["cid|ops", ["ops@x.example"], "group"],
      ["dan|lab", ["it@x.example"], "organization"],
    ]);
    const none = assignRows(ROWS, { ...rules, organizations: {} }, "acme");
    expect(none.unassigned).toEqual(["bob|finance", "dan|lab"]);
    expect(
      assignRows(ROWS, { ...rules, organizations: {}, default: ["d@x.example"] }, "acme").unassigned,
    ).toEqual([]);
  });

  it("takes every row of a snapshot under its rowId", () => {
    const snapshot = toSnapshot(aReview());
    const rows = campaignRows(snapshot);
    expect(rows.map((r) => r.rowId)).toEqual(
      snapshot.rows.filter((r) => r.removedAt === undefined).map((r) => r.rowId),
    );
    expect(rows.every((r) => r.reasons.length > 0)).toBe(true);
  });
});

const campaign = (): Campaign => {
  const { rows, unassigned } = assignRows(ROWS, rules, "acme");
  return {
    formatVersion: 1,
    kind: "usersync-access-campaign",
    id: "acme/2027-01-01T00:00:00.000Z",
    openedAt: "2027-01-01T00:00:00.000Z",
    snapshot: {
      organization: "acme",
      baseUrl: "",
      generatedAt: "2027-01-01T00:00:00.000Z",
      digest: "sha256:x",
      file: "q.json",
      sha256: "sha256:y",
    },
    reviewers: [],
    rows,
    unassigned,
  };
};
const d = (
  rowId: string,
  decision: Decision["decision"],
  reviewer: string,
  at = "2027-01-02T00:00:00.000Z",
  permissions?: string[],
): Decision => ({
  rowId,
  decision,
  reviewer,
  decidedAt: at,
  ...(permissions ? { permissions } : {}),
});

describe("merging decisions", () => {
  it("refuses an unknown row, a reviewer not assigned, a change that adds, and two reviewers in conflict", () => {
    const c = campaign();
    const m = mergeDecisions(
      c,
      [],
      [
        {
          file: "a.json",
          decisions: [
            d("zed|sales", "keep", "emea@x.example"),
            d("cid|ops", "keep", "emea@x.example"),
            d("bob|finance", "change", "it@x.example", undefined, ["MANAGE"]),
            d("ann|sales", "keep", "emea@x.example"),
          ],
        },
        { file: "b.csv", decisions: [d("ann|sales", "revoke", "sales-lead@x.example")] },
      ],
    );
    expect(m.problems.map((p) => [p.file, p.rule])).toEqual([
      ["a.json", "unknown-row"],
      ["a.json", "not-assigned"],
      ["a.json", "bad-change"],
      ["b.csv", "conflict"],
    ]);
  });

  it("lets a reviewer decide again (the later decision wins) and counts coverage per reviewer", () => {
    const c = campaign();
    const first = mergeDecisions(c, [], [{ file: "a", decisions: [d("cid|ops", "keep", "ops@x.example")] }]);
    const again = mergeDecisions(c, first.decisions, [
      { file: "b", decisions: [d("cid|ops", "revoke", "ops@x.example", "2027-01-03T00:00:00.000Z")] },
    ]);
    expect(again.problems).toEqual([]);
    expect(again.replaced).toBe(1);
    expect(again.decisions).toEqual([expect.objectContaining({ rowId: "cid|ops", decision: "revoke" })]);
    const cov = coverage(c, again.decisions);
    expect([cov.decided, cov.rows]).toEqual([1, 4]);
    expect(cov.reviewers).toEqual([]); // the hand-made campaign lists no reviewers; rows carry them
  });
});

describe("remediation", () => {
  const desired = {
    users: [
      {
        email: "ann@x.example",
        id: "ann",
        groups: ["sales-emea"],
        state: "present",
        source: { file: "u.yaml", line: 1 },
      },
      { email: "cid@x.example", id: "cid", state: "present", source: { file: "u.yaml", line: 5 } },
    ],
    groups: [],
    files: ["u.yaml"],
  } as unknown as DesiredState;
  const decisions = [
    d("ann|sales", "revoke", "emea@x.example"),
    d("bob|finance", "change", "it@x.example", undefined, ["VIEW"]),
    d("cid|ops", "revoke", "ops@x.example"),
  ];

  it("sends what the file gives to the source and the rest to the plan", () => {
    const r = remedies(campaign().rows, decisions, { kind: "file", desired });
    expect(r.map((x) => x.actions.map((a) => [a.via, "kind" in a ? a.kind : ""]))).toEqual([
      [["source", "leaveGroup"]], // ann is in sales-emea by the file
      [["plan", "narrowGrant"]], // bob's direct grant was made by hand
      [["plan", "leaveGroup"]], // cid's entry keeps the groups it has: ops is not the file's
    ]);
  });

  it("for a directory source, lists what its owner must change, one line per directory group and member", () => {
    // The group rule maps the directory's group to the user group: its source names the former.
    const entra = "Entra ID group Sales EMEA (0a000000-0000-4000-8000-00000000000a)";
    const fed = {
      ...desired,
      groups: [{ id: "sales-emea", source: { file: entra, line: 0 } }],
    } as unknown as DesiredState;
    const r = remedies(campaign().rows, decisions, { kind: "directory", desired: fed });
    expect(r[0]?.actions[0]?.text).toBe(`ann@x.example leaves group sales-emea (in the directory: ${entra})`);
    expect(renderRemovalsCsv(r).split("\r\n")).toEqual([
      "action,directory_group,group,workspace,keep,member_email,member_id,row_id,decision,reviewer",
      `removeFromGroup,${entra},sales-emea,,,ann@x.example,ann,ann|sales,revoke,emea@x.example`,
      "",
    ]);
  });

  it("makes a plan of fingerprinted steps, held back over permissions.maxRemovals", () => {
    const actual = {
      idpUsers: [],
      mappings: [
        { id: "cid", groups: ["ops", "staff"] },
        { id: "bob", groups: [] },
      ],
      groups: [],
      permissions: {
        workspaces: [],
        assignments: [
          {
            workspace: "finance",
            assignee: { type: "user", id: "bob" },
            permissions: ["EXPORT", "VIEW"],
            hierarchy: [],
          },
        ],
      },
    } as unknown as ActualState;
    const r = remedies(campaign().rows, decisions, { kind: "file", desired });
    const policy = {
      ...defaultPolicy,
      permissions: { ...defaultPolicy.permissions, maxRemovals: { count: 5 } },
    };
    const plan = remediationPlan({ remedies: r, actual, profile: "v1", policy, rows: 4, inputs: {} });
    expect(plan.steps.map((s) => [s.id, s.status])).toEqual([
      ["updateMapping:cid", "planned"],
      ["revokeWorkspacePermissions:finance", "planned"],
    ]);
    expect(plan.steps[0]).toMatchObject({ after: { groups: ["staff"] }, touches: ["mapping:cid"] });
    expect(plan.steps[1]).toMatchObject({ changes: [{ after: { permissions: ["VIEW"], hierarchy: [] } }] });
    expect(Object.keys(plan.objects).sort()).toEqual(["mapping:cid", "permission:finance/user/bob"]);
    const tight = { ...policy, permissions: { ...policy.permissions, maxRemovals: { count: 1 } } };
    expect(
      remediationPlan({ remedies: r, actual, profile: "v1", policy: tight, rows: 4, inputs: {} }).counts
        .heldBack,
    ).toBe(2);
  });
});

describe("the source's change", () => {
  const yaml = `version: 1
users:
  - email: ann@x.example   # keep this comment
    groups: [sales-emea, staff]
  - email: bob@x.example
    groups:
      - finance
    workspaces:
      finance: [VIEW, EXPORT]
      lab: [VIEW]
`;
  it("edits only the revoked entries of a YAML file, and the diff applies with patch", () => {
    const r = patchYaml(yaml, [
      { email: "ANN@x.example", lever: { kind: "leaveGroup", group: "sales-emea" } },
      { email: "bob@x.example", lever: { kind: "leaveGroup", group: "finance" } },
      {
        email: "bob@x.example",
        lever: { kind: "narrowGrant", workspace: "finance", keep: ["VIEW"], hierarchy: false },
      },
      {
        email: "bob@x.example",
        lever: { kind: "narrowGrant", workspace: "lab", keep: [], hierarchy: false },
      },
      { email: "eve@x.example", lever: { kind: "leaveGroup", group: "x" } },
    ]);
    expect(r.text).toBe(`version: 1
users:
  - email: ann@x.example   # keep this comment
    groups: [staff]
  - email: bob@x.example
    groups: []
    workspaces:
      finance: [VIEW]
`);
    expect(r.notMade.map((n) => n.why)).toEqual(["the file does not list the person"]);
    const dir = mkdtempSync(join(tmpdir(), "usersync-patch-"));
    writeFileSync(join(dir, "users.yaml"), yaml);
    writeFileSync(join(dir, "p.diff"), unifiedDiff("users.yaml", yaml, r.text));
    execFileSync("patch", ["-p1", "-i", "p.diff"], { cwd: dir, stdio: "ignore" });
    expect(readFileSync(join(dir, "users.yaml"), "utf8")).toBe(r.text);
  });

  it("edits the groups cell of a users CSV", () => {
    const csv = "email,groups\r\nann@x.example,sales-emea;staff\r\nbob@x.example,finance\r\n";
    const r = patchCsv(csv, [{ email: "ann@x.example", lever: { kind: "leaveGroup", group: "sales-emea" } }]);
    expect(r.text).toBe("email,groups\r\nann@x.example,staff\r\nbob@x.example,finance\r\n");
  });
});

describe("the review section of the config", () => {
  it("reads reviewers as lists of lower-case e-mails and refuses what is not one", async () => {
    const { loadConfig } = await import("../../src/config/index.js");
    const dir = mkdtempSync(join(tmpdir(), "usersync-review-config-"));
    const file = join(dir, "usersync.yaml");
    writeFileSync(
      file,
      "review:\n  reviewers:\n    workspaces: { sales: Lead@X.example }\n    default: [it@x.example]\n  due: 14d\n",
    );
    const config = await loadConfig({ file, env: {}, cwd: dir });
    expect(config.review).toEqual({
      reviewers: {
        workspaces: { sales: ["lead@x.example"] },
        groups: {},
        organizations: {},
        default: ["it@x.example"],
      },
      due: "14d",
    });
    writeFileSync(file, "review:\n  reviewers:\n    groups: { finance: finance-lead }\n");
    await expect(loadConfig({ file, env: {}, cwd: dir })).rejects.toThrow(
      /review\.reviewers\.groups\.finance.*e-mail/s,
    );
    const fromEnv = await loadConfig({ env: { USERSYNC_REVIEW_DUE: "2027-01-15" }, cwd: "/nonexistent-dir" });
    expect(fromEnv.review.due).toBe("2027-01-15");
  });
});
