/**
 * Step kinds and object references as data. Every kind is a verb on an object type; code that
 * asks "is this a create?" or "is this about a group?" looks the kind up here instead of
 * reading its name. Objects are `{kind, id}` values; a saved plan writes them as `kind:id`
 * strings (docs/plan-format.md), built and parsed only here.
 */
import type { MembersStep, Step, StepKind } from "./types.js";

export type Verb = "create" | "update" | "delete";

/**
 * The objects a plan keys: IdP users (by lower-cased email), mappings and groups (by id), one
 * assignee's grant on one workspace (`permission:<workspace>/<type>/<id>`) and one assignee's
 * organization permissions (`orgPermission:<type>/<id>`).
 */
export type ObjectKind = "idp" | "mapping" | "group" | "permission" | "orgPermission" | "dataFilter";
const OBJECT_KINDS: readonly string[] = [
  "idp",
  "mapping",
  "group",
  "permission",
  "orgPermission",
  "dataFilter",
];

export interface ObjectRef {
  kind: ObjectKind;
  id: string;
}

export interface StepKindInfo {
  verb: Verb;
  /**
   * The type of object the step changes, as a person calls it (`members`: a group's membership;
   * `permissions`: a workspace's or the organization's grants).
   */
  noun: "group" | "credentials" | "mapping" | "members" | "permissions" | "dataFilter" | "apiToken";
}

export const STEP_KINDS: Readonly<Record<StepKind, StepKindInfo>> = {
  createGroup: { verb: "create", noun: "group" },
  updateGroup: { verb: "update", noun: "group" },
  deleteGroup: { verb: "delete", noun: "group" },
  createCredentials: { verb: "create", noun: "credentials" },
  updateCredentials: { verb: "update", noun: "credentials" },
  deleteCredentials: { verb: "delete", noun: "credentials" },
  createMapping: { verb: "create", noun: "mapping" },
  updateMapping: { verb: "update", noun: "mapping" },
  deleteMapping: { verb: "delete", noun: "mapping" },
  addMembers: { verb: "update", noun: "members" },
  removeMembers: { verb: "update", noun: "members" },
  // A grant adds permissions (counted as a create), a revoke takes them away (a delete).
  grantWorkspacePermissions: { verb: "create", noun: "permissions" },
  revokeWorkspacePermissions: { verb: "delete", noun: "permissions" },
  grantOrganizationPermissions: { verb: "create", noun: "permissions" },
  revokeOrganizationPermissions: { verb: "delete", noun: "permissions" },
  createDataFilter: { verb: "create", noun: "dataFilter" },
  updateDataFilter: { verb: "update", noun: "dataFilter" },
  deleteDataFilter: { verb: "delete", noun: "dataFilter" },
  deleteApiToken: { verb: "delete", noun: "apiToken" },
};

export const isStepKind = (v: string): v is StepKind => Object.hasOwn(STEP_KINDS, v);
export const verbOf = (kind: StepKind): Verb => STEP_KINDS[kind].verb;
export const nounOf = (kind: StepKind): StepKindInfo["noun"] => STEP_KINDS[kind].noun;
/** A bulk membership step: one request moving many people (their ids in `members`). */
export const isMembersStep = (s: Step): s is MembersStep => STEP_KINDS[s.kind].noun === "members";

/** The saved form of an object reference, e.g. `mapping:jane`, `idp:jane@example.com`. */
export const objectKey = (ref: ObjectRef): string => `${ref.kind}:${ref.id}`;

/** The one place a saved object key is read back; an unknown prefix reads as no object kind. */
export function parseObjectKey(key: string): ObjectRef | undefined {
  const sep = key.indexOf(":");
  const kind = key.slice(0, sep);
  if (!OBJECT_KINDS.includes(kind)) return undefined;
  return { kind: kind as ObjectKind, id: key.slice(sep + 1) };
}

/** The kind of a step id (`<kind>:<target>`, see `stepId`), or undefined for another shape. */
export function kindOfStepId(id: string): StepKind | undefined {
  const kind = id.slice(0, Math.max(0, id.indexOf(":")));
  return isStepKind(kind) ? kind : undefined;
}
