/**
 * Generated initial passwords delivered as Kubernetes Secrets, one per user, created through the
 * API with the pod's service account (token, CA and namespace from the service-account folder,
 * the address from KUBERNETES_SERVICE_HOST/PORT). One Secret per user, not per run: an operator
 * hands one password over and deletes its Secret, and a create is never a read-modify-write of a
 * shared object (no lost updates between concurrent steps).
 *
 * Like the credentials file, the Secret is written before `passwordFor` resolves, so the user's
 * create is only sent once the password is stored: a crash never leaves a user whose password
 * nobody knows. Only this run's password is reused for an email (a retried create); a Secret
 * left from an earlier run is replaced by a fresh password (see passwords.ts for why).
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { ConfigError, SafetyRefusal } from "../errors.js";
import { httpDestination, type HttpDestination, type HttpRequest } from "./http.js";
import { generatePassword } from "./passwords.js";
import type { PasswordProvider } from "../apply/index.js";

export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";
export const SECRET_LABEL = "usersync.io/initial-password";

export interface KubeSecretOptions {
  /** Secret names are `<prefix>-<16 hex of sha256(lower-case email)>`. */
  prefix: string;
  /** Holds `token`, `ca.crt` and `namespace`. */
  serviceAccountDir?: string;
  env: NodeJS.ProcessEnv;
  now?: () => Date;
}

interface Kube {
  base: string;
  token: string;
  namespace: string;
  http: HttpDestination;
}

export function secretName(prefix: string, email: string): string {
  return `${prefix}-${createHash("sha256").update(email.toLowerCase()).digest("hex").slice(0, 16)}`;
}

async function readKube(options: KubeSecretOptions): Promise<Kube> {
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = options.env["KUBERNETES_SERVICE_HOST"];
  const port = options.env["KUBERNETES_SERVICE_PORT"] ?? "443";
  if (!host) {
    throw new SafetyRefusal({
      message:
        "output.credentialsSecretPrefix delivers passwords to Kubernetes Secrets, but KUBERNETES_SERVICE_HOST is not set: run it in a pod, or use --credentials-file (nothing was sent)",
    });
  }
  const read = async (name: string): Promise<string> => {
    try {
      return (await fs.readFile(join(dir, name), "utf8")).trim();
    } catch (err) {
      throw new ConfigError({
        message: `service account file ${join(dir, name)} cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"}); check automountServiceAccountToken and output.kubernetesServiceAccountDir`,
      });
    }
  };
  const [token, ca, namespace] = [await read("token"), await read("ca.crt"), await read("namespace")];
  const hostPart = host.includes(":") ? `[${host}]` : host;
  return {
    base: `https://${hostPart}:${port}`,
    token,
    namespace,
    http: httpDestination({ ca }),
  };
}

async function call(kube: Kube, method: HttpRequest["method"], path: string, body?: unknown) {
  let res;
  try {
    res = await kube.http.send(`${kube.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${kube.token}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      timeoutMs: 30_000,
    });
  } catch (err) {
    throw new SafetyRefusal({
      message: `the Kubernetes API at ${kube.base} cannot be reached (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); the user's create was not sent`,
    });
  }
  const json = (await res.body.json().catch(() => ({}))) as Record<string, unknown>;
  return { status: res.status, json };
}

function refusal(status: number, json: Record<string, unknown>, what: string): SafetyRefusal {
  const hint =
    status === 401 || status === 403
      ? " Check the usersync ServiceAccount, Role and RoleBinding (create, get and update on secrets)."
      : "";
  return new SafetyRefusal({
    message: `${what} answered ${status} (${String(json["reason"] ?? "")}); the user's create was not sent.${hint}`,
  });
}

export async function openKubeSecrets(options: KubeSecretOptions): Promise<PasswordProvider> {
  const kube = await readKube(options);
  const now = options.now ?? (() => new Date());
  const collection = `/api/v1/namespaces/${encodeURIComponent(kube.namespace)}/secrets`;
  const secretOf = (email: string, password: string, at: Date) => ({
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: {
      name: secretName(options.prefix, email),
      labels: { "app.kubernetes.io/managed-by": "usersync", [SECRET_LABEL]: "true" },
      annotations: { "usersync.io/email": email, "usersync.io/created-at": at.toISOString() },
    },
    stringData: { email, password },
  });
  // A Secret write is checked the moment the provider opens: RBAC problems stop the run before any create.
  const probe = await call(
    kube,
    "GET",
    `${collection}?labelSelector=${encodeURIComponent(SECRET_LABEL)}&limit=1`,
  );
  if (probe.status !== 200) throw refusal(probe.status, probe.json, `listing Secrets in ${kube.namespace}`);

  const drawn = new Map<string, string>();
  async function deliver(email: string): Promise<string> {
    const again = drawn.get(email.toLowerCase());
    if (again !== undefined) return again;
    const password = await store(email);
    drawn.set(email.toLowerCase(), password);
    return password;
  }

  async function store(email: string): Promise<string> {
    const at = now();
    const password = generatePassword();
    const created = await call(kube, "POST", collection, secretOf(email, password, at));
    if (created.status === 201) return password;
    if (created.status !== 409)
      throw refusal(created.status, created.json, `creating a Secret in ${kube.namespace}`);
    const path = `${collection}/${secretName(options.prefix, email)}`;
    const existing = await call(kube, "GET", path);
    if (existing.status !== 200) throw refusal(existing.status, existing.json, `reading ${path}`);
    const meta = existing.json["metadata"] as { resourceVersion?: string };
    const body = secretOf(email, password, at);
    const replaced = await call(kube, "PUT", path, {
      ...body,
      metadata: { ...body.metadata, resourceVersion: meta.resourceVersion },
    });
    if (replaced.status !== 200) throw refusal(replaced.status, replaced.json, `replacing ${path}`);
    return password;
  }

  return {
    source: "generate",
    passwordFor: (email) => deliver(email),
    close: async () => {
      await kube.http.close();
    },
  };
}
