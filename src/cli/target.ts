/**
 * Connecting to the service named by `target`: a URL (with its token), or `embedded`, the
 * emulator started inside this process. Refuses, before anything is sent, what would be unsafe:
 * no target at all or a missing token (a bad or insecure URL is refused by loadConfig).
 */
import type { Logger } from "pino";
import { ConfigError } from "../errors.js";
import { loadSeedFile, startEmulator, type EmulatorHandle, type EmulatorSeed } from "../emulator/index.js";
import { createClient, type ClientOptions, type ServiceClient } from "../service/index.js";
import type { LoadedConfig } from "../config/index.js";

export const EMBEDDED = "embedded";
/** The token of the embedded emulator: it never leaves the process. */
const EMBEDDED_TOKEN = "embedded-token";

export interface Connection {
  client: ServiceClient;
  /** For messages: the URL, or "embedded emulator". */
  label: string;
  embedded?: EmulatorHandle;
  close(): Promise<void>;
}

export const NO_TARGET_MESSAGE =
  "no service to talk to: set target.baseUrl in the config (or --base-url, or USERSYNC_TARGET_BASE_URL) " +
  'to your service\'s URL, or to "embedded" to rehearse against the built-in emulator.';

export async function connect(options: {
  config: LoadedConfig;
  logger: Logger;
  /** Seeds a new embedded emulator (the demo). */
  embeddedSeed?: EmulatorSeed;
}): Promise<Connection> {
  const { config, logger } = options;
  const target = config.target;
  if (target.baseUrl === undefined) throw new ConfigError({ message: NO_TARGET_MESSAGE });
  const execution = config.execution;
  const common = {
    profile: target.apiProfile,
    concurrency: execution.concurrency,
    requestsPerSecond: execution.requestsPerSecond,
    retries: execution.retries,
    pageSize: execution.pageSize,
    timeouts: target.timeouts,
    maxResponseBytes: target.maxResponseBytes,
    logger,
  };

  if (target.baseUrl === EMBEDDED) {
    const seed =
      options.embeddedSeed ?? (target.embeddedSeed ? await readSeed(target.embeddedSeed) : undefined);
    return connectEmbedded({
      common,
      ...(seed ? { seed } : {}),
      ...(target.embeddedData ? { persistPath: target.embeddedData } : {}),
    });
  }

  // loadConfig has checked the URL (syntax, http(s), no credentials, no plain http to a remote host).
  const url = new URL(target.baseUrl);
  const token = config.token;
  if (token === undefined || token === "") {
    throw new ConfigError({
      message:
        `no API token: set the environment variable ${target.tokenEnv}` +
        (target.tokenFile
          ? ` or put the token in ${target.tokenFile}`
          : " or point target.tokenFile at a file holding it") +
        ".",
    });
  }
  const client = await createClient({
    ...common,
    baseUrl: url.href.replace(/\/$/, ""),
    token,
    ...(target.caFile ? { caFile: target.caFile } : {}),
  });
  return { client, label: url.origin, close: () => client.close() };
}

/** The seed of `target.embeddedSeed`; a file that cannot be read or is no seed is a config error (exit 4). */
async function readSeed(file: string): Promise<EmulatorSeed> {
  try {
    return await loadSeedFile(file);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const why = typeof code === "string" ? `cannot be read (${code})` : (err as Error).message;
    throw new ConfigError({
      message: `target.embeddedSeed: the seed file ${file} ${why}. Point it at a seed such as fixtures/demo/organization.yaml (docs/emulator.md).`,
    });
  }
}

/** Starts the emulator inside this process and connects to it; the connection closes both. */
async function connectEmbedded(options: {
  common: Omit<ClientOptions, "baseUrl" | "token">;
  seed?: EmulatorSeed;
  persistPath?: string;
}): Promise<Connection> {
  const emulator = await startEmulator({
    port: 0,
    tokens: { [EMBEDDED_TOKEN]: "admin" },
    ...(options.seed ? { seed: options.seed } : {}),
    ...(options.persistPath ? { persistPath: options.persistPath } : {}),
  });
  try {
    const client = await createClient({ ...options.common, baseUrl: emulator.url, token: EMBEDDED_TOKEN });
    return {
      client,
      label: "embedded emulator",
      embedded: emulator,
      close: async () => {
        await client.close();
        await emulator.close();
      },
    };
  } catch (err) {
    await emulator.close();
    throw err;
  }
}
