/**
 * The digest of the source config a picture was read with: `source.type`, its section
 * (`source.entra`, ...) and the identity default, canonical JSON (keys sorted), SHA-256. The
 * sections hold no secrets (variable names and file paths only). `source.changes` is left out:
 * how often to read whole does not change what a read gives.
 */
import { createHash } from "node:crypto";
import type { Config } from "../../../config/schema.js";

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  return value;
}

export function sourceDigest(config: Config): string {
  const type = config.source.type;
  const section = (config.source as Record<string, unknown>)[type];
  const text = JSON.stringify(canonical({ type, section, identity: config.identity.default }));
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}
