/**
 * The tenant a Graph stand-in serves: users, groups, the other directory objects a group can hold
 * (service principals, devices, organizational contacts) and the app registrations that may get a
 * token. Shapes follow Microsoft's own description of Graph v1.0 (msgraph-metadata's
 * `schemas/v1.0-Prod.csdl`, `@microsoft/microsoft-graph-types`): a user's `accountEnabled`,
 * `userType` ("Member" | "Guest"), `mail` (nullable), `userPrincipalName`; a group's
 * `displayName`, `mailNickname`, `securityEnabled`, `groupTypes`.
 */
import type * as Graph from "@microsoft/microsoft-graph-types";

/** The properties of `microsoft.graph.user` the stand-in keeps (all of them selectable). */
export type GraphUser = Required<
  Pick<Graph.User, "id" | "userPrincipalName" | "accountEnabled" | "userType">
> &
  Pick<Graph.User, "displayName" | "givenName" | "surname" | "mail" | "employeeId" | "onPremisesImmutableId">;

export type GraphGroup = Required<Pick<Graph.Group, "id" | "displayName">> &
  Pick<Graph.Group, "description" | "mailNickname" | "securityEnabled" | "groupTypes"> & {
    /** Direct members by object id: users, groups (nesting) and other objects. */
    members: string[];
  };

/** Member types a person-reader skips: `#microsoft.graph.servicePrincipal` and so on. */
export type OtherType = "servicePrincipal" | "device" | "orgContact";
export interface OtherObject {
  id: string;
  type: OtherType;
  displayName: string;
}

/**
 * An app registration: which credential gets it a token, and the Graph application permissions
 * an admin consented to (`roles` in its token).
 */
export interface AppRegistration {
  clientId: string;
  /** Client secrets that work. */
  secrets?: string[];
  /** Secrets that expired (AADSTS7000222). */
  expiredSecrets?: string[];
  /** A client certificate: an assertion signed by it, with `iss` = `sub` = the client id. */
  certificate?: boolean;
  /** Workload identity federation: the subject (`system:serviceaccount:NS:NAME`) and issuer trusted. */
  federated?: { issuer: string; subject: string };
  roles: string[];
}

export interface GraphTenant {
  tenantId: string;
  /** Also accepted as the tenant in the authority URL (`contoso.onmicrosoft.com`). */
  domain?: string;
  users: GraphUser[];
  groups: GraphGroup[];
  others?: OtherObject[];
  apps: AppRegistration[];
}

export type DirectoryObject =
  | { type: "user"; value: GraphUser }
  | { type: "group"; value: GraphGroup }
  | { type: OtherType; value: OtherObject };

/** Lookups over one tenant, and the transitive closure Graph computes for `transitiveMembers`. */
export class Directory {
  private readonly byId = new Map<string, DirectoryObject>();
  constructor(readonly tenant: GraphTenant) {
    for (const u of tenant.users) this.byId.set(u.id, { type: "user", value: u });
    for (const g of tenant.groups) this.byId.set(g.id, { type: "group", value: g });
    for (const o of tenant.others ?? []) this.byId.set(o.id, { type: o.type, value: o });
  }

  /** A new object (the stand-in's changes, delta.ts): a user or group joins the tenant's lists. */
  add(o: DirectoryObject): void {
    this.byId.set(o.value.id, o);
    if (o.type === "user") this.tenant.users.push(o.value);
    else if (o.type === "group") this.tenant.groups.push(o.value);
  }

  /** An object deleted: gone from the lookups and the tenant's lists (not from groups: delta.ts does that). */
  remove(id: string): void {
    this.byId.delete(id);
    this.tenant.users = this.tenant.users.filter((u) => u.id !== id);
    this.tenant.groups = this.tenant.groups.filter((g) => g.id !== id);
  }

  object(id: string): DirectoryObject | undefined {
    return this.byId.get(id);
  }

  group(id: string): GraphGroup | undefined {
    const o = this.byId.get(id);
    return o?.type === "group" ? o.value : undefined;
  }

  /** Every object below a group at any depth, each once, in a stable order (no cycles followed twice). */
  transitiveMembers(groupId: string): DirectoryObject[] {
    const out: DirectoryObject[] = [];
    const seen = new Set<string>([groupId]);
    const queue = [...(this.group(groupId)?.members ?? [])];
    while (queue.length > 0) {
      const id = queue.shift()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const o = this.byId.get(id);
      if (o === undefined) continue;
      out.push(o);
      if (o.type === "group") queue.push(...o.value.members);
    }
    return out;
  }

  directMembers(groupId: string): DirectoryObject[] {
    return (this.group(groupId)?.members ?? []).flatMap((id) => {
      const o = this.byId.get(id);
      return o ? [o] : [];
    });
  }

  matchesTenant(name: string): boolean {
    const n = name.toLowerCase();
    return n === this.tenant.tenantId.toLowerCase() || n === this.tenant.domain?.toLowerCase();
  }
}

/** A deterministic GUID-shaped id from a label, so fixtures and benchmarks are reproducible. */
export function guid(label: string, n: number): string {
  let h = 2166136261;
  for (const c of `${label}:${n}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  const hex = (h.toString(16).padStart(8, "0") + n.toString(16).padStart(12, "0")).slice(0, 20);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${n.toString(16).padStart(12, "0")}`;
}
