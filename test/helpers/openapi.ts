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
  for (const [name, file] of Object.entries(SPEC_FILES)) {
    created.addSchema(JSON.parse(readFileSync(new URL(file, SPEC_DIR), "utf8")) as object, name);
  }
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
