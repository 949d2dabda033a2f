/**
 * `target.caFile`: the client trusts a private CA (added to Node's roots, not replacing them)
 * and refuses a certificate it cannot verify, at once (no retries) and saying what to do. The
 * emulator speaks plain HTTP, so a TLS-terminating proxy on 127.0.0.1 stands in front of it,
 * with the test-only CA and server certificate of fixtures/tls (see its README).
 */
import { readFileSync } from "node:fs";
import { connect, type AddressInfo } from "node:net";
import { createServer, type Server } from "node:tls";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeError } from "../../src/cli/main.js";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { ConfigError, NetworkError } from "../../src/errors.js";
import { createLogger } from "../../src/logging.js";
import { createClient } from "../../src/service/index.js";
import { TEST_TOKEN, TEST_TOKEN_USER } from "../helpers/env.js";

const TLS_DIR = new URL("../../fixtures/tls/", import.meta.url);
const CA_FILE = fileURLToPath(new URL("ca.pem", TLS_DIR));

let emulator: EmulatorHandle;
let proxy: Server;
let httpsUrl: string;
let connections = 0;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, tokens: { [TEST_TOKEN]: TEST_TOKEN_USER } });
  const upstream = new URL(emulator.url);
  proxy = createServer(
    {
      cert: readFileSync(new URL("server.pem", TLS_DIR)),
      key: readFileSync(new URL("server-key.pem", TLS_DIR)),
    },
    (socket) => {
      const plain = connect(Number(upstream.port), upstream.hostname);
      socket.pipe(plain).pipe(socket);
      const end = () => (socket.destroy(), plain.destroy());
      socket.on("error", end);
      plain.on("error", end);
    },
  );
  // A client that rejects the certificate makes the handshake fail on the proxy's side: expected.
  proxy.on("tlsClientError", () => {});
  proxy.on("connection", () => (connections += 1));
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  httpsUrl = `https://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  await emulator.close();
});

const clientFor = (caFile?: string) =>
  createClient({
    baseUrl: httpsUrl,
    token: TEST_TOKEN,
    profile: "v1",
    requestsPerSecond: 0,
    sleep: () => Promise.resolve(),
    logger: createLogger({ level: "silent" }),
    ...(caFile !== undefined ? { caFile } : {}),
  });

describe("TLS with target.caFile", () => {
  it("talks to a service whose certificate the CA file vouches for", async () => {
    const client = await clientFor(CA_FILE);
    try {
      expect(await client.getProfile()).toEqual({ userId: TEST_TOKEN_USER, organizationId: "emulated-org" });
      await client.createGroup({ id: "g", name: "G", parents: [] });
      expect((await client.listGroups()).map((g) => g.id)).toContain("g");
    } finally {
      await client.close();
    }
  });

  it("without the CA file: refuses the certificate at once and names target.caFile", async () => {
    const before = emulator.requestLog().length;
    const connectionsBefore = connections;
    // Profile detection may already be the request that fails; either way the error is the same.
    let error: unknown;
    try {
      const client = await clientFor();
      error = await client.getProfile().then(
        () => undefined,
        (err: unknown) => err,
      );
      await client.close();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).causeCode).toBe("UNABLE_TO_VERIFY_LEAF_SIGNATURE");
    expect((error as Error).message).toMatch(/certificate/);
    expect((error as Error).message).toContain("target.caFile");
    expect((error as NetworkError).retryable).toBe(false);
    // One connection: a certificate that is not trusted now will not be on a retry.
    expect(connections - connectionsBefore).toBe(1);
    expect(describeError(error)).toBe(
      "usersync: GET /api/v1/profile failed: unable to verify the first certificate; if the service's certificate is issued by a private CA, point target.caFile at that CA's certificate (PEM) (UNABLE_TO_VERIFY_LEAF_SIGNATURE).\n",
    );
    // Nothing reached the service behind the proxy.
    expect(emulator.requestLog().length).toBe(before);
  });

  it("a CA file that cannot be read is a configuration error naming the file", async () => {
    const missing = fileURLToPath(new URL("no-such-ca.pem", TLS_DIR));
    await expect(clientFor(missing)).rejects.toThrow(ConfigError);
    await expect(clientFor(missing)).rejects.toThrow(`cannot read CA file ${missing}`);
  });
});
