/**
 * The access review (DESIGN section 12, docs/audits.md): a pure function of the listed
 * organization, the policy and, when one is configured, the desired state and the plan made
 * against it. No I/O, no clock: the caller passes the time and the listing's request count.
 */
import { createHash } from "node:crypto";
import type { DesiredState, DesiredUser } from "../../desired/types.js";
import { compareIds as cmp, permissionSet, type OrganizationPermission } from "../../permissions.js";
import type { ActualState, IdpUser, Mapping } from "../../service/types.js";
import { builtinProtected, type Policy } from "../policy.js";
import { makeSafety, workspaceMatcher } from "../safety.js";
import type { Plan } from "../types.js";
import { makeAccessModel, type AccessModel } from "./effective-access.js";
import { makeDesiredIndex, type DesiredIndex } from "./review-desired.js";
import { reviewFindings } from "./review-findings.js";
import { stepsByPerson } from "./review-drift.js";
import {
  REVIEW_FORMAT_VERSION,
  type AccessReason,
  type Agreement,
  type EffectiveFilter,
  type LoginStatus,
  type OrganizationPermissionRow,
  type OrganizationReason,
  type Review,
  type ReviewEvidence,
  type ReviewGroup,
  type ReviewPerson,
  type ReviewSnapshot,
  type ReviewSummary,
  type ReviewWorkspace,
  type WorkspaceAccess,
} from "./review-types.js";

export interface ReviewInput {
  /** The listing: every workspace, grant, organization grant and filter (cli/review-listing.ts). */
  actual: ActualState;
  policy: Policy;
  /** How the organization signs in, when the service says: a mapping with no built-in login is then external, not revoked. */
  signIn?: "builtin" | "oidc" | undefined;
  /** The desired state and the plan made against it (cli), when a source is configured. */
  desired?: { state: DesiredState; plan: Plan; source?: string | undefined } | undefined;
  snapshot: Omit<ReviewSnapshot, "digest">;
  requests: number;
  notes?: string[];
}

export function buildReview(input: ReviewInput): Review {
  const { actual, policy } = input;
  const perms = actual.permissions;
  const groupParents = new Map(actual.groups.map((g) => [g.id, g.parents] as const));
  const model = makeAccessModel({
    workspaces: perms?.workspaces ?? [],
    assignments: perms?.assignments ?? [],
    groupParents,
    filters: actual.dataFilters?.filters ?? [],
  });
  const workspaces = perms?.workspaces ?? [];
  const names = new Map(workspaces.map((w) => [w.id, w.name] as const));
  const index = input.desired
    ? makeDesiredIndex({
        desired: input.desired.state,
        actualGroupParents: groupParents,
        below: belowFn(workspaces),
        managesPermissions: workspaceMatcher(policy.permissions.workspaces),
      })
    : undefined;
  const drift = input.desired ? stepsByPerson(input.desired.plan, actual) : undefined;
  const safety = makeSafety(policy, actual.callerId);
  const builtin = makeSafety({ ...policy, protect: [] }, undefined);
  const orgGrants = new Map<string, OrganizationPermission[]>();
  for (const a of perms?.organization ?? [])
    orgGrants.set(`${a.assignee.type}/${a.assignee.id}`, a.permissions);

  // Rows of one group set share their lists: flagged once per list, not once per person.
  const flagged = new WeakMap<object, unknown>();
  const once = <T extends object>(list: T, make: (l: T) => T): T => {
    let out = flagged.get(list) as T | undefined;
    if (out === undefined) {
      out = make(list);
      flagged.set(list, out);
    }
    return out;
  };
  const groupSets = new Map<string, { chains: Array<[string, string[]]>; allGroups: string[] }>();
  const ctx: PersonContext = {
    input,
    model,
    names,
    index,
    drift,
    orgGrants,
    groupSet: (groups) => {
      const key = groups.join("\u0000");
      let set = groupSets.get(key);
      if (!set) {
        const chains = [...model.chainsOf(groups)].sort(([a], [b]) => cmp(a, b));
        set = { chains, allGroups: chains.map(([g]) => g) };
        groupSets.set(key, set);
      }
      return set;
    },
    flagReasons: (list) =>
      index
        ? once(list, (l) =>
            l.map((r) => ({
              ...r,
              managed: index.givesGrant(r.holder, r.grantedOn, r.permissions, r.kind === "hierarchy"),
            })),
          )
        : list,
    flagFilters: (list) =>
      index
        ? once(list, (l) =>
            l.map((f) => ({ ...f, desired: index.givesFilter(f.holder, f.workspace, f.maql) })),
          )
        : list,
  };
  const people: ReviewPerson[] = [];
  const byAuth = new Map(actual.idpUsers.map((u) => [u.authenticationId, u] as const));
  const linked = new Set<string>();
  for (const m of actual.mappings) {
    const idp = m.authenticationId !== undefined ? byAuth.get(m.authenticationId) : undefined;
    if (idp) linked.add(idp.authenticationId);
    const email = idp?.email ?? m.email;
    const protectedWhy =
      m.id === actual.callerId
        ? "the token's own user"
        : builtin.isProtected([m.id, email])
          ? `built in (${builtinProtected.join(", ")})`
          : safety.isProtected([m.id, email])
            ? "policy.protect"
            : undefined;
    people.push(mappingPerson(ctx, m, idp, safety.mappingInScope(m, idp), protectedWhy));
  }
  for (const u of actual.idpUsers) {
    if (linked.has(u.authenticationId)) continue;
    people.push(
      loginOnlyPerson(
        ctx,
        u,
        safety.idpInScope(u),
        safety.isProtected([u.email]) ? "policy.protect" : undefined,
      ),
    );
  }
  people.sort((a, b) => cmp(a.key, b.key));

  const reviewWorkspaces = workspaceRows(workspaces, model, people);
  const members = new Map<string, number>();
  for (const m of actual.mappings) for (const g of m.groups) members.set(g, (members.get(g) ?? 0) + 1);
  const groups: ReviewGroup[] = actual.groups
    .map((g) => ({
      id: g.id,
      ...(g.name !== undefined ? { name: g.name } : {}),
      parents: [...g.parents],
      members: members.get(g.id) ?? 0,
    }))
    .sort((a, b) => cmp(a.id, b.id));
  const organizationPermissions = orgRows(ctx, people);
  const findings = reviewFindings(people, index !== undefined);
  const content = { workspaces: reviewWorkspaces, groups, people, organizationPermissions, findings };
  const digest = contentDigest(content);
  const evidence: ReviewEvidence = {
    requests: input.requests,
    ...(perms?.via !== undefined ? { permissionsVia: perms.via } : {}),
    desiredCompared: input.desired !== undefined,
    ...(input.desired?.source !== undefined ? { desiredSource: input.desired.source } : {}),
    ...(input.desired ? { mode: policy.mode } : {}),
    notes: input.notes ?? [],
  };
  return {
    formatVersion: REVIEW_FORMAT_VERSION,
    kind: "usersync-access-review",
    snapshot: { ...input.snapshot, digest },
    summary: summarize(content, actual),
    evidence,
    findings,
    workspaces: reviewWorkspaces,
    groups,
    people,
    organizationPermissions,
  };
}

