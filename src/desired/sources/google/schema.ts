/**
 * `source.google` (issue 41): the people and groups of a Google Workspace customer as the desired
 * state; see docs/google.md. It lives in the directory's folder beside its reader;
 * config/schema.ts composes it into the config file's schema.
 */
import { z } from "zod";
import { groupRuleSchema } from "../group-rule-schema.js";

const path = z.string().min(1, "must be a file path");
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name");

/** https, or plain http on the loopback for a local stand-in; no trailing slash. */
const httpsUrl = (example: string) =>
  z
    .string()
    .url(`must be a URL, e.g. ${example}`)
    .superRefine((value, ctx) => {
      const url = new URL(value);
      const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
      if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback))
        ctx.addIssue({
          code: "custom",
          message: "must start with https:// (plain http only for a local stand-in on 127.0.0.1)",
        });
    })
    .transform((v) => v.replace(/\/$/, ""));

/** A rule picks Google groups by exactly one of email, groupId or query; the rest is the shared rule (docs/sources.md). */
const groupRule = groupRuleSchema(
  {
    /** The group's email address (groups.get). */
    email: z.string().min(3).optional(),
    /** The group's unique id (groups.get). */
    groupId: z.string().min(1).optional(),
    /** A Directory API group search, e.g. `email:analytics-*` (groups.list `query`). */
    query: z.string().min(1).optional(),
  },
  { mode: "one", message: "a group rule picks by exactly one of email, groupId or query" },
).refine((r) => r.parents !== "directory", {
  path: ["parents"],
  error:
    "parents: directory is not read from Google yet (nested groups count as members, through includeDerivedMembership): give a list of parent group ids, or leave parents unset",
});

export const googleSource = z
  .strictObject({
    /** The Workspace customer: `my_customer` (the admin's own) or its id (`C0…`); or give `domain`. */
    customer: z.string().min(1).optional(),
    /** One domain of the customer instead of all of them. */
    domain: z.string().min(3).optional(),
    /** The credentials JSON: a service-account key or an external_account (workload identity federation) config. */
    credentialsFile: path.optional(),
    /** Where credentialsFile's path is read from when it is not set. */
    credentialsEnv: envName.default("GOOGLE_APPLICATION_CREDENTIALS"),
    /** The admin a service-account key impersonates (domain-wide delegation); unset: the service account has an admin role itself. */
    subject: z.string().email("must be the email of a Workspace admin").optional(),
    /** The Directory API's root (a stand-in's URL in a rehearsal). */
    apiUrl: httpsUrl("https://admin.googleapis.com").default("https://admin.googleapis.com"),
    /** PEM CAs added to Node's roots, for the API and the token endpoints (a TLS-inspecting proxy, a stand-in). */
    caFile: path.optional(),
    concurrency: z.number().int().min(1).max(32).default(4),
    timeoutMs: z.number().int().min(1).max(600_000).default(30_000),
    /** Longest wait in all for quota errors in one run; past it the read is not whole (exit 5). */
    maxWaitSeconds: z.number().int().min(1).max(86_400).default(300),
    /** External (Google signs people in; the default) or builtin (the service's own login). */
    identity: z.enum(["external", "builtin"]).default("external"),
    /** primaryEmail lower-cased (the default), or as Google spells it. */
    lowerCase: z.array(z.enum(["email"])).default(["email"]),
    groups: z.array(groupRule).min(1, "pick at least one group: people are the members of the picked groups"),
  })
  .refine((g) => !(g.customer !== undefined && g.domain !== undefined), {
    error: "give customer or domain, not both",
  });

export type GoogleConfig = z.infer<typeof googleSource>;
export type GoogleRule = GoogleConfig["groups"][number];

/** File paths of source.google, resolved against the config file's folder. */
export const GOOGLE_PATH_LEAVES = ["source.google.credentialsFile", "source.google.caFile"];
