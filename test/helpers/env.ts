/**
 * Starts the emulator on 127.0.0.1 (port 0) with a known token and a client pointed at it.
 * Retries are instant by default (a `sleep` that resolves at once) and the client-side rate
 * limit is off and the logger is silent, so tests run fast and quiet; override through `client`. Always `await close()`.
 */
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorOptions } from "../../src/emulator/types.js";
import { createLogger } from "../../src/logging.js";
import { createClient, type ClientOptions } from "../../src/service/index.js";
import type { ServiceClient } from "../../src/service/types.js";

export const TEST_TOKEN = "test-token-5f2c9a";
export const TEST_TOKEN_USER = "admin";

export interface EmulatorClientEnv {
  emulator: EmulatorHandle;
  client: ServiceClient;
  close(): Promise<void>;
}

export async function withEmulatorClient(
  opts: { emulator?: EmulatorOptions; client?: Partial<ClientOptions> } = {},
): Promise<EmulatorClientEnv> {
  const emulator = await startEmulator({
    port: 0,
    tokens: { [TEST_TOKEN]: TEST_TOKEN_USER },
    ...opts.emulator,
  });
  let client: ServiceClient;
  try {
    client = await createClient({
      baseUrl: emulator.url,
      token: TEST_TOKEN,
      profile: "auto",
      requestsPerSecond: 0,
      sleep: () => Promise.resolve(),
      random: () => 0.5,
      logger: createLogger({ level: "silent" }),
      ...opts.client,
    });
  } catch (err) {
    await emulator.close();
    throw err;
  }
  return {
    emulator,
    client,
    async close() {
      await client.close();
      await emulator.close();
    },
  };
}
