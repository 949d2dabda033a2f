/**
 * The seed's organization: how it signs people in (`organization:`), its identity providers
 * (`identityProviders:`) and its settings (`organizationSettings:`), in the shapes of the official
 * `metadata-json-api` (JsonApiOrganizationOut, JsonApiIdentityProviderOut,
 * JsonApiOrganizationSettingOut), attributes flat. They are checked here, so a seed that names an
 * identity provider it does not list, or a claim that is not a string, stops the emulator before
 * it listens, naming the field. Read at every start and never persisted: the emulator takes no
 * writes of them.
 */
import type {
  EmulatorOrganizationSetting,
  EmulatorSeed,
  EmulatorSignIn,
  SeedIdentityProvider,
} from "./types.js";

const IDP_TYPES = ["MANAGED_IDP", "FIM_IDP", "DEX_IDP", "CUSTOM_IDP"];
const ORGANIZATION_KEYS = ["oauthIssuerLocation", "oauthSubjectIdClaim", "identityProvider"];
const IDP_TEXT = ["oauthIssuerLocation", "oauthSubjectIdClaim", "oauthClientId", "oauthIssuerId"];
const IDP_KEYS = ["id", "idpType", "identifiers", "customClaimMapping", ...IDP_TEXT];
/** The official entity id pattern. */
const ENTITY_ID = /^(?!\.)[.A-Za-z0-9_-]{1,255}$/;

export interface SeededOrganization {
  signIn: EmulatorSignIn | undefined;
  identityProviders: SeedIdentityProvider[];
  organizationSettings: EmulatorOrganizationSetting[];
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function fail(field: string, what: string): never {
  throw new Error(`seed: ${field} ${what}`);
}

function only(value: Record<string, unknown>, keys: string[], field: string): void {
  for (const k of Object.keys(value))
    if (!keys.includes(k)) fail(`${field}.${k}`, `is not a known key (known: ${keys.join(", ")})`);
}

function text(value: Record<string, unknown>, key: string, field: string): void {
  const v = value[key];
  if (v !== undefined && (typeof v !== "string" || v === ""))
    fail(`${field}.${key}`, "must be a non-empty string");
}

function identityProvider(v: unknown, i: number): SeedIdentityProvider {
  const field = `identityProviders[${i}]`;
  if (!isRecord(v)) fail(field, "must be a mapping (id, idpType, oauthSubjectIdClaim, ...)");
  only(v, IDP_KEYS, field);
  if (typeof v["id"] !== "string" || !ENTITY_ID.test(v["id"]))
    fail(`${field}.id`, "must be an id (letters, digits, . _ -)");
  if (v["idpType"] !== undefined && !IDP_TYPES.includes(v["idpType"] as string))
    fail(`${field}.idpType`, `must be one of ${IDP_TYPES.join(", ")}`);
  for (const k of IDP_TEXT) text(v, k, field);
  const ids = v["identifiers"];
  if (ids !== undefined && !(Array.isArray(ids) && ids.every((d) => typeof d === "string")))
    fail(`${field}.identifiers`, "must be a list of email domains");
  const claims = v["customClaimMapping"];
  if (
    claims !== undefined &&
    !(isRecord(claims) && Object.values(claims).every((c) => typeof c === "string"))
  )
    fail(`${field}.customClaimMapping`, "must map claim names to claim names");
  return v as unknown as SeedIdentityProvider;
}

function setting(v: unknown, i: number): EmulatorOrganizationSetting {
  const field = `organizationSettings[${i}]`;
  if (!isRecord(v)) fail(field, "must be a mapping (id, type, content)");
  only(v, ["id", "type", "content"], field);
  if (typeof v["id"] !== "string" || !ENTITY_ID.test(v["id"])) fail(`${field}.id`, "must be an id");
  if (typeof v["type"] !== "string" || v["type"] === "")
    fail(`${field}.type`, "must be the setting's type, e.g. JIT_PROVISIONING");
  if (!isRecord(v["content"])) fail(`${field}.content`, "must be a mapping, e.g. {enabled: true}");
  return v as unknown as EmulatorOrganizationSetting;
}

function listOf(seed: EmulatorSeed, key: "identityProviders" | "organizationSettings"): unknown[] {
  const v: unknown = seed[key];
  if (v === undefined) return [];
  if (!Array.isArray(v)) fail(key, "must be a list");
  return v;
}

/** The organization a seed describes, checked; throws an Error naming the field otherwise. */
export function seededOrganization(seed: EmulatorSeed | undefined): SeededOrganization {
  if (seed === undefined) return { signIn: undefined, identityProviders: [], organizationSettings: [] };
  const identityProviders = listOf(seed, "identityProviders").map(identityProvider);
  const seen = new Set<string>();
  for (const p of identityProviders) {
    if (seen.has(p.id)) fail(`identityProviders`, `has ${p.id} twice`);
    seen.add(p.id);
  }
  const organizationSettings = listOf(seed, "organizationSettings").map(setting);
  const org: unknown = seed.organization;
  if (org === undefined) return { signIn: undefined, identityProviders, organizationSettings };
  if (!isRecord(org))
    fail("organization", "must be a mapping (oauthIssuerLocation, oauthSubjectIdClaim, identityProvider)");
  only(org, ORGANIZATION_KEYS, "organization");
  for (const k of ORGANIZATION_KEYS) text(org, k, "organization");
  const signIn: EmulatorSignIn = {};
  if (typeof org["oauthIssuerLocation"] === "string") signIn.oauthIssuerLocation = org["oauthIssuerLocation"];
  if (typeof org["oauthSubjectIdClaim"] === "string") signIn.oauthSubjectIdClaim = org["oauthSubjectIdClaim"];
  if (typeof org["identityProvider"] === "string") {
    const id = org["identityProvider"];
    const idp = identityProviders.find((p) => p.id === id);
    if (idp === undefined)
      fail(
        "organization.identityProvider",
        `names ${id}, which identityProviders does not list: add it there (id, idpType, oauthIssuerLocation, oauthSubjectIdClaim)`,
      );
    signIn.identityProvider = idp;
  }
  return { signIn, identityProviders, organizationSettings };
}
