/**
 * The config's named cross-field rules (the schema's stage after the shape): each a problem at the
 * origin of the key it is about, all reported at once with the schema's.
 */
import type { Problem } from "../errors.js";
import type { Origin } from "./layers.js";
import type { Config } from "./schema.js";
import { sharedTokenProblems } from "./targets.js";
import { urlProblem } from "./token.js";
import { durationSeconds } from "./values.js";

export function crossFieldProblems(config: Config, originOf: (path: string) => Origin): Problem[] {
  const out: Problem[] = [];
  const add = (field: string, rule: string, message: string, at = field): void =>
    void out.push({ ...originOf(at), field, rule, message });
  const { baseUrl } = config.target;
  const bad = baseUrl === undefined ? undefined : urlProblem(baseUrl, config.target.allowInsecureHttp);
  if (bad !== undefined) add("target.baseUrl", bad.rule, bad.message);
  for (const message of sharedTokenProblems(config)) add("targets", "shared-token", message);
  if (config.identity.passwords === "file" && config.identity.passwordFile === undefined)
    add(
      "identity.passwordFile",
      "required",
      "is required when identity.passwords is file",
      "identity.passwords",
    );
  if (durationSeconds(config.policy.revokeAfter) > 0 && config.state.file === undefined)
    add(
      "state.file",
      "required",
      "is required when policy.revokeAfter is set: since when each person is missing is remembered there between runs (e.g. /var/lib/usersync/state.json on the Job's volume)",
      "policy.revokeAfter",
    );
  if (config.source.changes.mode !== "off" && config.state.file === undefined)
    add(
      "state.file",
      "required",
      "is required when source.changes.mode is changes or whole: the directory's picture and position are kept beside it (docs/sources.md, Changes-only runs)",
      "source.changes.mode",
    );
  const external = externalDefaultProblem(config);
  if (external !== undefined) add("identity.default", "directory-decides-identity", external);
  return out;
}

/**
 * `identity.default: external` is a natural guess for people who sign in through SSO, but with
 * Entra ID or Okta it says nothing of which claim a login is keyed by: the directory's rule
 * decides that (`attributes.authenticationId`). An LDAP rule that names the attribute may use it.
 */
function externalDefaultProblem(config: Config): string | undefined {
  if (config.identity.default !== "external") return undefined;
  const { type } = config.source;
  if (type === "entra")
    return 'does not apply to an Entra ID source: who signs in as whom is source.entra.attributes.authenticationId (auto, the default, reads the organization\'s oauthSubjectIdClaim; or a Graph property such as id for oid). Remove identity.default; see docs/entra.md, "Who signs in as whom".';
  if (type === "okta")
    return 'does not apply to an Okta source: who signs in as whom is source.okta.identity (external: the Okta user id, or the claim the organization names). Remove identity.default; see docs/okta.md, "Who signs in as whom".';
  if (type === "ldap" && config.source.ldap?.attributes.authenticationId === undefined)
    return "needs source.ldap.attributes.authenticationId with an LDAP source: the attribute that equals the login's claim (e.g. {objectGUID} for Entra ID or ADFS). Set it, or remove identity.default; see docs/ldap.md.";
  return undefined;
}
