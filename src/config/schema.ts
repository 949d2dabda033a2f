/**
 * The config file schema (DESIGN section 3), with every default. `config.example.yaml` documents
 * each key; `LEAVES` lists them with their types for environment overrides, and a test keeps
 * the three in step.
 */
import { z } from "zod";
import { ENTRA_PATH_LEAVES, entraSection } from "../desired/sources/entra/schema.js";
import { oktaSource } from "../desired/sources/okta/schema.js";
import { GOOGLE_PATH_LEAVES, googleSource } from "../desired/sources/google/schema.js";
export { oktaSecretEnv } from "../desired/sources/okta/schema.js";
import { DATA_FILTER_LEAVES, dataFiltersSection } from "./data-filters-schema.js";
import { ldapSection } from "../desired/sources/ldap/schema.js";
import { CHANGES_LEAVES, changesSection } from "../desired/sources/changes/schema.js";
import { permissionsSection } from "./permissions-schema.js";
import { targetsSection } from "./targets-schema.js";
import { CAMPAIGN_LEAVES } from "./review-campaign-schema.js";
import { countOrPercent, revokeAfter } from "./values.js";
import { REVIEW_LEAVES, reviewSection } from "./review-schema.js";
import { columnsSection } from "./columns-schema.js";

const path = z.string().min(1, "must be a file path");
const int = (min: number, max: number, dflt: number) =>
  z.number().int("must be a whole number").min(min).max(max).default(dflt);
const list = z.array(z.string().min(1));

export { PERCENT_PATTERN } from "./values.js";

const target = z.strictObject({
  /** A URL or `embedded`; no default: a run without one stops (exit 4) and says how to set it. */
  baseUrl: z.string().min(1).optional(),
  apiProfile: z.enum(["auto", "v1", "legacy"]).default("auto"),
  tokenEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name")
    .default("USERSYNC_TOKEN"),
  tokenFile: path.optional(),
  timeouts: z
    .strictObject({
      connectMs: int(1, 600_000, 10_000),
      headersMs: int(1, 600_000, 30_000),
      bodyMs: int(1, 600_000, 30_000),
      responseMs: int(1, 3_600_000, 120_000),
    })
    .prefault({}),
  /** A larger answer is refused (256 MiB; at most 500 MiB, below what one string can hold). */
  maxResponseBytes: int(1024, 500 * 1024 * 1024, 256 * 1024 * 1024),
  caFile: path.optional(),
  allowInsecureHttp: z.boolean().default(false),
  embeddedData: path.optional(),
  /** The seed (emulator --seed's file) the embedded emulator starts from, e.g. the README's demo. */
  embeddedSeed: path.optional(),
});

const source = z.strictObject({
  type: z.enum(["file", "ldap", "entra", "okta", "google"]).default("file"),
  desired: path.optional(),
  groups: path.optional(),
  format: z.enum(["auto", "yaml", "csv"]).default("auto"),
  columns: columnsSection, // issue 49: columns-schema.ts, a CSV's own header mapped to the fields
  minUsers: countOrPercent({
    minCount: 1,
    help: 'must be a count (e.g. 900) or a percentage of managed users (e.g. "90%")',
    key: "source.minUsers",
  }).optional(),
  ldap: ldapSection.optional(),
  entra: entraSection.optional(),
  okta: oktaSource.optional(), // issue 30: desired/sources/okta/schema.ts
  google: googleSource.optional(), // issue 41: desired/sources/google/schema.ts
  changes: changesSection, // issue 48: read only what changed (desired/sources/changes/schema.ts)
});

const identity = z.strictObject({
  default: z.enum(["builtin", "external"]).default("builtin"),
  passwords: z.enum(["generate", "column", "file", "none"]).default("generate"),
  passwordFile: path.optional(),
});

export const policySection = z.strictObject({
  /** No default here: `full` for a directory (`source.type` ldap or entra), else `incremental` (see configSchema). */
  mode: z.enum(["incremental", "full"]).optional(),
  membership: z.enum(["exact", "additive"]).default("exact"),
  deletions: z.enum(["none", "revoke", "remove"]).default("revoke"),
  unlinkedCredentials: z.enum(["ignore", "delete"]).default("ignore"),
  maxDeletes: countOrPercent({
    minCount: 0,
    help: 'must be a count (e.g. 25) or a percentage of managed users (e.g. "10%")',
    key: "policy.maxDeletes",
  }).default("10%"),
  revokeAfter: revokeAfter.optional(), // the grace period for leavers (docs/configuration.md)
  revertWindow: revokeAfter.default("72h"), // the revert guard (docs/configuration.md)
  scope: z
    .strictObject({
      emailDomains: list.optional(),
      idPatterns: list.optional(),
      groups: list.optional(),
    })
    .prefault({}),
  protect: list.default([]),
  groups: z
    .strictObject({
      create: z.boolean().default(true),
      update: z.boolean().default(true),
      prune: z.boolean().default(false),
      createReferenced: z.boolean().default(false),
    })
    .prefault({}),
});

const execution = z.strictObject({
  concurrency: int(1, 256, 16),
  requestsPerSecond: z.number().positive().max(10_000).default(50),
  retries: int(0, 20, 5),
  pageSize: int(1, 1000, 500),
  circuitBreaker: int(1, 100_000, 20),
});

