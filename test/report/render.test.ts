/** Text and Markdown renderings of a small plan, colour handling, summary line. */
import { describe, expect, test } from "vitest";
import { renderPlan, renderPlanSummaryLine } from "../../src/report/index.js";
import { plan, serializePlan } from "../../src/plan/index.js";
import {
  aDesiredState,
  aGroup,
  aMapping,
  aPolicy,
  aUser,
  anActualState,
  anIdpUser,
} from "../plan/builders.js";
import { stepInWords } from "../../src/report/apply-summary.js";
import { bulkPlan, samplePlan } from "./sample-plan.js";

const ESC = "\u001b[";

describe("text", () => {
  test("terraform-like, grouped by object, with notices, estimate and summary", () => {
    expect(renderPlan(samplePlan(), { format: "text", dryRun: true, color: false })).toMatchInlineSnapshot(`
      "DRY RUN — nothing will be changed
      Mode full · profile v1 · membership exact · deletions remove

      Summary:
        People          2 to add, 1 to change, 1 to remove
        Groups          1 to add
        Changed         display name (1 person), first name (1 person), groups (1 person)
        Membership      analysts +2, staff −1
        Deletion guard  1 person to revoke or remove, 5 allowed (2 people managed): within the limit
        Notices         Unmanaged (outside policy.scope): 2; Unlinked credentials: 1
        Estimate        9 requests, about 0.9 s at the configured limits
        Steps           5 to create, 2 to update, 2 to delete

        # group analysts
          + group analysts  (declared group is missing)
              name: "Analysts"
              parent groups: ["staff"]

        # user bob
          ~ credentials bob@example.com  (display name differs)
              display name: "Bob" → "Bob B."
          ~ mapping bob  (groups, first name differ)
              groups: ["staff"] → ["analysts"]
              first name: (none) → "Bob"

        # user jane
          + credentials jane@example.com  (no credentials for jane@example.com)
              display name: "Jane Doe"
              password: (none)
          + mapping jane  (user 'jane' is not mapped to the organization)
              login id: (the new login's id)
              email: "jane@example.com"
              groups: ["analysts"]

        # user old
          - credentials old@example.com  (not in the desired state (mode full))
          - mapping old  (not in the desired state (mode full))

        # user pat
          + credentials pat@example.com  (no credentials for pat@example.com)
              display name: "pat"
              password: (set)
          + mapping pat  (user 'pat' is not mapped to the organization)
              login id: (the new login's id)
              email: "pat@example.com"
              groups: []

      Unmanaged (outside policy.scope) (2):
          user admin: outside policy.scope; left alone
          user partner: outside policy.scope; left alone

      Unlinked credentials (1):
          login stray@other.com: outside policy.scope; left alone

      Plan: changes for 4 people (2 to add, 1 to change, 1 to remove) and 1 group (1 to add).
      "
    `);
  });
  test("held-back deletions are one section, by name, marked `!`: the reason is said once", () => {
    const text = renderPlan(samplePlan({ maxDeletes: 0 }), { format: "text", dryRun: false, color: false });
    expect(text).not.toContain("held back: over policy.maxDeletes");
    expect(text).toContain(
      "Held back by the deletion guard, 0 allowed: read them, then --allow-deletes 1 for one run (1):\n  ! user old: remove: credentials old@example.com",
    );
    expect(text).not.toContain("DRY RUN");
    expect(text).toContain("  Held back       1 person (see the deletion guard)\n");
    expect(text).toMatch(/^ {2}Deletion guard {2}.*every deletion is held back\. .*--allow-deletes 1/m);
    expect(text).toContain("  Steps           5 to create, 2 to update, 2 held back\n");
    expect(text.trimEnd().split("\n").at(-1)).toBe(
      "Plan: changes for 4 people (2 to add, 1 to change, 1 to remove) and 1 group (1 to add). 1 person held back.",
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

    **Plan: changes for 4 people (2 to add, 1 to change, 1 to remove) and 1 group (1 to add).**

    - **People:** 2 to add, 1 to change, 1 to remove
    - **Groups:** 1 to add
    - **Changed:** display name (1 person), first name (1 person), groups (1 person)
    - **Membership:** analysts +2, staff −1
    - **Deletion guard:** 1 person to revoke or remove, 5 allowed (2 people managed): within the limit
    - **Notices:** Unmanaged (outside policy.scope): 2; Unlinked credentials: 1
    - **Estimate:** 9 requests, about 0.9 s at the configured limits
    - **Steps:** 5 to create, 2 to update, 2 to delete

    ### Changes

    | | object | part | changes | reason |
    |---|---|---|---|---|
    | + | group analysts | group | name: "Analysts"; parent groups: ["staff"] | declared group is missing |
    | ~ | user bob | credentials | display name: "Bob" → "Bob B." | display name differs |
    | ~ | user bob | mapping | groups: ["staff"] → ["analysts"]; first name: (none) → "Bob" | groups, first name differ |
    | + | user jane | credentials | display name: "Jane Doe"; password: (none) | no credentials for jane@example.com |
    | + | user jane | mapping | login id: (the new login's id); email: "jane@example.com"; groups: ["analysts"] | user 'jane' is not mapped to the organization |
    | - | user old | credentials |  | not in the desired state (mode full) |
    | - | user old | mapping |  | not in the desired state (mode full) |
    | + | user pat | credentials | display name: "pat"; password: (set) | no credentials for pat@example.com |
    | + | user pat | mapping | login id: (the new login's id); email: "pat@example.com"; groups: [] | user 'pat' is not mapped to the organization |

    ### Unmanaged (outside policy.scope) (2)

    | object | note |
    |---|---|
    | user admin | outside policy.scope; left alone |
    | user partner | outside policy.scope; left alone |

    ### Unlinked credentials (1)

    | object | note |
    |---|---|
    | login stray@other.com | outside policy.scope; left alone |
    "
  `);
});

test("json is the serialised plan", () => {
  const p = samplePlan();
  expect(renderPlan(p, { format: "json", dryRun: true, color: false })).toBe(serializePlan(p));
});

test("summary line", () => {
  const p = samplePlan();
  expect(renderPlanSummaryLine(p)).toBe(
    "Plan: changes for 4 people (2 to add, 1 to change, 1 to remove) and 1 group (1 to add).",
  );
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
  expect(text).toContain("login u19@x.com");
  expect(text).not.toContain("login u20@x.com");
  expect(text).toContain("    … and 5 more");
  const md = renderPlan(long, { format: "markdown", dryRun: false, color: false });
  expect(md).toContain("<details><summary>25 objects</summary>");
  expect(md).toContain("| login u24@x.com | left alone |");
});

describe("summary first, detail levels, words for people", () => {
  /** `n` new people (two steps each) and `m` people whose groups change. */
  function bigPlan(n: number, m: number) {
    const users = [
      ...Array.from({ length: n }, (_, i) => aUser({ email: `n${i}@x.com`, id: `n${i}`, groups: ["g"] })),
      ...Array.from({ length: m }, (_, i) => aUser({ email: `c${i}@x.com`, id: `c${i}`, groups: ["g"] })),
    ];
    const actual = anActualState({
      idpUsers: Array.from({ length: m }, (_, i) => anIdpUser({ email: `c${i}@x.com` })),
      mappings: Array.from({ length: m }, (_, i) =>
        aMapping({ id: `c${i}`, authenticationId: `auth-c${i}@x.com`, email: `c${i}@x.com`, groups: ["h"] }),
      ),
      groups: [aGroup({ id: "g" }), aGroup({ id: "h" })],
      // One PUT per person to change (a service without bulk membership): 230 steps.
      bulkMembership: false,
    });
    return plan({ desired: aDesiredState(users), actual, policy: aPolicy(), profile: "v1" });
  }

  test("over 200 steps text is compact: a sample of each kind, then how many more", () => {
    const p = bigPlan(100, 30);
    expect(p.steps.length).toBe(230);
    const text = renderPlan(p, { format: "text", dryRun: false, color: false });
    expect(text.split("\n").slice(2, 7)).toEqual([
      "Summary:",
      "  People      100 to add, 30 to change",
      "  Changed     groups (30 people)",
      "  Membership  g +130, h −30",
      "  Estimate    230 requests, about 23 s at the configured limits",
    ]);
    expect(text).toContain("100 people to add:\n");
    expect(text).toContain("  … and 95 more people to add\n");
    expect(text).toContain("30 people to change:\n");
    expect(text).toContain("  … and 25 more people to change\n");
    expect(text.match(/^ {2}# user /gm)).toHaveLength(10);
    const full = renderPlan(p, { format: "text", dryRun: false, color: false, detail: "full" });
    expect(full.match(/^ {2}# user /gm)).toHaveLength(130);
    expect(full.indexOf("Summary:")).toBeLessThan(full.indexOf("# user"));
    const summary = renderPlan(p, { format: "text", dryRun: false, color: false, detail: "summary" });
    expect(summary).not.toContain("# user");
    expect(summary).toContain("Changes not shown (--detail summary)");
    // At 200 steps or fewer the default is full.
    expect(renderPlan(bigPlan(100, 0), { format: "text", dryRun: false, color: false })).not.toContain(
      "… and",
    );
  });

  test("no step ids, camelCase field names or zero counts in text and Markdown", () => {
    for (const p of [samplePlan(), samplePlan({ maxDeletes: 0 })])
      for (const format of ["text", "markdown"] as const) {
        const out = renderPlan(p, { format, dryRun: false, color: false });
        expect(out).not.toMatch(
          /(create|update|delete)(Credentials|Mapping|Group)|heldBack|authenticationId/,
        );
        expect(out).not.toMatch(/displayName|firstname|fromStep|\b0 (held back|to \w+)/);
        expect(out).toContain("(the new login's id)");
      }
  });

  test("the summary opens Markdown, before the changes table", () => {
    const md = renderPlan(samplePlan({ maxDeletes: 0 }), { format: "markdown", dryRun: false, color: false });
    expect(md.indexOf("- **People:** 2 to add, 1 to change, 1 to remove")).toBeLessThan(
      md.indexOf("### Changes"),
    );
    expect(md).toContain("- **Held back:** 1 person (see the deletion guard)");
  });
});

describe("bulk membership in every format", () => {
  const p = bulkPlan(1203);

  test("text: the bulk moves per group and in the estimate; members listed under their group", () => {
    const text = renderPlan(p, { format: "text", dryRun: true, color: false, detail: "full" });
    const lines = text.split("\n");
    expect(lines).toContain(
      "  Bulk moves  analytics: +1,202 members, 3 requests; sales: −1,202 members, 3 requests",
    );
    expect(lines).toContain(
      "  Estimate    8 requests (6 requests move 1,202 people in bulk), about 0.8 s at the configured limits",
    );
    expect(lines).toContain("  Membership  analytics +1,203, sales −1,203");
    expect(lines).toContain("  # members of group analytics");
    expect(lines).toContain(
      "    ~ members analytics  (request 3 of 3: 202 people join analytics; membership is their only change)",
    );
    // Twenty ids, then how many more: the JSON plan has them all.
    expect(text).toContain('leave: ["p00000", "p00002", ');
    expect(text).toContain(", … and 480 more]");
    expect(text).not.toMatch(/addMembers|removeMembers/);
    expect(lines.at(-2)).toBe("Plan: changes for 1,203 people (1,203 to change).");
  });

  test("compact text says the people listed one by one are besides the bulk moves", () => {
    const text = renderPlan(p, { format: "text", dryRun: true, color: false, detail: "compact" });
    expect(text).toContain("Members of 2 groups to change:\n");
    expect(text).toContain("2 people to change besides the bulk moves:\n");
  });

  test("Markdown and the JSON summary carry the same figures", () => {
    const md = renderPlan(p, { format: "markdown", dryRun: true, color: false });
    expect(md).toContain(
      "- **Bulk moves:** analytics: +1,202 members, 3 requests; sales: −1,202 members, 3 requests",
    );
    expect(md).toContain("| ~ | members of group sales | members | leave: [");
    const json = JSON.parse(serializePlan(p)) as { summary: { bulk: unknown; estimate: unknown } };
    expect(json.summary.bulk).toEqual({
      people: 1202,
      requests: 6,
      groups: {
        analytics: { add: 1202, remove: 0, requests: 3 },
        sales: { add: 0, remove: 1202, requests: 3 },
      },
    });
    expect(json.summary.estimate).toEqual({ requests: 8, seconds: 0.8 });
  });

  test("a bulk step in words (apply summary)", () => {
    expect(stepInWords("addMembers:sales")).toBe("add members to group sales");
    expect(stepInWords("removeMembers:sales#2")).toBe("remove members from group sales (request 2)");
  });
});
