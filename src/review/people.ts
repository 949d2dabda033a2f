/**
 * The review's people (review.ts): one per mapping and one per login no mapping points at, with
 * their login status, scope, protection, agreement with the desired state, workspace access
 * (effective-access.ts) and organization permissions, each with its reasons.
 */
import { compareIds as cmp, permissionSet } from "../permissions.js";
import type { IdpUser, Mapping } from "../service/types.js";
import type { ReviewInput } from "./input.js";
import type { PersonContext } from "./person-context.js";
export { makePersonContext, type PersonContext } from "./person-context.js";
import { builtinProtected } from "../plan/policy.js";
import type { Safety } from "../plan/safety.js";
import { optional, withOrganizationReach } from "./organization-reach.js";
import { loginOf, shadowedMappings, sourceStatusOf } from "./sign-in-status.js";
import type { Agreement, OrganizationReason, ReviewPerson, WorkspaceAccess } from "./types.js";

// eslint-disable-next-line max-lines-per-function -- one person: the fields of the model in its order
export function mappingPerson(
  ctx: PersonContext,
  m: Mapping,
  idp: IdpUser | undefined,
  inScope: boolean,
  protectedWhy: string | undefined,
  shadowedBy?: string,
): ReviewPerson {
  const { input, index } = ctx;
  const d = index?.user(m.id);
  const login = shadowedBy !== undefined ? "shadowed" : loginOf(input, m, idp, d);
  const key = m.id;
  const groups = [...m.groups].sort(cmp);
  const { chains, allGroups } = ctx.groupSet(groups);
  const desiredAccess = d?.state === "present" && index ? index.accessOf(d, groups) : undefined;
  const compared = index !== undefined && inScope && protectedWhy === undefined && d !== undefined;
  const granted: WorkspaceAccess[] = ctx.model.accessOf(m.id, groups).map((raw) => {
    const lists = ctx.permissions(raw.permissions);
    const row: WorkspaceAccess = {
      workspace: raw.workspace,
      ...(ctx.names.get(raw.workspace) !== undefined ? { workspaceName: ctx.names.get(raw.workspace)! } : {}),
      permissions: lists.effective,
      granted: lists.granted,
      reaches: lists.reaches,
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
  const own = ctx.orgGrants.get(`user/${m.id}`);
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
  const access = withOrganizationReach(ctx, { userId: m.id, groups, orgReasons, access: granted });
  const sourceStatus = sourceStatusOf(input, d, { id: m.id, email: m.email });
  const leaver =
    index !== undefined &&
    inScope &&
    protectedWhy === undefined &&
    sourceStatus !== "present" &&
    (d?.state === "absent" || input.policy.mode === "full");
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
    status: protectedWhy !== undefined ? "protected" : !inScope ? "outOfScope" : leaver ? "leaver" : login,
    inScope,
    ...(protectedWhy !== undefined ? { protected: protectedWhy } : {}),
    agreement: agreementOf(index !== undefined, managed, driftLines),
    drift: managed ? driftLines : [],
    ...(d !== undefined ? { desiredState: d.state } : {}),
    ...(sourceStatus !== undefined ? { sourceStatus } : {}),
    ...(shadowedBy !== undefined ? { shadowedBy } : {}),
    ...(leaver ? { leaver: true, ...optional("goneSince", input.goneSince?.get(m.id)) } : {}),
    groups,
    allGroups,
    organizationPermissions,
    organizationReasons: orgReasons,
    privileged: organizationPermissions.includes("MANAGE") || access.some((a) => a.manage),
    access,
    ...(compared && desiredAccess ? { desiredOrganization: desiredAccess.organization } : {}),
    ...apiTokensOf(input.actual, m.id),
  };
}

/** The person's own API token ids, where they were listed (review of leavers, cli/commands/review.ts). */
const apiTokensOf = (actual: ReviewInput["actual"], id: string): { apiTokens?: string[] } => {
  const ids = actual.apiTokens?.get(id);
  return ids === undefined ? {} : { apiTokens: [...ids] };
};

export function loginOnlyPerson(
  ctx: PersonContext,
  u: IdpUser,
  inScope: boolean,
  protectedWhy: string | undefined,
): ReviewPerson {
  const key = `login:${u.email.toLowerCase()}`;
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

/** One person per mapping, and one per login no mapping points at, sorted by key. */
export function listPeople(ctx: PersonContext, safety: Safety, builtin: Safety): ReviewPerson[] {
  const { actual } = ctx.input;
  const people: ReviewPerson[] = [];
  const byAuth = new Map(actual.idpUsers.map((u) => [u.authenticationId, u] as const));
  const linked = new Set<string>();
  const shadowed = shadowedMappings(actual.mappings);
  for (const m of actual.mappings) {
    const shadowedBy = shadowed.get(m.id);
    // A shadowed mapping is never signed in: the login is the first userId's, not theirs (R15).
    const idp =
      m.authenticationId !== undefined && shadowedBy === undefined
        ? byAuth.get(m.authenticationId)
        : undefined;
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
    people.push(mappingPerson(ctx, m, idp, safety.mappingInScope(m, idp), protectedWhy, shadowedBy));
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
  return people.sort((a, b) => cmp(a.key, b.key));
}