interface PersonContext {
  input: ReviewInput;
  model: AccessModel;
  names: ReadonlyMap<string, string | undefined>;
  index: DesiredIndex | undefined;
  drift: ReadonlyMap<string, string[]> | undefined;
  orgGrants: ReadonlyMap<string, OrganizationPermission[]>;
  flagReasons(list: AccessReason[]): AccessReason[];
  /** A direct-group set's groups through parents, sorted, with their chains: once per set. */
  groupSet(groups: readonly string[]): { chains: Array<[string, string[]]>; allGroups: string[] };
  flagFilters(list: EffectiveFilter[]): EffectiveFilter[];
}

function loginOf(
  ctx: PersonContext,
  m: Mapping,
  idp: IdpUser | undefined,
  d: DesiredUser | undefined,
): LoginStatus {
  if (idp) return "active";
  if (m.authenticationId === undefined) return "revoked";
  if (d?.state === "present") return d.identity === "external" ? "external" : "revoked";
  if (ctx.input.actual.builtinIdp === false || ctx.input.signIn === "oidc") return "external";
  return "revoked";
}

function mappingPerson(
  ctx: PersonContext,
  m: Mapping,
  idp: IdpUser | undefined,
  inScope: boolean,
  protectedWhy: string | undefined,
): ReviewPerson {
  const { input, index } = ctx;
  const d = index?.user(m.id);
  const login = loginOf(ctx, m, idp, d);
  const key = `user/${m.id}`;
  const groups = [...m.groups].sort(cmp);
  const { chains, allGroups } = ctx.groupSet(groups);
  const desiredAccess = d?.state === "present" && index ? index.accessOf(d, groups) : undefined;
  const compared = index !== undefined && inScope && protectedWhy === undefined && d !== undefined;
  const access: WorkspaceAccess[] = ctx.model.accessOf(m.id, groups).map((raw) => {
    const row: WorkspaceAccess = {
      workspace: raw.workspace,
      ...(ctx.names.get(raw.workspace) !== undefined ? { workspaceName: ctx.names.get(raw.workspace)! } : {}),
      permissions: raw.permissions,
      manage: raw.permissions.includes("MANAGE"),
      reasons: ctx.flagReasons(raw.reasons),
      filters: ctx.flagFilters(raw.filters),
      unfiltered: raw.filters.length === 0 && raw.workspaceFiltered,
    };
    if (compared)
      row.desired = {
        permissions: desiredAccess?.workspaces.get(raw.workspace) ?? [],
        filters: desiredAccess?.filters.get(raw.workspace) ?? [],
      };
    return row;
  });
  const orgReasons: OrganizationReason[] = [];
  const own = ctx.orgGrants.get(key);
  if (own && own.length > 0)
    orgReasons.push({
      kind: "direct",
      holder: { type: "user", id: m.id },
      groupChain: [],
      permissions: own,
      ...(index ? { managed: index.givesOrganization({ type: "user", id: m.id }, own) } : {}),
      text: "direct grant",
    });
  for (const [g, chain] of chains) {
    const p = ctx.orgGrants.get(`userGroup/${g}`);
    if (p && p.length > 0)
      orgReasons.push({
        kind: "group",
        holder: { type: "userGroup", id: g },
        groupChain: chain,
        permissions: p,
        ...(index ? { managed: index.givesOrganization({ type: "userGroup", id: g }, p) } : {}),
        text: `group ${chain.join(" -> ")}`,
      });
  }
  const organizationPermissions = permissionSet(orgReasons.flatMap((r) => r.permissions));
  const managed = isManaged(input, index !== undefined, inScope, protectedWhy, d !== undefined, "mapping");
  const driftLines = ctx.drift?.get(key) ?? [];
  const email = idp?.email ?? m.email;
  const displayName = idp?.displayName ?? ([m.firstname, m.lastname].filter((x) => x).join(" ") || undefined);
  return {
    key,
    id: m.id,
    ...(email !== undefined && email !== "" ? { email } : {}),
    ...(displayName !== undefined ? { displayName } : {}),
    ...(m.authenticationId !== undefined ? { authenticationId: m.authenticationId } : {}),
    login,
    status: protectedWhy !== undefined ? "protected" : !inScope ? "outOfScope" : login,
    inScope,
    ...(protectedWhy !== undefined ? { protected: protectedWhy } : {}),
    agreement: agreementOf(index !== undefined, managed, driftLines),
    drift: managed ? driftLines : [],
    ...(d !== undefined ? { desiredState: d.state } : {}),
    groups,
    allGroups,
    organizationPermissions,
    organizationReasons: orgReasons,
    privileged: organizationPermissions.includes("MANAGE") || access.some((a) => a.manage),
    access,
    ...(compared && desiredAccess ? { desiredOrganization: desiredAccess.organization } : {}),
  };
}

