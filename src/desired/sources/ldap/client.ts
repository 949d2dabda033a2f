/**
 * The LDAP connection: connect (ldaps, or ldap with StartTLS), bind with a password read from
 * an environment variable or a file (never from the config), paged searches (RFC 2696) page by
 * page. Every failure stops the run before any request to the service, with the server's message
 * and the password scrubbed from it: a directory that is down, unreachable, busy or too slow is a
 * SourceUnavailableError (exit 5, a scheduler retries), anything else (a wrong password, base DN
 * or filter) a DirectoryError (exit 4: the settings need fixing).
 */
import { readFile } from "node:fs/promises";
import type { Client, Control, Entry } from "ldapts";
import { DirectoryError, RETRYABLE_NETWORK_CODES, SourceUnavailableError } from "../../../errors.js";
import type { Config } from "../../../config/schema.js";

export type LdapConfig = NonNullable<Config["source"]["ldap"]>;

export interface LdapConnection {
  /** Every entry of a paged search, one page at a time (deleted objects too with `showDeleted`, AD). */
  pages(options: {
    base: string;
    filter: string;
    attributes: string[];
    showDeleted?: boolean;
  }): AsyncGenerator<Entry[]>;
  /** One entry by its DN (a base-scope search), `undefined` if the server returns none. */
  entry(options: { dn: string; attributes: string[]; showDeleted?: boolean }): Promise<Entry | undefined>;
  close(): Promise<void>;
}

async function readPassword(config: LdapConfig, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (config.passwordFile !== undefined) {
    try {
      return (await readFile(config.passwordFile, "utf8")).replace(/\r?\n$/, "");
    } catch (err) {
      throw new DirectoryError({
        message: `cannot read the LDAP bind password file ${config.passwordFile} (${(err as NodeJS.ErrnoException).code ?? "error"}): check source.ldap.passwordFile`,
      });
    }
  }
  return env[config.passwordEnv];
}

/** The server's message, with the password cut out should a server ever echo it. */
function describe(err: unknown, password: string | undefined): string {
  const e = err as { message?: string; code?: unknown; name?: string };
  // ldapts: "<diagnostic message> Code: 0x31", the diagnostic often empty; the class names the result.
  let text = (e.message ?? String(err)).replace(/\s*Code: 0x[0-9a-f]+$/i, "").trim();
  if (typeof e.code === "number") {
    const name = (e.name ?? "LDAP error")
      .replace(/Error$/, "")
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .toLowerCase();
    text = `${name} (LDAP result ${e.code})${text ? `: ${text}` : ""}`;
  } else if (typeof e.code === "string" && !text.includes(e.code)) text = `${e.code}: ${text}`;
  if (password) text = text.split(password).join("***");
  return text;
}

/** Connection failures besides the ones the HTTP client retries: the network, not the settings. */
const UNREACHABLE = new Set(["EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN", "ENETDOWN"]);
/** ldapts's own words for a connection that failed, closed or timed out. */
const CONNECTION_LOST =
  /^(Connection timeout|Connection closed|Socket error|Socket connection not established)|Operation timed out/;
/** LDAP results that say "not now": timeLimitExceeded (3), busy (51), unavailable (52). */
const TRANSIENT_RESULTS = new Set([3, 51, 52]);

/**
 * The directory is down, unreachable or too slow, rather than wrongly configured. A refused
 * connection counts (slapd stopped, a pod restarting); an unknown host name (ENOTFOUND) does not:
 * that is a typo in source.ldap.url far more often than an outage.
 */
export function isDirectoryOutage(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e.code === "string") return RETRYABLE_NETWORK_CODES.has(e.code) || UNREACHABLE.has(e.code);
  if (typeof e.code === "number") return TRANSIENT_RESULTS.has(e.code);
  return typeof e.message === "string" && CONNECTION_LOST.test(e.message);
}

