/**
 * A hand-built access review (review/types.ts) for the HTML page's tests: a small
 * organization with a hierarchy (root > sales > sales-emea), groups with a parent, a direct grant
 * made by hand, a revoked person who keeps access, a hand-made filter, and a person and a filter
 * whose names are hostile (`<script>`, quotes, `</script>` in MAQL).
 */
import type {
  AccessReason,
  EffectiveFilter,
  Review,
  ReviewPerson,
  WorkspaceAccess,
} from "../../src/review/types.js";
import type { WorkspacePermission } from "../../src/permissions.js";

export const HOSTILE_NAME = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">"'&`;
export const HOSTILE_MAQL = `{label/region} = "</script><script>window.__pwned=3</script>"`;

const group = (id: string) => ({ type: "userGroup" as const, id });
const user = (id: string) => ({ type: "user" as const, id });

function viaGroup(
  chain: string[],
  workspace: string,
  permissions: WorkspacePermission[],
  managed = true,
): AccessReason {
  return {
    kind: "group",
    holder: group(chain[chain.length - 1]!),
    groupChain: chain,
    grantedOn: workspace,
    workspaceChain: [],
    permissions,
    managed,
    text: `group ${chain.join(" -> ")}`,
  };
}
function direct(
  id: string,
  workspace: string,
  permissions: WorkspacePermission[],
  managed: boolean,
): AccessReason {
  return {
    kind: "direct",
    holder: user(id),
    groupChain: [],
    grantedOn: workspace,
    workspaceChain: [],
    permissions,
    managed,
    text: "direct",
  };
}
function fromAbove(chain: string[], workspaces: string[], permissions: WorkspacePermission[]): AccessReason {
  return {
    kind: "hierarchy",
    holder: group(chain[chain.length - 1]!),
    groupChain: chain,
    grantedOn: workspaces[0]!,
    workspaceChain: workspaces,
    permissions,
    managed: true,
    text: `hierarchy from ${workspaces[0]}`,
  };
}
function filter(
  id: string,
  o: Partial<EffectiveFilter> & { maql: string; workspace: string },
): EffectiveFilter {
  return {
    id,
    via: "group",
    holder: group("sales"),
    groupChain: ["sales-emea", "sales"],
    fromParent: false,
    managed: true,
    desired: true,
    ...o,
  };
}
function access(
  workspace: string,
  reasons: AccessReason[],
  filters: EffectiveFilter[] = [],
  unfiltered = false,
): WorkspaceAccess {
  const permissions = [...new Set(reasons.flatMap((r) => r.permissions))].sort();
  return {
    workspace,
    permissions,
    granted: permissions,
    reaches: true,
    manage: permissions.includes("MANAGE"),
    reasons,
    filters,
    unfiltered,
  };
}
function person(p: Partial<ReviewPerson> & { id: string; email: string }): ReviewPerson {
  return {
    key: p.id,
    login: "active",
    status: "active",
    inScope: true,
    agreement: "inLine",
    drift: [],
    desiredState: "present",
    groups: [],
    allGroups: [],
    organizationPermissions: [],
    organizationReasons: [],
    privileged: false,
    access: [],
    ...p,
  };
}

const emeaFilter = filter("f-emea", {
  maql: `{label/region} = "EMEA"`,
  workspace: "sales",
  fromParent: true,
  title: "EMEA only",
});

/** When jane's sales-emea row changed: between two reviews (review-last-change.ts). */
export const LAST_CHANGE = "2026-08-01T06:00:00.000Z/2026-11-01T06:00:00.000Z";

export const PEOPLE: ReviewPerson[] = [
  person({
    id: "jane",
    email: "jane@example.com",
    displayName: "Jane Doe",
    groups: ["sales-emea"],
    allGroups: ["sales", "sales-emea"],
    agreement: "drifted",
    drift: ["loses EXPORT, VIEW on finance (hand-made direct grant)"],
    access: [
      access("finance", [direct("jane", "finance", ["EXPORT", "VIEW"], false)], [], true),
      {
        ...access(
          "sales-emea",
          [
            viaGroup(["sales-emea"], "sales-emea", ["ANALYZE", "VIEW"]),
            fromAbove(["sales-emea", "sales"], ["sales", "sales-emea"], ["VIEW"]),
          ],
          [emeaFilter],
        ),
        lastChange: LAST_CHANGE,
      },
    ],
  }),
  person({
    id: "leaver",
    email: "leaver@example.com",
    displayName: "Lee Vaver",
    login: "revoked",
    status: "revoked",
    desiredState: "absent",
    groups: ["sales"],
    allGroups: ["sales"],
    access: [
      access(
        "sales",
        [viaGroup(["sales"], "sales", ["VIEW"])],
        [
          filter("f-hand", {
            maql: `{label/region} = "ALL"`,
            workspace: "sales",
            managed: false,
            desired: false,
            via: "own",
            holder: user("leaver"),
            groupChain: [],
          }),
        ],
      ),
    ],
  }),
  person({
    id: "root-admin",
    email: "ops@example.com",
    displayName: "Ops Admin",
    status: "protected",
    protected: "policy.protect",
    agreement: "unmanaged",
    desiredState: undefined as never,
    organizationPermissions: ["MANAGE"],
    organizationReasons: [
      {
        kind: "direct",
        holder: user("root-admin"),
        groupChain: [],
        permissions: ["MANAGE"],
        managed: false,
        text: "direct",
      },
    ],
    privileged: true,
    access: [access("root", [direct("root-admin", "root", ["MANAGE"], false)])],
  }),
  person({
    id: "evil",
    email: "evil@example.com",
    displayName: HOSTILE_NAME,
    login: "external",
    status: "external",
    agreement: "unmanaged",
    groups: ["sales-emea"],
    allGroups: ["sales", "sales-emea"],
    access: [
      access(
        "sales-emea",
        [viaGroup(["sales-emea"], "sales-emea", ["VIEW"])],
        [filter("f-evil", { maql: HOSTILE_MAQL, workspace: "sales-emea", managed: false, desired: false })],
      ),
    ],
  }),
  person({
    id: "nobody",
    email: "nobody@example.com",
    login: "loginOnly",
    status: "loginOnly",
    agreement: "unmanaged",
  }),
];
for (const p of PEOPLE) if (p.desiredState === undefined) delete p.desiredState;

