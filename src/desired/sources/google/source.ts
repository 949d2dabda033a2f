/** The Google Workspace source (docs/google.md) behind the source contract. */
import type { Config } from "../../../config/schema.js";
import { ConfigError } from "../../../errors.js";
import { readGoogleDesired } from "./index.js";
import type { SourceContext, SourceReader } from "../contract.js";

export function openGoogleSource(config: Config, ctx: SourceContext): SourceReader {
  const google = config.source.google;
  if (google === undefined)
    throw new ConfigError({
      message:
        "source.type is google but source.google is not set: see docs/google.md and config.example.yaml.",
    });
  return { read: () => readGoogleDesired(google, ctx) };
}
