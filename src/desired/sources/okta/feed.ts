/**
 * Okta's change feed (../changes/feed.ts): the whole read takes its position first (the time it
 * began, less a margin), then reads the picked groups and their members into a picture
 * (picture.ts); a changes-only run reads the System Log since the position (changes.ts). The
 * desired state is built by the whole reader's own rules (index.ts `oktaResult`).
 */
import type { Config } from "../../../config/schema.js";
import { ConfigError } from "../../../errors.js";
import { sourceDigest } from "../changes/digest.js";
import type { ChangeFeed, WholeRead } from "../changes/feed.js";
import type { SourceContext } from "../contract.js";
import type { DirectoryHttp } from "../directory-http.js";
import { oktaPosition, readOktaChanges } from "./changes.js";
import { OKTA_LOG_SCOPE, OKTA_SCOPES } from "./credentials.js";
import { connectOkta, oktaResult, readOktaGroups } from "./index.js";
import { oktaPicture, readOfPicture } from "./picture.js";
import type { OktaConfig } from "./schema.js";

export async function readOktaWhole(o: {
  http: DirectoryHttp;
  config: OktaConfig;
  digest: string;
  now: number;
}): Promise<WholeRead> {
  const position = oktaPosition(o.now);
  const read = await readOktaGroups(o.http, o.config);
  const picture = oktaPicture({ config: o.config, read, digest: o.digest, readAt: position.takenAt });
  return { picture, position, reads: read.reads };
}

export function openOktaFeed(config: Config, ctx: SourceContext): ChangeFeed {
  const okta = config.source.okta;
  if (okta === undefined)
    throw new ConfigError({
      message: "source.type is okta but source.okta is not set: see docs/okta.md and config.example.yaml.",
    });
  const digest = sourceDigest(config);
  let http: DirectoryHttp | undefined;
  const scopes = [...OKTA_SCOPES, OKTA_LOG_SCOPE];
  const connected = async () => (http ??= (await connectOkta(okta, ctx, scopes)).http);
  return {
    kind: "okta",
    configDigest: digest,
    readWhole: async () => readOktaWhole({ http: await connected(), config: okta, digest, now: Date.now() }),
    readChanges: async (since, picture) =>
      readOktaChanges({ http: await connected(), config: okta, since, picture, now: Date.now() }),
    partial: true,
    build: ({ picture, ctx: c, reads, only }) =>
      oktaResult(okta, c, readOfPicture(okta, picture, reads, only)),
    close: async () => {
      await http?.close();
    },
  };
}