function loginOnlyPerson(
  ctx: PersonContext,
  u: IdpUser,
  inScope: boolean,
  protectedWhy: string | undefined,
): ReviewPerson {
  const key = `login/${u.email.toLowerCase()}`;
  const d = ctx.index?.userByEmail(u.email);
  const managed = isManaged(
    ctx.input,
    ctx.index !== undefined,
    inScope,
    protectedWhy,
    d !== undefined,
    "login",
  );
  const driftLines = ctx.drift?.get(key) ?? [];
  return {
    key,
    email: u.email,
    displayName: u.displayName,
    authenticationId: u.authenticationId,
    login: "loginOnly",
    status: protectedWhy !== undefined ? "protected" : !inScope ? "outOfScope" : "loginOnly",
    inScope,
    ...(protectedWhy !== undefined ? { protected: protectedWhy } : {}),
    agreement: agreementOf(ctx.index !== undefined, managed, driftLines),
    drift: managed ? driftLines : [],
    ...(d !== undefined ? { desiredState: d.state } : {}),
    groups: [],
    allGroups: [],
    organizationPermissions: [],
    organizationReasons: [],
    privileged: false,
    access: [],
  };
}

/**
 * Whether usersync manages the person under this policy: in scope, not protected, and named by
 * the desired state; or, in full mode, any mapping (full mode removes those it does not name) and,
 * with `unlinkedCredentials: delete`, any login.
 */
function isManaged(
  input: ReviewInput,
  compared: boolean,
  inScope: boolean,
  protectedWhy: string | undefined,
  named: boolean,
  kind: "mapping" | "login",
): boolean {
  if (!compared || !inScope || protectedWhy !== undefined) return false;
  if (named) return true;
  if (input.policy.mode !== "full") return false;
  return kind === "mapping" || input.policy.unlinkedCredentials === "delete";
}

function agreementOf(compared: boolean, managed: boolean, drift: readonly string[]): Agreement {
  if (!compared) return "notCompared";
  if (!managed) return "unmanaged";
  return drift.length > 0 ? "drifted" : "inLine";
}

