/**
 * Just-in-time provisioning (issue 38, point 6): with the organization settings JIT_PROVISIONING
 * or JWT_JIT_PROVISIONING on (official `metadata-json-api`, `organizationSetting.type`), the
 * service makes a mapping for a person at their first sign-in, under an id of its own, and can set
 * their groups from the login's claim at every sign-in. usersync adopts such mappings by
 * `authenticationId` (plan/adopt.ts); the plan says that the service provisions too, and names the
 * groups the setting's content names, which both sides then write. Read with one GET; a service
 * that has no settings endpoint (404, 403, legacy) is taken to have none.
 */
import { z } from "zod";
import { HttpError } from "../errors.js";
import { ENTITY_MEDIA } from "./codec.js";
import type { Transport } from "./transport.js";
import type { JitProvisioning } from "./types.js";

const JIT_TYPES = ["JIT_PROVISIONING", "JWT_JIT_PROVISIONING"] as const;

const SETTINGS = z.looseObject({
  data: z.array(
    z.looseObject({
      id: z.string(),
      attributes: z.looseObject({ type: z.string().nullish(), content: z.unknown() }).optional(),
    }),
  ),
});

/** Group ids in a setting's content: any list of strings under a key that speaks of groups. */
function groupsIn(content: unknown): string[] {
  if (typeof content !== "object" || content === null) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(content))
    if (/group/i.test(key) && Array.isArray(value)) out.push(...value.filter((v) => typeof v === "string"));
  return out;
}

/** Off when the content says `enabled: false`; a setting that exists is otherwise on. */
const enabled = (content: unknown): boolean =>
  !(typeof content === "object" && content !== null && (content as { enabled?: unknown }).enabled === false);

export function jitOf(doc: z.output<typeof SETTINGS>): JitProvisioning | undefined {
  const settings: string[] = [];
  const groups = new Set<string>();
  for (const s of doc.data) {
    const type = s.attributes?.type;
    if (!type || !(JIT_TYPES as readonly string[]).includes(type) || !enabled(s.attributes?.content))
      continue;
    settings.push(type);
    for (const g of groupsIn(s.attributes?.content)) groups.add(g);
  }
  if (settings.length === 0) return undefined;
  return { settings: [...new Set(settings)].sort(), groups: [...groups].sort() };
}

export async function readJit(t: Transport): Promise<JitProvisioning | undefined> {
  try {
    const { json } = await t.request({
      method: "GET",
      path: "/api/v1/entities/organizationSettings?size=1000",
      mediaType: ENTITY_MEDIA,
      answer: SETTINGS,
    });
    return jitOf(json);
  } catch (err) {
    if (err instanceof HttpError && (err.status === 404 || err.status === 403)) return undefined;
    throw err;
  }
}
