/** The LDAP / Active Directory source (docs/ldap.md) behind the source contract. */
import type { Config } from "../../../config/schema.js";
import { ConfigError } from "../../../errors.js";
import { readLdapDesired } from "./index.js";
import type { SourceContext, SourceReader, SourceResult } from "../contract.js";

export function openLdapSource(config: Config, ctx: SourceContext): SourceReader {
  return {
    async read(): Promise<SourceResult> {
      const ldap = config.source.ldap;
      if (ldap === undefined)
        throw new ConfigError({
          message:
            "source.type is ldap but source.ldap is not set: see docs/ldap.md and config.example.yaml.",
        });
      return readLdapDesired({ config: ldap, env: ctx.env, defaultIdentity: ctx.defaultIdentity });
    },
  };
}
