/**
 * JSON:API request validation per the official `JsonApiUserIn` / `JsonApiUserGroupIn` schemas,
 * stricter where the real service is: unknown attributes and relationships are rejected.
 * Every message names the member (`data.attributes.firstname`) so a client's error is actionable.
 */
import { ProblemError, isObject } from "./http-util.js";

export const ID_PATTERN = /^(?!\.)[.A-Za-z0-9_-]{1,255}$/;
export const MAX_ATTRIBUTE_LENGTH = 255;

export interface ResourceSpec {
  type: "user" | "userGroup";
  attributes: readonly string[];
  relationships: Readonly<Record<string, "toMany" | "toOne">>;
}

export interface ParsedResource {
  id: string;
  /** Only the attributes sent; `undefined` for an explicit null (clears it). */
  attributes: Map<string, string | undefined>;
  /** Only the relationships sent: the linked group ids, deduplicated in order. */
  relationships: Map<string, string[]>;
}

const RESOURCE_MEMBERS = new Set(["id", "type", "attributes", "relationships", "links", "meta"]);

/** `{data: resource}`: the wrapper every JSON:API write takes, except the legacy PUT. */
export function parseDocument(body: unknown, spec: ResourceSpec): ParsedResource {
  if (!isObject(body) || !("data" in body))
    throw new ProblemError(400, "body must be a JSON:API document with a `data` member");
  return parseResource(body.data, spec, "data");
}

export function parseResource(value: unknown, spec: ResourceSpec, where: string): ParsedResource {
  if (!isObject(value)) throw new ProblemError(400, `${where}: must be a resource object`);
  for (const key of Object.keys(value)) {
    if (!RESOURCE_MEMBERS.has(key)) throw new ProblemError(400, `${where}.${key}: unknown member`);
  }
  if (value.type !== spec.type) throw new ProblemError(400, `${where}.type: must be "${spec.type}"`);
  const id = value.id;
  if (typeof id !== "string" || !ID_PATTERN.test(id)) {
    throw new ProblemError(
      400,
      `${where}.id: must match ${ID_PATTERN.source} (1-255 of A-Z a-z 0-9 . _ -, not starting with a dot)`,
    );
  }
  return {
    id,
    attributes: parseAttributes(value.attributes, spec, `${where}.attributes`),
    relationships: parseRelationships(value.relationships, spec, `${where}.relationships`),
  };
}

function parseAttributes(value: unknown, spec: ResourceSpec, where: string): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  if (value === undefined) return out;
  if (!isObject(value)) throw new ProblemError(400, `${where}: must be an object`);
  for (const [key, v] of Object.entries(value)) {
    if (!spec.attributes.includes(key)) {
      throw new ProblemError(
        400,
        `${where}.${key}: unknown attribute of ${spec.type} (known: ${spec.attributes.join(", ")})`,
      );
    }
    if (v === null) out.set(key, undefined);
    else if (typeof v !== "string") throw new ProblemError(400, `${where}.${key}: must be a string`);
    else if (v.length > MAX_ATTRIBUTE_LENGTH)
      throw new ProblemError(400, `${where}.${key}: at most ${MAX_ATTRIBUTE_LENGTH} characters`);
    else out.set(key, v);
  }
  return out;
}

function parseRelationships(value: unknown, spec: ResourceSpec, where: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (value === undefined) return out;
  if (!isObject(value)) throw new ProblemError(400, `${where}: must be an object`);
  for (const [key, rel] of Object.entries(value)) {
    const kind = spec.relationships[key];
    if (!kind) {
      const known = Object.keys(spec.relationships);
      throw new ProblemError(
        400,
        `${where}.${key}: unknown relationship of ${spec.type} (known: ${known.join(", ") || "none"})`,
      );
    }
    if (!isObject(rel) || !("data" in rel))
      throw new ProblemError(400, `${where}.${key}: must be an object with \`data\``);
    const data = rel.data;
    if (kind === "toOne") {
      out.set(key, data === null ? [] : [linkage(data, `${where}.${key}.data`)]);
    } else {
      if (!Array.isArray(data))
        throw new ProblemError(400, `${where}.${key}.data: must be an array of {id, type}`);
      const ids = data.map((d, i) => linkage(d, `${where}.${key}.data[${i}]`));
      out.set(key, [...new Set(ids)]);
    }
  }
  return out;
}

function linkage(value: unknown, where: string): string {
  if (!isObject(value)) throw new ProblemError(400, `${where}: must be {id, type: "userGroup"}`);
  if (value.type !== "userGroup") throw new ProblemError(400, `${where}.type: must be "userGroup"`);
  if (typeof value.id !== "string" || !ID_PATTERN.test(value.id))
    throw new ProblemError(400, `${where}.id: must be a valid id`);
  return value.id;
}
