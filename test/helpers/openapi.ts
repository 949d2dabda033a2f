/**
 * Validates values against the official OpenAPI schemas shipped in `@gooddata/api-client-tiger`,
 * so tests prove that what we send and what the emulator answers match the real service's contract.
 */
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";

// The package's `exports` do not expose the spec files, so they are read from node_modules directly.
const SPEC_DIR = new URL("../../node_modules/@gooddata/api-client-tiger/esm/generated/", import.meta.url);
const SPEC_FILES = {
  auth: "auth-json-api/openapi-spec.json",
  metadata: "metadata-json-api/openapi-spec.json",
} as const;

export type SpecName = keyof typeof SPEC_FILES;

// ajv-formats is CommonJS with a default export; under NodeNext its type is the module namespace.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function instance(): Ajv {
  if (ajv) return ajv;
  // OpenAPI 3.0 schemas carry `nullable`, `example`, `discriminator`...: not JSON Schema keywords.
  const created = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(created);
  for (const name of Object.keys(SPEC_FILES) as SpecName[])
    created.addSchema(typelessNullable(structuredClone(spec(name))) as object, name);
  return (ajv = created);
}

/** Errors of `value` against `components/schemas/<schemaName>` of the spec; empty when valid. */
export function validateAgainst(specName: SpecName, schemaName: string, value: unknown): string[] {
  const key = `${specName}#/components/schemas/${schemaName}`;
  let validate = compiled.get(key);
  if (!validate) {
    // getSchema resolves a fragment against the registered spec, so its internal $refs resolve too.
    validate = instance().getSchema(key);
    if (!validate) throw new Error(`no schema ${schemaName} in the ${specName} spec`);
    compiled.set(key, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? "invalid"}`);
}

interface SpecParameter {
  name: string;
  in: string;
  schema?: { type?: string; items?: { enum?: string[] }; enum?: string[] };
}
interface SpecOperation {
  parameters?: Array<SpecParameter | { $ref: string }>;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
}
interface Spec {
  paths: Record<string, Record<string, SpecOperation>>;
  components?: { parameters?: Record<string, SpecParameter> };
}

/**
 * OpenAPI 3.0 lets `nullable` stand beside a `oneOf` without `type` (e.g. the workspace's
 * `parent` linkage), which ajv refuses: such a schema becomes "this, or null".
 */
function typelessNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(typelessNullable);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = typelessNullable(v);
  if (out.nullable !== true || "type" in out) return out;
  const { nullable: _nullable, description, ...rest } = out;
  return { ...(description !== undefined ? { description } : {}), anyOf: [rest, { type: "null" }] };
}

const specs = new Map<SpecName, Spec>();
function spec(name: SpecName): Spec {
  let s = specs.get(name);
  if (!s)
    specs.set(name, (s = JSON.parse(readFileSync(new URL(SPEC_FILES[name], SPEC_DIR), "utf8")) as Spec));
  return s;
}

/**
 * Problems of one request as an operation of the official spec: its path and method must be an
 * operation of one of the specs, and every query parameter one the operation declares, with an
 * allowed value (enums of `include` and `metaInclude`, integers of `page` and `size`). Empty when
 * the real service would understand the request's URL.
 */
export function operationProblems(method: string, url: string): string[] {
  const { pathname, searchParams } = new URL(url, "http://x");
  const found = pathOf(pathname);
  if (!found) return [`${method} ${pathname}: no path of the official specs matches`];
  const { name, template } = found;
  const s = spec(name);
  const op = s.paths[template]?.[method.toLowerCase()];
  if (!op) return [`${method} ${template}: no such operation in the ${name} spec`];
  const params = (op.parameters ?? []).map((p) =>
    "$ref" in p ? s.components?.parameters?.[p.$ref.split("/").pop() ?? ""] : p,
  );
  const problems: string[] = [];
  for (const key of new Set(searchParams.keys())) {
    const p = params.find((x) => x?.in === "query" && x.name === key);
    if (!p) {
      problems.push(`${method} ${template}: query parameter ${key} is not declared`);
      continue;
    }
    const allowed = p.schema?.items?.enum ?? p.schema?.enum;
    for (const raw of searchParams.getAll(key))
      for (const v of p.schema?.type === "array" ? raw.split(",") : [raw]) {
        if (allowed && !allowed.includes(v))
          problems.push(`${method} ${template}: ${key}=${v} is not one of ${allowed.join(", ")}`);
        if (p.schema?.type === "integer" && !/^-?\d+$/.test(v))
          problems.push(`${method} ${template}: ${key}=${v} is not an integer`);
      }
  }
  return problems;
}

/** The spec and path template a request path matches, e.g. `/api/v1/entities/users/{id}`. */
export function pathOf(pathname: string): { name: SpecName; template: string } | undefined {
  for (const name of Object.keys(SPEC_FILES) as SpecName[])
    for (const template of Object.keys(spec(name).paths))
      if (new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(pathname))
        return { name, template };
  return undefined;
}

/**
 * Problems of a request body as the body of its operation in the official spec (the schema of
 * its `requestBody`, inline or a `$ref`), plus those of its URL (`operationProblems`). Empty
 * when the real service would accept the request's shape.
 */
export function requestBodyProblems(method: string, url: string, body: unknown): string[] {
  const problems = operationProblems(method, url);
  if (problems.length > 0) return problems;
  const { name, template } = pathOf(new URL(url, "http://x").pathname)!;
  const op = spec(name).paths[template]![method.toLowerCase()]!;
  const [media] = Object.keys(op.requestBody?.content ?? {});
  if (media === undefined) return body === undefined ? [] : [`${method} ${template} takes no body`];
  // A JSON pointer into the registered spec: `/` is `~1` in a pointer, `{` `}` are percent-encoded in a URI.
  const pointer = ["paths", template, method.toLowerCase(), "requestBody", "content", media, "schema"]
    .map((p) => encodeURIComponent(p.replace(/~/g, "~0").replace(/\//g, "~1")))
    .join("/");
  const key = `${name}#/${pointer}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = instance().getSchema(key);
    if (!validate) throw new Error(`no request body schema at ${key}`);
    compiled.set(key, validate);
  }
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e) => `${method} ${template} body${e.instancePath} ${e.message ?? "invalid"}`,
  );
}
