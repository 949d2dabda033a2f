/**
 * A small in-memory ServiceClient that behaves like the service (exists on duplicates, notFound
 * on missing deletes, 404 HttpError on missing updates) with scripted failures per operation
 * and object. For scheduler tests that need exact control; HTTP behaviour is tested against
 * the emulator.
 */
import { HttpError } from "../../src/errors.js";
import { noPermissionsApi } from "../../src/service/permissions-api.js";
import type {
  CallOptions,
  ClientStats,
  IdpUser,
  Mapping,
  ServiceClient,
  UserGroup,
} from "../../src/service/types.js";

export interface FakeClient extends ServiceClient {
  idp: Map<string, IdpUser & { password?: string }>;
  mappings: Map<string, Mapping>;
  groups: Map<string, UserGroup>;
  /** `op:key` -> HTTP status to answer (every time) e.g. `createIdpUser:jane@x.com` -> 400. */
  failWith: Map<string, number>;
  /** `op:key` -> a promise the write waits for before answering, to hold a step open. */
  gates: Map<string, Promise<void>>;
  /** Order in which writes completed, as `op:key`. */
  completed: string[];
  maxInFlight: number;
}

export function createFakeClient(options: { delayMs?: number } = {}): FakeClient {
  let nextAuth = 1;
  let inFlight = 0;
  const stats: ClientStats = { requests: 0, retries: 0, throttled: 0 };
  // 0: answer on the next microtask, to measure the scheduler itself.
  const delay = (): Promise<void> =>
    options.delayMs === 0 ? Promise.resolve() : new Promise((r) => setTimeout(r, options.delayMs ?? 1));

  const write = async <T>(
    op: string,
    key: string,
    opts: CallOptions | undefined,
    fn: () => T,
  ): Promise<T> => {
    inFlight += 1;
    fake.maxInFlight = Math.max(fake.maxInFlight, inFlight);
    try {
      opts?.onAttempt?.(1);
      stats.requests += 1;
      await delay();
      await fake.gates.get(`${op}:${key}`);
      const status = fake.failWith.get(`${op}:${key}`);
      if (status !== undefined) {
        throw new HttpError({
          method: "POST",
          path: `/fake/${op}/${key}`,
          status,
          detail: "scripted failure",
          traceId: "trace-1",
        });
      }
      const out = fn();
      fake.completed.push(`${op}:${key}`);
      return out;
    } finally {
      inFlight -= 1;
    }
  };
  const notFound = (path: string): HttpError =>
    new HttpError({ method: "PUT", path, status: 404, detail: "not found" });

  const fake: FakeClient = {
    profile: "v1",
    baseUrl: "fake://",
    idp: new Map(),
    mappings: new Map(),
    groups: new Map(),
    failWith: new Map(),
    gates: new Map(),
    completed: [],
    maxInFlight: 0,
    getProfile: async () => ({ userId: "admin" }),
    listIdpUsers: async () =>
      [...fake.idp.values()].map(({ email, displayName, authenticationId }) => ({
        email,
        displayName,
        authenticationId,
      })),
    getIdpUser: async (email) => {
      const u = fake.idp.get(email.toLowerCase());
      return u && { email: u.email, displayName: u.displayName, authenticationId: u.authenticationId };
    },
    createIdpUser: (user, opts) =>
      write("createIdpUser", user.email, opts, () => {
        if (fake.idp.has(user.email.toLowerCase())) return { status: "exists" as const };
        const created = {
          email: user.email,
          displayName: user.displayName,
          authenticationId: `auth-${nextAuth++}`,
        };
        fake.idp.set(
          user.email.toLowerCase(),
          user.password === undefined ? created : { ...created, password: user.password },
        );
        return { status: "created" as const, value: created };
      }),
    updateIdpUser: (user, opts) =>
      write("updateIdpUser", user.email, opts, () => {
        const u = fake.idp.get(user.email.toLowerCase());
        if (!u) throw notFound(`/idp/${user.email}`);
        u.displayName = user.displayName;
      }),
    deleteIdpUser: (email, opts) =>
      write("deleteIdpUser", email, opts, () =>
        fake.idp.delete(email.toLowerCase()) ? "deleted" : "notFound",
      ),
    listMappings: async () => [...fake.mappings.values()],
    getMapping: async (id) => fake.mappings.get(id),
    createMapping: (m, opts) =>
      write("createMapping", m.id, opts, () => {
        if (fake.mappings.has(m.id)) return { status: "exists" as const };
        fake.mappings.set(m.id, { ...m });
        return { status: "created" as const, value: m };
      }),
    updateMapping: (m, opts) =>
      write("updateMapping", m.id, opts, () => {
        if (!fake.mappings.has(m.id)) throw notFound(`/mappings/${m.id}`);
        fake.mappings.set(m.id, { ...m });
        return m;
      }),
    deleteMapping: (id, opts) =>
      write("deleteMapping", id, opts, () => (fake.mappings.delete(id) ? "deleted" : "notFound")),
    listGroups: async () => [...fake.groups.values()],
    getGroup: async (id) => fake.groups.get(id),
    createGroup: (g, opts) =>
      write("createGroup", g.id, opts, () => {
        if (fake.groups.has(g.id)) return { status: "exists" as const };
        fake.groups.set(g.id, { ...g });
        return { status: "created" as const, value: g };
      }),
    updateGroup: (g, opts) =>
      write("updateGroup", g.id, opts, () => {
        if (!fake.groups.has(g.id)) throw notFound(`/groups/${g.id}`);
        fake.groups.set(g.id, { ...g });
        return g;
      }),
    deleteGroup: (id, opts) =>
      write("deleteGroup", id, opts, () => (fake.groups.delete(id) ? "deleted" : "notFound")),
    getGroupMembers: async (id) =>
      fake.groups.has(id)
        ? {
            status: "read" as const,
            members: [...fake.mappings.values()].filter((m) => m.groups.includes(id)).map((m) => m.id),
          }
        : { status: "notFound" as const },
    changeGroupMembers: ({ groupId, op, userIds }, opts) =>
      write(op === "add" ? "addMembers" : "removeMembers", groupId, opts, () => {
        if (!fake.groups.has(groupId) || userIds.some((id) => !fake.mappings.has(id))) return "notFound";
        for (const id of userIds) {
          const m = fake.mappings.get(id)!;
          const groups = new Set(m.groups);
          if (op === "add") groups.add(groupId);
          else groups.delete(groupId);
          fake.mappings.set(id, { ...m, groups: [...groups].sort() });
        }
        return "done";
      }),
    // Permission steps are tested against the emulator.
    permissions: noPermissionsApi("fake"),
    stats: () => ({ ...stats }),
    close: async () => {},
  };
  return fake;
}
