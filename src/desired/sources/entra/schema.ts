/**
 * `source.entra` (issue 28): people and groups read straight from Microsoft Entra ID through
 * Microsoft Graph; see docs/entra.md. The group rules are the shared rule
 * (src/desired/sources/group-rule-schema.ts) with Entra's own ways to pick groups.
 */
import { z } from "zod";
import { groupRuleSchema } from "../group-rule-schema.js";

const path = z.string().min(1, "must be a file path");
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name");
const httpsUrl = z
  .string()
  .regex(
    /^https:\/\/[^/?#]+\/?$/,
    "must be https://HOST[:PORT] (no path): the identity platform and Graph speak TLS only",
  );
/** A Graph user property, as Graph spells it (`mail`, `userPrincipalName`, `employeeId`). */
const property = z.string().regex(/^[A-Za-z][A-Za-z0-9]*$/, "must be a Graph user property, e.g. mail");

/** Entra picks groups one way (exactly one); the rest is the shared rule (docs/sources.md). */
const entraGroupRule = groupRuleSchema(
  {
    objectId: z
      .string()
      .regex(/^[0-9a-fA-F-]{36}$/, "must be a group's object id (a GUID)")
      .optional(),
    displayName: z.string().min(1).optional(),
    /** An OData `$filter` on /v1.0/groups, e.g. "startswith(displayName,'Analytics-')". */
    filter: z.string().min(1).optional(),
  },
  {
    mode: "one",
    message: "a group rule picks groups one way: objectId, displayName or filter (exactly one)",
  },
);

export const entraSection = z
  .strictObject({
    /** The directory (tenant) id, or its domain such as contoso.onmicrosoft.com. */
    tenant: z.string().regex(/^[A-Za-z0-9.-]{1,253}$/, "must be a tenant id (a GUID) or domain"),
    /** The app registration's application (client) id. */
    clientId: z
      .string()
      .regex(/^[0-9a-fA-F-]{36}$/, "must be the app registration's application (client) id, a GUID"),
    /** How usersync proves it is that app: no secret at all (workloadIdentity) is the recommended way. */
    credential: z.enum(["workloadIdentity", "certificate", "secret"]).default("workloadIdentity"),
    /** workloadIdentity: the projected service-account token (default: $AZURE_FEDERATED_TOKEN_FILE). */
    tokenFile: path.optional(),
    /** certificate: a PEM file holding the certificate and its private key. */
    certificateFile: path.optional(),
    /** secret: read from this variable, or from secretFile (which wins). */
    secretEnv: envName.default("USERSYNC_ENTRA_CLIENT_SECRET"),
    secretFile: path.optional(),
    authorityHost: httpsUrl.default("https://login.microsoftonline.com"),
    graphUrl: httpsUrl.default("https://graph.microsoft.com"),
    /** PEM CA bundle added to Node's roots for both hosts (a TLS-inspecting proxy, a stand-in). */
    caFile: path.optional(),
    includeGuests: z.boolean().default(false),
    attributes: z
      .strictObject({
        /** The first of these properties that has a value is the email. */
        email: z.array(property).min(1).default(["mail", "userPrincipalName"]),
        id: property.optional(),
        displayName: property.optional().default("displayName"),
        firstname: property.optional().default("givenName"),
        lastname: property.optional().default("surname"),
        /** `auto`: from the organization's oauthSubjectIdClaim; a property name: that, always. */
        authenticationId: z.union([z.literal("auto"), property]).default("auto"),
      })
      .prefault({}),
    lowerCase: z.array(z.enum(["email", "id"])).default(["email"]),
    groups: z
      .array(entraGroupRule)
      .min(1, "name at least one group rule: usersync reads members of the groups it picks"),
    concurrency: z.number().int().min(1).max(16).default(4),
    timeoutMs: z.number().int().min(1).max(600_000).default(30_000),
    /** The longest the run waits on Graph's throttling in total before it gives up (exit 5). */
    throttleBudgetMs: z.number().int().min(0).max(3_600_000).default(300_000),
  })
  .superRefine((c, ctx) => {
    if (c.credential === "certificate" && c.certificateFile === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["certificateFile"],
        message: "credential: certificate needs certificateFile",
      });
  });

export type EntraConfig = z.infer<typeof entraSection>;

/** Its keys holding file paths (resolved against the config file's folder). */
export const ENTRA_PATH_LEAVES = ["tokenFile", "certificateFile", "secretFile", "caFile"].map(
  (k) => `source.entra.${k}`,
);
