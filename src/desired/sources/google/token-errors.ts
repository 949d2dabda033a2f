/**
 * A refused or failed Google token request in words a person can act on: an outage of the token
 * endpoint is exit 5 (SourceUnavailableError), a setup mistake exit 4 naming the fix (delegation,
 * the key, the subject, the pool, the impersonation). Nothing here sees a key or a token.
 */
import type { GoogleConfig } from "./schema.js";
import { DirectoryError, RETRYABLE_NETWORK_CODES, SourceUnavailableError } from "../../../errors.js";

/** What google-auth-library's error says: the OAuth error, its description, the status. */
function describe(err: unknown): { status?: number; error: string; description: string; code?: string } {
  const e = err as {
    response?: { status?: number; data?: unknown };
    code?: unknown;
    cause?: { code?: unknown };
    message?: unknown;
  };
  const data = (e.response?.data ?? {}) as { error?: unknown; error_description?: unknown };
  const nested =
    typeof data.error === "object" && data.error !== null
      ? (data.error as { message?: unknown; status?: unknown })
      : undefined;
  const code =
    typeof e.code === "string" ? e.code : typeof e.cause?.code === "string" ? e.cause.code : undefined;
  return {
    ...(e.response?.status !== undefined ? { status: e.response.status } : {}),
    error: typeof data.error === "string" ? data.error : String(nested?.status ?? ""),
    description: String(
      data.error_description ?? nested?.message ?? (typeof e.message === "string" ? e.message : ""),
    )
      .split("\n")[0]!
      .slice(0, 300),
    ...(code !== undefined ? { code } : {}),
  };
}

export function tokenError(
  err: unknown,
  o: {
    config: GoogleConfig;
    /** The credentials file's fields, as far as its words need them. */
    json: Record<string, unknown>;
    kind: string;
    actor: string;
    scopes: readonly string[];
  },
): Error {
  if (err instanceof DirectoryError) return err;
  const d = describe(err);
  const clientId = typeof o.json.client_id === "string" ? o.json.client_id : "(the key's client_id)";
  const where =
    `getting a Google token (${o.kind}, as ${o.actor}) failed: ${d.status ?? d.code ?? ""} ${d.error}${d.description ? ` (${d.description})` : ""}`.replace(
      /\s+/g,
      " ",
    );
  const outage =
    (d.code !== undefined && RETRYABLE_NETWORK_CODES.has(d.code)) ||
    (d.status !== undefined && (d.status >= 500 || d.status === 429));
  if (outage)
    return new SourceUnavailableError({
      message: `${where}: Google's token endpoint cannot be reached now; nothing was sent, a later run may succeed`,
    });
  let fix: string;
  if (d.error === "unauthorized_client")
    fix = `domain-wide delegation is not authorised for the client id ${clientId} with the scopes ${o.scopes.join(",")}: in the Admin console, Security > Access and data control > API controls > Manage Domain Wide Delegation, add that client id with exactly these scopes (docs/google.md)`;
  else if (/Invalid JWT Signature/i.test(d.description))
    fix = `the key ${String(o.json.private_key_id ?? "")} is not (any more) a key of ${String(o.json.client_email)}: create a new key, or move to workload identity federation, which has no key (docs/google.md)`;
  else if (
    /invalid email or user id|not a valid email/i.test(d.description) ||
    (d.error === "invalid_grant" && o.config.subject !== undefined && /user/i.test(d.description))
  )
    fix = `source.google.subject (${o.config.subject ?? ""}) is not a user of the Workspace: name an admin's primary email`;
  else if (d.error === "invalid_target")
    fix = `the workload identity pool provider in the credentials' audience (${String(o.json.audience ?? "")}) does not exist or is disabled: recreate the config with gcloud iam workload-identity-pools create-cred-config (docs/google.md)`;
  else if (d.error === "invalid_grant" && o.kind === "workload identity federation")
    fix = `the pool refused the Kubernetes service-account token: check the provider's issuer (the cluster's OIDC issuer), its attribute condition and the token's audience, and that the pod mounts the projected token (docs/google.md)`;
  else if (
    /getAccessToken|PERMISSION_DENIED/i.test(d.description) ||
    (d.status === 403 && o.kind === "workload identity federation")
  )
    fix = `the federated principal may not impersonate ${o.actor}: grant it roles/iam.workloadIdentityUser on that service account (docs/google.md)`;
  else if (d.code === "ENOTFOUND" || d.code === "ERR_INVALID_URL")
    fix = "the token endpoint's host is unknown: check token_uri / token_url in the credentials file";
  else fix = "check the credentials file and docs/google.md";
  return new DirectoryError({ message: `${where}. Fix: ${fix}` });
}