function belowFn(workspaces: readonly { id: string; parent?: string }[]): (ws: string) => string[] {
  const children = new Map<string, string[]>();
  for (const w of workspaces)
    if (w.parent !== undefined)
      (children.get(w.parent) ?? children.set(w.parent, []).get(w.parent)!).push(w.id);
  return (ws) => {
    const out: string[] = [];
    const seen = new Set<string>();
    const walk = (at: string): void => {
      if (seen.has(at)) return;
      seen.add(at);
      out.push(at);
      for (const c of children.get(at) ?? []) walk(c);
    };
    walk(ws);
    return out;
  };
}

function workspaceRows(
  workspaces: readonly { id: string; name?: string; parent?: string }[],
  model: AccessModel,
  people: readonly ReviewPerson[],
): ReviewWorkspace[] {
  const reach = new Map<string, number>();
  for (const p of people) for (const a of p.access) reach.set(a.workspace, (reach.get(a.workspace) ?? 0) + 1);
  return workspaces
    .map((w) => ({
      id: w.id,
      ...(w.name !== undefined ? { name: w.name } : {}),
      ...(w.parent !== undefined ? { parent: w.parent } : {}),
      path: model.pathOf(w.id),
      filterCount: model.filterCount(w.id),
      peopleWithAccess: reach.get(w.id) ?? 0,
    }))
    .sort((a, b) => cmp(a.id, b.id));
}

function orgRows(ctx: PersonContext, people: readonly ReviewPerson[]): OrganizationPermissionRow[] {
  const emails = new Map(people.filter((p) => p.id !== undefined).map((p) => [p.id!, p.email]));
  const rows: OrganizationPermissionRow[] = [];
  for (const a of ctx.input.actual.permissions?.organization ?? []) {
    if (a.permissions.length === 0) continue;
    const email = a.assignee.type === "user" ? emails.get(a.assignee.id) : undefined;
    rows.push({
      assignee: a.assignee,
      ...(email !== undefined ? { email } : {}),
      permissions: a.permissions,
      privileged: a.permissions.includes("MANAGE"),
      ...(a.assignee.type === "userGroup"
        ? { people: people.filter((p) => p.allGroups.includes(a.assignee.id)).length }
        : {}),
      ...(ctx.index ? { managed: ctx.index.givesOrganization(a.assignee, a.permissions) } : {}),
    });
  }
  return rows.sort((a, b) => cmp(a.assignee.type, b.assignee.type) || cmp(a.assignee.id, b.assignee.id));
}

function summarize(
  c: Pick<Review, "workspaces" | "groups" | "people" | "findings">,
  actual: ActualState,
): ReviewSummary {
  const byStatus: ReviewSummary["byStatus"] = {};
  const byAgreement: ReviewSummary["byAgreement"] = {};
  const findingsByKind: ReviewSummary["findingsByKind"] = {};
  let accessRows = 0;
  let unfilteredRows = 0;
  for (const p of c.people) {
    byStatus[p.status] = (byStatus[p.status] ?? 0) + 1;
    byAgreement[p.agreement] = (byAgreement[p.agreement] ?? 0) + 1;
    accessRows += p.access.length;
    for (const a of p.access) if (a.unfiltered) unfilteredRows += 1;
  }
  for (const f of c.findings) findingsByKind[f.kind] = (findingsByKind[f.kind] ?? 0) + 1;
  return {
    people: c.people.length,
    byStatus,
    byAgreement,
    workspaces: c.workspaces.length,
    groups: c.groups.length,
    accessRows,
    privilegedPeople: c.people.filter((p) => p.privileged).length,
    unfilteredRows,
    filters: actual.dataFilters?.filters.length ?? 0,
    findings: c.findings.length,
    findingsByKind,
  };
}

/**
 * `sha256:` of the content, a part at a time (one JSON string of a large organization's review
 * would be hundreds of MiB). The reason and filter lists people of one group set share are
 * written once and then named by their hash, so the digest costs about what the distinct lists do.
 */
function contentDigest(content: Record<string, readonly unknown[]>): string {
  const hash = createHash("sha256");
  const listText = new WeakMap<object, string>();
  /** A shared list's own hash, computed once: hashing its text for every row that shares it costs more than the review. */
  const textOf = (list: readonly unknown[]): string => {
    let t = listText.get(list);
    if (t === undefined) {
      t = createHash("sha256").update(JSON.stringify(list)).digest("hex");
      listText.set(list, t);
    }
    return t;
  };
  for (const [k, items] of Object.entries(content)) {
    hash.update(`${k}\n`);
    for (const item of items) {
      if (k !== "people") {
        hash.update(`${JSON.stringify(item)}\n`);
        continue;
      }
      const { access, ...person } = item as ReviewPerson;
      hash.update(JSON.stringify(person));
      for (const a of access) {
        const { reasons, filters, ...row } = a;
        hash.update(JSON.stringify(row));
        hash.update(textOf(reasons));
        hash.update(filters.length === 0 ? "[]" : JSON.stringify(filters));
      }
      hash.update("\n");
    }
  }
  return `sha256:${hash.digest("hex")}`;
}