export async function openLdap(config: LdapConfig, env: NodeJS.ProcessEnv): Promise<LdapConnection> {
  const password = await readPassword(config, env);
  if (config.bindDn !== undefined && (password === undefined || password === ""))
    throw new DirectoryError({
      message: `no LDAP bind password for ${config.bindDn}: set the environment variable ${config.passwordEnv} or source.ldap.passwordFile`,
    });
  const tlsOptions = config.caFile !== undefined ? { ca: [await readCa(config.caFile)] } : undefined;
  // Loaded when an LDAP source is read, not at start (docs/architecture.md, "Start-up").
  const { Client, Control } = await import("ldapts");
  const client = new Client({
    url: config.url,
    timeout: config.timeoutMs,
    connectTimeout: config.timeoutMs,
    ...(tlsOptions && config.url.startsWith("ldaps:") ? { tlsOptions } : {}),
  });
  const fail: Fail = (step, err) => {
    const message = `the directory ${config.url} ${step} failed: ${describe(err, password)}. Nothing was sent to the service.`;
    return isDirectoryOutage(err) ? new SourceUnavailableError({ message }) : new DirectoryError({ message });
  };
  try {
    if (config.startTls) await client.startTLS(tlsOptions ?? {});
  } catch (err) {
    await client.unbind().catch(() => undefined);
    throw fail("StartTLS", err);
  }
  if (config.bindDn !== undefined) {
    try {
      await client.bind(config.bindDn, password!);
    } catch (err) {
      await client.unbind().catch(() => undefined);
      throw fail(`bind as ${config.bindDn}`, err);
    }
  }
  return searches(client, config, fail, new Control(SHOW_DELETED_OID, { critical: true }));
}

/** LDAP_SERVER_SHOW_DELETED_OID (AD): a search that sees deleted objects too (tombstones.ts). */
const SHOW_DELETED_OID = "1.2.840.113556.1.4.417";

type Fail = (step: string, err: unknown) => DirectoryError | SourceUnavailableError;

/** AD's GUIDs (objectGUID, a controller's invocationId) are binary: asked for as buffers, as spelt. */
const BINARY = new Map([
  ["objectguid", ["objectGUID"]],
  ["invocationid", ["invocationId", "invocationID"]],
]);
function bufferAttributes(attributes: string[]): string[] {
  return attributes.flatMap((a) => {
    const spellings = BINARY.get(a.toLowerCase());
    return spellings === undefined ? [] : [a, ...spellings.filter((s) => s !== a)];
  });
}

/** The searches of a bound connection; every failure becomes a DirectoryError through `fail`. */
function searches(client: Client, config: LdapConfig, fail: Fail, showDeleted: Control): LdapConnection {
  return {
    async *pages({ base, filter, attributes, showDeleted: deleted }) {
      try {
        const options = {
          scope: "sub" as const,
          filter,
          attributes,
          explicitBufferAttributes: bufferAttributes(attributes),
          paged: { pageSize: config.pageSize },
        };
        for await (const page of client.searchPaginated(base, options, deleted ? showDeleted : undefined))
          yield page.searchEntries;
      } catch (err) {
        throw fail(`search under ${base} with filter ${filter}`, err);
      }
    },
    async entry({ dn, attributes, showDeleted: deleted }) {
      try {
        const options = {
          scope: "base" as const,
          filter: "(objectClass=*)",
          attributes,
          explicitBufferAttributes: bufferAttributes(attributes),
        };
        const { searchEntries } = await client.search(dn, options, deleted ? showDeleted : undefined);
        return searchEntries[0];
      } catch (err) {
        throw fail(`read of ${dn} (attributes ${attributes.join(", ")})`, err);
      }
    },
    async close() {
      await client.unbind().catch(() => undefined);
    },
  };
}

async function readCa(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    throw new DirectoryError({
      message: `cannot read the LDAP CA file ${file} (${(err as NodeJS.ErrnoException).code ?? "error"}): check source.ldap.caFile`,
    });
  }
}