const output = z.strictObject({
  plan: path.optional(),
  report: path.optional(),
  journal: path.optional(),
  credentialsFile: path.optional(),
  /** Also one 0600 file per person in this folder (0700), for generated passwords. */
  credentialsDir: path.optional(),
  metricsFile: path.optional(),
  /** Set: generated passwords go to one Kubernetes Secret per user, `<prefix>-<hash>`, not the file. */
  credentialsSecretPrefix: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$/, "must be a lower-case DNS label of at most 32 characters")
    .optional(),
  /** Where the pod's service-account token, ca.crt and namespace are (overridable for tests). */
  kubernetesServiceAccountDir: path.optional(),
  /** Pushgateway base URL; the run's metrics are POSTed to /metrics/job/<job>/<label>/<value>… */
  metricsPushUrl: z.string().url("must be a URL, e.g. http://pushgateway:9091").optional(),
  metricsPushJob: z.string().min(1).default("usersync"),
  /** Grouping labels, `name=value` each (e.g. `cronjob=usersync-sync`). */
  metricsPushGrouping: z
    .array(z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*=.+$/, "must be name=value"))
    .default([]),
});

const state = z.strictObject({ file: path.optional() }); // what a run remembers for the next one
const logging = z.strictObject({
  level: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  format: z.enum(["auto", "json", "pretty"]).default("auto"),
});

export const configSchema = z
  .strictObject({
    target: target.prefault({}),
    source: source.prefault({}),
    identity: identity.prefault({}),
    policy: policySection.prefault({}),
    permissions: permissionsSection.prefault({}), // issue 23: permissions-schema.ts
    dataFilters: dataFiltersSection.prefault({}),
    execution: execution.prefault({}),
    output: output.prefault({}),
    state: state.prefault({}),
    logging: logging.prefault({}),
    targets: targetsSection, // issue 31: targets-schema.ts, targets.ts
    review: reviewSection.prefault({}), // review-schema.ts (issues 46, 47)
  })
  // A directory is a complete truth: `full` by default; a file may be an onboarding batch of ten.
  .transform((c) => ({
    ...c,
    policy: { ...c.policy, mode: c.policy.mode ?? (c.source.type === "file" ? "incremental" : "full") },
  }));

export type Config = z.infer<typeof configSchema>;

export type LeafKind = "string" | "number" | "boolean" | "list" | "countOrPercent";

/** Every leaf key with its type, for `USERSYNC_…` environment overrides. */
export const LEAVES: Readonly<Record<string, LeafKind>> = {
  "target.baseUrl": "string",
  "target.apiProfile": "string",
  "target.tokenEnv": "string",
  "target.tokenFile": "string",
  "target.timeouts.connectMs": "number",
  "target.timeouts.headersMs": "number",
  "target.timeouts.bodyMs": "number",
  "target.timeouts.responseMs": "number",
  "target.maxResponseBytes": "number",
  "target.caFile": "string",
  "target.allowInsecureHttp": "boolean",
  "target.embeddedData": "string",
  "target.embeddedSeed": "string",
  "source.desired": "string",
  "source.groups": "string",
  "source.format": "string",
  "source.type": "string",
  "source.minUsers": "countOrPercent",
  ...CHANGES_LEAVES,
  "identity.default": "string",
  "identity.passwords": "string",
  "identity.passwordFile": "string",
  "policy.mode": "string",
  "policy.membership": "string",
  "policy.deletions": "string",
  "policy.unlinkedCredentials": "string",
  "policy.maxDeletes": "countOrPercent",
  "policy.revokeAfter": "string",
  "policy.revertWindow": "string",
  "policy.scope.emailDomains": "list",
  "policy.scope.idPatterns": "list",
  "policy.scope.groups": "list",
  "policy.protect": "list",
  "policy.groups.create": "boolean",
  "policy.groups.update": "boolean",
  "policy.groups.prune": "boolean",
  "policy.groups.createReferenced": "boolean",
  "permissions.workspaces": "list",
  "permissions.maxRemovals": "countOrPercent",
  "permissions.organization.allowManage": "boolean",
  ...DATA_FILTER_LEAVES,
  "execution.concurrency": "number",
  "execution.requestsPerSecond": "number",
  "execution.retries": "number",
  "execution.pageSize": "number",
  "execution.circuitBreaker": "number",
  "output.plan": "string",
  "output.report": "string",
  "output.journal": "string",
  "output.credentialsFile": "string",
  "output.credentialsDir": "string",
  "output.metricsFile": "string",
  "output.credentialsSecretPrefix": "string",
  "output.kubernetesServiceAccountDir": "string",
  "output.metricsPushUrl": "string",
  "output.metricsPushJob": "string",
  "output.metricsPushGrouping": "list",
  "state.file": "string",
  ...REVIEW_LEAVES,
  "logging.level": "string",
  "logging.format": "string",
  ...CAMPAIGN_LEAVES,
};

/** Leaves holding file paths: relative values resolve against the config file's folder (or the cwd for env and flags). */
export const PATH_LEAVES: readonly string[] = [
  "target.tokenFile",
  "target.caFile",
  "target.embeddedData",
  "target.embeddedSeed",
  "source.desired",
  "source.groups",
  "source.ldap.caFile",
  "source.ldap.passwordFile",
  ...ENTRA_PATH_LEAVES,
  ...GOOGLE_PATH_LEAVES,
  "identity.passwordFile",
  "output.plan",
  "output.report",
  "output.journal",
  "output.credentialsFile",
  "output.credentialsDir",
  "output.metricsFile",
  "output.kubernetesServiceAccountDir",
  "state.file",
];

export { envNameOf } from "./env-names.js";
