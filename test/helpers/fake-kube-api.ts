/**
 * A fake of the Kubernetes API's Secret endpoints over HTTPS on 127.0.0.1:0 (fixtures/tls): checks
 * the bearer token, stores Secrets per namespace, and answers like the real API server: 201 on
 * create (stringData folded into base64 data), 409 AlreadyExists, 404 NotFound, 409 Conflict on a
 * stale resourceVersion, 401 Unauthorized, a Status object as every error body.
 * `serviceAccountDir()` writes token, ca.crt and namespace as a pod would see them.
 */
import { createServer, type Server } from "node:https";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import type { IncomingMessage, ServerResponse } from "node:http";

export interface StoredSecret {
  metadata: {
    name: string;
    namespace: string;
    resourceVersion: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp: string;
  };
  data: Record<string, string>;
  type?: string;
}

const TLS = new URL("../../fixtures/tls/", import.meta.url);

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message, reason, code }));
}

function toStored(body: Record<string, unknown>, namespace: string, version: number): StoredSecret {
  const meta = (body["metadata"] ?? {}) as StoredSecret["metadata"];
  const data: Record<string, string> = { ...((body["data"] ?? {}) as Record<string, string>) };
  for (const [k, v] of Object.entries((body["stringData"] ?? {}) as Record<string, string>))
    data[k] = Buffer.from(v, "utf8").toString("base64");
  return {
    metadata: {
      ...meta,
      namespace,
      resourceVersion: String(version),
      creationTimestamp: new Date().toISOString(),
    },
    data,
    ...(typeof body["type"] === "string" ? { type: body["type"] } : {}),
  };
}

export async function startFakeKubeApi(options: { token?: string; namespace?: string } = {}) {
  const token = options.token ?? "fake-sa-token";
  const namespace = options.namespace ?? "iam";
  const secrets = new Map<string, StoredSecret>(); // key: namespace/name
  const requests: { method: string; path: string }[] = [];
  let version = 1;

  async function handle(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    const url = new URL(req.url ?? "/", "https://x");
    requests.push({ method: req.method ?? "", path: url.pathname });
    if (req.headers.authorization !== `Bearer ${token}`)
      return status(res, 401, "Unauthorized", "Unauthorized");
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/secrets(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m) return status(res, 404, "NotFound", "the server could not find the requested resource");
    const ns = decodeURIComponent(m[1]!);
    const name = m[2] === undefined ? undefined : decodeURIComponent(m[2]);
    const send = (code: number, obj: unknown) => {
      res.writeHead(code, { "content-type": "application/json" });
      res.end(JSON.stringify(obj));
    };
    const withKind = (s: StoredSecret) => ({ apiVersion: "v1", kind: "Secret", ...s });
    if (req.method === "GET" && name === undefined) {
      const items = [...secrets.values()].filter((s) => s.metadata.namespace === ns).map(withKind);
      return send(200, { apiVersion: "v1", kind: "SecretList", metadata: {}, items });
    }
    if (req.method === "POST" && name === undefined) {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      const metaName = (parsed["metadata"] as { name?: string } | undefined)?.name;
      if (!metaName) return status(res, 422, "Invalid", "metadata.name: Required value");
      if (secrets.has(`${ns}/${metaName}`))
        return status(res, 409, "AlreadyExists", `secrets "${metaName}" already exists`);
      const stored = toStored(parsed, ns, ++version);
      secrets.set(`${ns}/${metaName}`, stored);
      return send(201, withKind(stored));
    }
    if (name === undefined) return status(res, 405, "MethodNotAllowed", "method not allowed");
    const existing = secrets.get(`${ns}/${name}`);
    if (!existing) return status(res, 404, "NotFound", `secrets "${name}" not found`);
    if (req.method === "GET") return send(200, withKind(existing));
    if (req.method === "DELETE") {
      secrets.delete(`${ns}/${name}`);
      return send(200, { kind: "Status", status: "Success" });
    }
    if (req.method === "PUT") {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      const rv = (parsed["metadata"] as { resourceVersion?: string } | undefined)?.resourceVersion;
      if (rv !== undefined && rv !== existing.metadata.resourceVersion)
        return status(
          res,
          409,
          "Conflict",
          "the object has been modified; please apply your changes to the latest version and try again",
        );
      const stored = toStored(parsed, ns, ++version);
      stored.metadata.creationTimestamp = existing.metadata.creationTimestamp;
      secrets.set(`${ns}/${name}`, stored);
      return send(200, withKind(stored));
    }
    return status(res, 405, "MethodNotAllowed", "method not allowed");
  }

  const server: Server = createServer(
    { cert: await readFile(new URL("server.pem", TLS)), key: await readFile(new URL("server-key.pem", TLS)) },
    (req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (body += c));
      req.on("end", () => void handle(req, res, body));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    namespace,
    secrets,
    requests,
    /** The password each stored Secret holds, by its `email` key. */
    passwords(): Map<string, string> {
      const out = new Map<string, string>();
      for (const s of secrets.values())
        if (s.data["email"] && s.data["password"])
          out.set(
            Buffer.from(s.data["email"], "base64").toString(),
            Buffer.from(s.data["password"], "base64").toString(),
          );
      return out;
    },
    env(): NodeJS.ProcessEnv {
      return { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(port) };
    },
    /** A folder laid out like /var/run/secrets/kubernetes.io/serviceaccount. */
    async serviceAccountDir(tokenOverride?: string): Promise<string> {
      const dir = await mkdtemp(join(tmpdir(), "usersync-sa-"));
      await writeFile(join(dir, "token"), tokenOverride ?? token);
      await writeFile(join(dir, "ca.crt"), await readFile(new URL("ca.pem", TLS)));
      await writeFile(join(dir, "namespace"), namespace);
      return dir;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
