/** Text and Markdown renderings of a small plan, colour handling, summary line. */
import { describe, expect, test } from "vitest";
import { renderPlan, renderPlanSummaryLine } from "../../src/report/index.js";
import { serializePlan } from "../../src/plan/index.js";
import { samplePlan } from "./sample-plan.js";

const ESC = "\u001b[";

describe("text", () => {
  test("terraform-like, grouped by object, with notices, estimate and summary", () => {
    expect(renderPlan(samplePlan(), { format: "text", dryRun: true, color: false })).toMatchInlineSnapshot(`
      "DRY RUN — nothing will be changed
      Mode full · profile v1 · membership exact · deletions remove

        # group analysts
          + group analysts  (declared group is missing)
              name: "Analysts"
              parents: ["staff"]

        # user bob
          ~ credentials bob@example.com  (display name differs)
              displayName: "Bob" → "Bob B."
          ~ mapping bob  (groups, firstname differ)
              groups: ["staff"] → ["analysts"]
              firstname: (none) → "Bob"

        # user jane
          + credentials jane@example.com  (no credentials for jane@example.com)
              displayName: "Jane Doe"
              password: (none)
          + mapping jane  (user 'jane' is not mapped to the organization)
              authenticationId: (from createCredentials:jane@example.com)
              email: "jane@example.com"
              groups: ["analysts"]

        # user old
          - credentials old@example.com  (not in the desired state (mode full))
          - mapping old  (not in the desired state (mode full))

        # user pat
          + credentials pat@example.com  (no credentials for pat@example.com)
              displayName: "pat"
              password: (set)
          + mapping pat  (user 'pat' is not mapped to the organization)
              authenticationId: (from createCredentials:pat@example.com)
              email: "pat@example.com"
              groups: []

      Unmanaged (outside policy.scope) (2):
          mapping:admin: outside policy.scope; left alone
          mapping:partner: outside policy.scope; left alone

      Unlinked credentials (1):
          idp:stray@other.com: outside policy.scope; left alone

      Deletion guard: 1 user deletion wanted, 5 allowed (2 managed users): within the limit.
      Estimate: 9 requests, about 0.9 s at the configured limits.
      Plan: 5 to create, 2 to update, 2 to delete, 0 held back.
      "
    `);
  });
  test("held-back deletions are marked `!`", () => {
    const text = renderPlan(samplePlan({ maxDeletes: 0 }), { format: "text", dryRun: false, color: false });
    expect(text).toContain(
      "    ! - credentials old@example.com  (held back: over policy.maxDeletes (use --allow-deletes))",
    );
    expect(text).not.toContain("DRY RUN");
    expect(text.trimEnd().split("\n").at(-1)).toBe(
      "Plan: 5 to create, 2 to update, 0 to delete, 2 held back.",
    );
  });
  test("colour only when asked for", () => {
    expect(renderPlan(samplePlan(), { format: "text", dryRun: true, color: false })).not.toContain(ESC);
    expect(renderPlan(samplePlan(), { format: "text", dryRun: true, color: true })).toContain(
      `${ESC}32m+${ESC}0m credentials`,
    );
    expect(renderPlan(samplePlan(), { format: "markdown", dryRun: true, color: true })).not.toContain(ESC);
  });
  test("no password value is ever rendered", () => {
    for (const format of ["text", "json", "markdown"] as const)
      expect(renderPlan(samplePlan(), { format, dryRun: true, color: false })).not.toContain("Secret-Pa55");
  });
});

test("markdown: heading, counts table, changes and notice tables", () => {
  expect(renderPlan(samplePlan(), { format: "markdown", dryRun: true, color: false })).toMatchInlineSnapshot(`
    "## usersync plan

    > **DRY RUN — nothing will be changed**

    Mode full · profile v1 · membership exact · deletions remove

    | create | update | delete | held back |
    |---:|---:|---:|---:|
    | 5 | 2 | 2 | 0 |

    **Plan: 5 to create, 2 to update, 2 to delete, 0 held back.** Estimate: 9 requests, about 0.9 s at the configured limits.

    Deletion guard: 1 user deletion wanted, 5 allowed (2 managed users): within the limit.

    ### Changes

    | | object | step | changes | reason |
    |---|---|---|---|---|
    | + | group analysts | \`createGroup\` | name: "Analysts"; parents: ["staff"] | declared group is missing |
    | ~ | user bob | \`updateCredentials\` | displayName: "Bob" → "Bob B." | display name differs |
    | ~ | user bob | \`updateMapping\` | groups: ["staff"] → ["analysts"]; firstname: (none) → "Bob" | groups, firstname differ |
    | + | user jane | \`createCredentials\` | displayName: "Jane Doe"; password: (none) | no credentials for jane@example.com |
    | + | user jane | \`createMapping\` | authenticationId: (from createCredentials:jane@example.com); email: "jane@example.com"; groups: ["analysts"] | user 'jane' is not mapped to the organization |
    | - | user old | \`deleteCredentials\` |  | not in the desired state (mode full) |
    | - | user old | \`deleteMapping\` |  | not in the desired state (mode full) |
    | + | user pat | \`createCredentials\` | displayName: "pat"; password: (set) | no credentials for pat@example.com |
    | + | user pat | \`createMapping\` | authenticationId: (from createCredentials:pat@example.com); email: "pat@example.com"; groups: [] | user 'pat' is not mapped to the organization |

    ### Unmanaged (outside policy.scope) (2)

    | object | note |
    |---|---|
    | mapping:admin | outside policy.scope; left alone |
    | mapping:partner | outside policy.scope; left alone |

    ### Unlinked credentials (1)

    | object | note |
    |---|---|
    | idp:stray@other.com | outside policy.scope; left alone |
    "
  `);
});

test("json is the serialised plan", () => {
  const p = samplePlan();
  expect(renderPlan(p, { format: "json", dryRun: true, color: false })).toBe(serializePlan(p));
});

test("summary line", () => {
  const p = samplePlan();
  expect(renderPlanSummaryLine(p)).toBe("Plan: 5 to create, 2 to update, 2 to delete, 0 held back.");
  expect(renderPlanSummaryLine({ ...p, steps: [] })).toBe(
    "No changes. The organization matches the desired state.",
  );
});

test("long lists are summarised: first 20 in text, <details> in Markdown", () => {
  const p = samplePlan();
  const notices = Array.from({ length: 25 }, (_, i) => ({
    kind: "unlinked" as const,
    target: `idp:u${i}@x.com`,
    message: "left alone",
  }));
  const long = { ...p, notices };
  const text = renderPlan(long, { format: "text", dryRun: false, color: false });
  expect(text).toContain("Unlinked credentials (25):");
  expect(text).toContain("idp:u19@x.com");
  expect(text).not.toContain("idp:u20@x.com");
  expect(text).toContain("    … and 5 more");
  const md = renderPlan(long, { format: "markdown", dryRun: false, color: false });
  expect(md).toContain("<details><summary>25 objects</summary>");
  expect(md).toContain("| idp:u24@x.com | left alone |");
});
