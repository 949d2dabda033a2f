/**
 * The local emulator of the service API (DESIGN section 8): a real HTTP server on 127.0.0.1
 * serving both API profiles from one store. See `types.ts` for the options and the handle.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { FaultEngine } from "./faults.js";
import { Persister, loadPersisted } from "./persistence.js";
import { RequestLog } from "./request-log.js";
import { createPipeline } from "./server.js";
import { Store } from "./store.js";
import type { EmulatorHandle, EmulatorOptions } from "./types.js";

export { loadSeedFile } from "./persistence.js";
export { RESET_HEADER_MODES, type ResetHeaderMode } from "./rate-headers.js";
export type * from "./types.js";

export const DEFAULT_TOKENS: Readonly<Record<string, string>> = { "dev-token": "admin" };

/** Who may call: the accepted tokens (each the caller it names), the forbidden and the expired ones. */
function tokensOf(o: EmulatorOptions) {
  return {
    tokens: o.tokens ?? DEFAULT_TOKENS,
    forbiddenTokens: new Set(o.forbiddenTokens ?? []),
    expiredTokens: new Set(o.expiredTokens ?? []),
  };
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const store = new Store();
  // A persisted store is the newer truth: it takes precedence over the seed.
  const persisted = options.persistPath ? await loadPersisted(options.persistPath) : undefined;
  const initial = persisted ?? options.seed;
  if (initial) store.load(initial);

  const persister = options.persistPath ? new Persister(options.persistPath, store) : undefined;
  // A seeded store that was never saved is written at once, so the file exists from the start.
  if (persister && !persisted && initial) {
    persister.markDirty();
    await persister.flush();
  }
  const faults = new FaultEngine(options.faults);
  const log = new RequestLog(options.requestLogLimit ?? 100_000);
  let base = "";

  const server = createServer(
    { keepAlive: true, keepAliveTimeout: 5000 },
    createPipeline({
      store,
      faults,
      log,
      persister,
      profile: options.profile ?? "both",
      ...tokensOf(options),
      builtinIdp: options.builtinIdp ?? true,
      userManagement: options.userManagement ?? "on",
      base: () => base,
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url: base,
    port,
    state: () => store.snapshot(),
    counters: () => log.counters(),
    requestLog: () => log.list(),
    resetLog: () => log.reset(),
    setFaults: (f) => faults.set(f),
    close: () =>
      (closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        await persister?.flush();
      })()),
  };
}
