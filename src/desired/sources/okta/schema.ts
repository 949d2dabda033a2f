/**
 * `source.okta` (issue 30): the people and groups of an Okta organization as the desired state;
 * see docs/okta.md. It lives in the directory's folder beside its reader; config/schema.ts
 * composes it into the config file's schema.
 */
import { z } from "zod";
import { groupRuleSchema } from "../group-rule-schema.js";

const path = z.string().min(1, "must be a file path");
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name");
const template = z.string().min(1);
const percent = (dflt: string, max: number) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?%$/, 'must be a percentage such as "50%"')
    .refine((v) => Number(v.slice(0, -1)) <= max, `must be at most ${max}%`)
    .default(dflt);

export const OKTA_FIELDS = ["email", "id", "displayName", "firstname", "lastname"] as const;

/**
 * The org URL, `https://<org>.okta.com` (or a custom domain): no path, not the admin console's
 * `-admin` host. Plain http only on the loopback, for the stand-in.
 */
const orgUrl = z
  .string()
  .url("must be the org URL, e.g. https://acme.okta.com")
  .superRefine((value, ctx) => {
    const url = new URL(value);
    const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
    const problem =
      url.protocol !== "https:" && !(url.protocol === "http:" && loopback)
        ? "must start with https:// (plain http only for a local stand-in on 127.0.0.1)"
        : /-admin\./i.test(url.hostname)
          ? `is the Admin Console's host: use the org URL without "-admin" (https://${url.hostname.replace(/-admin\./i, ".")})`
          : url.pathname !== "/" || url.search !== ""
            ? `has a path (${url.pathname}${url.search}): use the org URL alone, e.g. ${url.origin}`
            : undefined;
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .transform((v) => v.replace(/\/$/, ""));

/** An OAuth 2.0 service app with private_key_jwt (clientId set), or an SSWS API token (discouraged). */
const credentials = z
  .strictObject({
    clientId: z.string().min(1).optional(),
    /** The `kid` of the app's public key in Okta; sent in the assertion's header. */
    keyId: z.string().min(1).optional(),
    /** PEM (PKCS#8) or a private JWK (JSON); wins over privateKeyEnv. */
    privateKeyFile: path.optional(),
    privateKeyEnv: envName.default("USERSYNC_OKTA_PRIVATE_KEY"),
    algorithm: z.enum(["RS256", "RS384", "RS512", "ES256", "ES384", "ES512"]).default("RS256"),
    apiTokenEnv: envName.default("USERSYNC_OKTA_API_TOKEN"),
    apiTokenFile: path.optional(),
  })
  .prefault({});

/** A rule picks Okta groups by exactly one of groupId, groupName or search; the rest is the shared rule. */
const groupRule = groupRuleSchema(
  {
    groupId: z.string().min(1).optional(),
    groupName: z.string().min(1).optional(),
    /** An Okta group `search` expression, e.g. `profile.name sw "analytics-"`. */
    search: z.string().min(1).optional(),
  },
  { mode: "one", message: "a group rule picks by exactly one of groupId, groupName or search" },
).refine((r) => r.parents !== "directory", {
  path: ["parents"],
  error:
    "Okta has no nested groups, so parents: directory has nothing to read: give a list of parent group ids, or leave parents unset",
});

export const oktaSource = z.strictObject({
  orgUrl,
  credentials,
  /** Share of each rate-limit window's remaining quota left to the organization's other integrations. */
  headroom: percent("50%", 95),
  /** Requests at once (Okta also limits concurrent requests per org). */
  concurrency: z.number().int().min(1).max(32).default(4),
  timeoutMs: z.number().int().min(1).max(600_000).default(30_000),
  /** Longest wait in all for rate limits in one run; past it the read is not whole (exit 5). */
  maxWaitSeconds: z.number().int().min(1).max(86_400).default(900),
  /** STAGED people (created, never activated): present, or absent like SUSPENDED and DEPROVISIONED. */
  staged: z.enum(["present", "absent"]).default("absent"),
  /** External (Okta signs people in; the default) or builtin (the service's own login). */
  identity: z.enum(["external", "builtin"]).default("external"),
  /** Templates over the user's profile: `{email}`, `{firstName}`, `{login}`, `{id}` (the Okta user id). */
  attributes: z
    .strictObject({
      email: template.default("{email}"),
      id: template.optional(),
      displayName: template.optional(),
      firstname: template.default("{firstName}"),
      lastname: template.default("{lastName}"),
    })
    .prefault({}),
  lowerCase: z.array(z.enum(OKTA_FIELDS)).default([]),
  groups: z.array(groupRule).min(1, "pick at least one group: people are the members of the picked groups"),
});

export type OktaConfig = z.infer<typeof oktaSource>;

/** Environment variables that hold Okta secrets, not settings (the env layer must not read them). */
export function oktaSecretEnv<T>(file: T, get: (tree: T, leaf: string) => unknown): string[] {
  const named = ["privateKeyEnv", "apiTokenEnv"].map((k) => get(file, `source.okta.credentials.${k}`));
  return [
    "USERSYNC_OKTA_PRIVATE_KEY",
    "USERSYNC_OKTA_API_TOKEN",
    ...named.filter((n) => typeof n === "string"),
  ];
}

/** File paths of source.okta, resolved against the config file's folder. */
export const OKTA_PATH_LEAVES = [
  "source.okta.credentials.privateKeyFile",
  "source.okta.credentials.apiTokenFile",
];