/** The fixture review; `withChanges` adds a `--since` part. */
export function aReview(o: { withChanges?: boolean } = {}): Review {
  const rows = PEOPLE.reduce((n, p) => n + p.access.length, 0);
  return {
    formatVersion: 1,
    kind: "usersync-access-review",
    snapshot: {
      generatedAt: "2026-11-27T20:00:00.000Z",
      organization: "acme <prod>",
      baseUrl: "http://127.0.0.1:1",
      usersyncVersion: "0.1.0",
      digest: "sha256:abc",
    },
    summary: {
      people: PEOPLE.length,
      byStatus: { active: 1, revoked: 1, protected: 1, external: 1, loginOnly: 1 },
      byAgreement: { inLine: 1, drifted: 1, unmanaged: 3 },
      workspaces: 4,
      groups: 2,
      accessRows: rows,
      privilegedPeople: 1,
      unfilteredRows: 1,
      filters: 3,
      findings: 3,
      findingsByKind: { revokedWithAccess: 1, handMadeDirectGrant: 1, privilegedOutsideDesired: 1 },
      ...(o.withChanges ? { changes: 2 } : {}),
    },
    evidence: {
      requests: 12,
      permissionsVia: "byAssignee",
      desiredCompared: true,
      desiredSource: "users.yaml",
      mode: "full",
      notes: [],
    },
    findings: [
      {
        kind: "revokedWithAccess",
        severity: "high",
        person: "leaver",
        email: "leaver@example.com",
        workspace: "sales",
        detail: "login revoked, still holds VIEW on sales through group sales",
      },
      {
        kind: "privilegedOutsideDesired",
        severity: "high",
        person: "root-admin",
        email: "ops@example.com",
        detail: "holds organization MANAGE the desired state does not give",
      },
      {
        kind: "handMadeDirectGrant",
        severity: "medium",
        person: "jane",
        email: "jane@example.com",
        workspace: "finance",
        detail: "a direct grant of EXPORT, VIEW on finance made by hand",
      },
    ],
    workspaces: [
      { id: "root", name: "Root", path: ["root"], filterCount: 0, peopleWithAccess: 1 },
      {
        id: "sales",
        name: "Sales",
        parent: "root",
        path: ["root", "sales"],
        filterCount: 2,
        peopleWithAccess: 1,
      },
      {
        id: "sales-emea",
        name: "Sales EMEA",
        parent: "sales",
        path: ["root", "sales", "sales-emea"],
        filterCount: 1,
        peopleWithAccess: 2,
      },
      { id: "finance", name: "Finance", path: ["finance"], filterCount: 0, peopleWithAccess: 1 },
    ],
    groups: [
      { id: "sales", parents: [], members: 1 },
      { id: "sales-emea", parents: ["sales"], members: 2 },
    ],
    people: PEOPLE,
    organizationPermissions: [
      {
        assignee: user("root-admin"),
        email: "ops@example.com",
        permissions: ["MANAGE"],
        privileged: true,
        managed: false,
      },
    ],
    ...(o.withChanges
      ? {
          changes: {
            since: {
              generatedAt: "2026-08-27T20:00:00.000Z",
              organization: "acme <prod>",
              baseUrl: "http://127.0.0.1:1",
              usersyncVersion: "0.1.0",
              digest: "sha256:old",
            },
            changes: [
              {
                kind: "accessGained",
                person: "jane",
                email: "jane@example.com",
                workspace: "finance",
                after: ["EXPORT", "VIEW"],
              },
              { kind: "personCame", person: "evil", email: "evil@example.com" },
            ],
            counts: { accessGained: 1, personCame: 1 },
          },
        }
      : {}),
  };
}

/** The removal the dated review carries: when usersync removed it, by which run, when the leaver left. */
export const DATED_REMOVAL = {
  removedAt: "2026-11-20T10:17:02.114Z",
  runId: "5b0c8d1e-0000-4000-8000-000000000001",
  goneSince: "2026-11-18T09:00:00.000Z",
} as const;

/** aReview with changes and one dated removal: the leaver's finance access, removed by usersync. */
export function aDatedReview(): Review {
  const review = aReview({ withChanges: true });
  review.changes!.changes.push({
    kind: "accessLost",
    person: "leaver",
    email: "leaver@example.com",
    workspace: "finance",
    before: ["VIEW"],
    after: [],
    ...DATED_REMOVAL,
  });
  review.people.find((p) => p.key === "leaver")!.goneSince = DATED_REMOVAL.goneSince;
  return review;
}
