/**
 * The local emulator of the service API (DESIGN section 8): a real HTTP server on 127.0.0.1
 * serving both API profiles from one store. See `types.ts` for the options and the handle.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { FaultEngine } from "./faults.js";
import { seededOrganization, type SeededOrganization } from "./organization-seed.js";
import { Persister, loadPersisted } from "./persistence.js";
import { RequestLog } from "./request-log.js";
import { createPipeline } from "./server.js";
import { Store } from "./store.js";
import type { EmulatorHandle, EmulatorOptions } from "./types.js";

export { loadSeedFile } from "./persistence.js";
export { RESET_HEADER_MODES, type ResetHeaderMode } from "./rate-headers.js";
export { BROKEN_ANSWER_MODES, DEFAULT_OVERSIZE_BYTES, DEFAULT_TRICKLE_MS } from "./broken-answers.js";
export type * from "./types.js";

export const DEFAULT_TOKENS: Readonly<Record<string, string>> = { "dev-token": "admin" };

/** Maps each token owner the store lacks (`mapTokenOwners`), so `/api/v1/profile` names a listed user. True when any was added. */
function mapTokenOwners(store: Store, owners: readonly string[]): boolean {
  let added = false;
  for (const id of new Set(owners)) {
    if (store.mappings.has(id)) continue;
    store.putMapping({ id, groups: [] });
    added = true;
  }
  return added;
}

/** The store as persisted, else as seeded, with the token owners mapped; its persister, if any. */
async function openStore(
  options: EmulatorOptions,
  owners: readonly string[],
): Promise<{ store: Store; persister: Persister | undefined }> {
  const store = new Store();
  // A persisted store is the newer truth: it takes precedence over the seed.
  const persisted = options.persistPath ? await loadPersisted(options.persistPath) : undefined;
  const initial = persisted ?? options.seed;
  if (initial) store.load(initial);
  const ownersAdded = mapTokenOwners(store, owners);
  const persister = options.persistPath ? new Persister(options.persistPath, store) : undefined;
  // A seeded store that was never saved is written at once, so the file exists from the start.
  if (persister && ((!persisted && initial) || ownersAdded)) {
    persister.markDirty();
    await persister.flush();
  }
  return { store, persister };
}

/** How the organization signs people in and its settings: the options', else the seed's; never persisted. */
function setOrganization(store: Store, options: EmulatorOptions, seeded: SeededOrganization): void {
  if (options.organizationId !== undefined) store.organizationId = options.organizationId;
  store.signIn = options.signIn ?? seeded.signIn;
  const idp = store.signIn?.identityProvider;
  store.identityProviders = [
    ...seeded.identityProviders.filter((p) => p.id !== idp?.id),
    ...(idp ? [idp] : []),
  ].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  store.organizationSettings = options.organizationSettings ?? seeded.organizationSettings;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const tokens = options.tokens ?? DEFAULT_TOKENS;
  const owners = options.mapTokenOwners === false ? [] : Object.values(tokens);
  // Checked before the store opens: a seed's organization that cannot be served stops the start.
  const organization = seededOrganization(options.seed);
  const { store, persister } = await openStore(options, owners);
  setOrganization(store, options, organization);
  const faults = new FaultEngine(options.faults);
  const log = new RequestLog(options.requestLogLimit ?? 100_000, options.onRequest);
  let base = "";

  const server = createServer(
    { keepAlive: true, keepAliveTimeout: 5000 },
    createPipeline({
      store,
      faults,
      log,
      persister,
      profile: options.profile ?? "both",
      tokens,
      forbiddenTokens: new Set(options.forbiddenTokens ?? []),
      expiredTokens: new Set(options.expiredTokens ?? []),
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
