/** The Okta source (docs/okta.md) behind the source contract. */
import type { Config } from "../../../config/schema.js";
import { ConfigError } from "../../../errors.js";
import { readOktaDesired } from "./index.js";
import type { SourceContext, SourceReader } from "../contract.js";

export function openOktaSource(config: Config, ctx: SourceContext): SourceReader {
  const okta = config.source.okta;
  if (okta === undefined)
    throw new ConfigError({
      message: "source.type is okta but source.okta is not set: see docs/okta.md and config.example.yaml.",
    });
  return { read: () => readOktaDesired(okta, ctx) };
}
