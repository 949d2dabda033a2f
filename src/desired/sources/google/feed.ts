/**
 * Google's change feed (../changes/feed.ts): the whole read takes its position first (the time it
 * began), reads the picked groups, their members and the users as the whole reader does, then the
 * groups below the picked ones that no rule picks (`members.list` without derived members, for the
 * groups they hold) so the picture knows the whole tree (picture.ts); a changes-only run reads the
 * admin activity report since the position (changes.ts). The desired state is built by the whole
 * reader's own rules (index.ts `googleResult`).
 */
import type { Config } from "../../../config/schema.js";
import { ConfigError } from "../../../errors.js";
import { sourceDigest } from "../changes/digest.js";
import type { ChangeFeed, WholeRead } from "../changes/feed.js";
import type { SourceContext } from "../contract.js";
import type { DirectoryHttp } from "../directory-http.js";
import { DirectoryHttpError, SourceIncompleteError } from "../errors.js";
import type { ReadTally } from "../../types.js";
import { directoryUrl, listAll, PAGE, setupError, type GoogleMemberJson } from "./api.js";
import { googlePosition, readGoogleChanges } from "./changes.js";
import { GOOGLE_REPORTS_SCOPE, GOOGLE_SCOPES } from "./credentials.js";
import { connectGoogle, googleResult, readGoogleGroups, type GoogleRead } from "./index.js";
import { googlePicture, readOfPicture, type Tree } from "./picture.js";
import type { GoogleConfig } from "./schema.js";

/** The groups below the picked ones that no rule picks, each listed once for the groups it holds. */
async function readTree(o: { http: DirectoryHttp; config: GoogleConfig; actor: string; read: GoogleRead }) {
  const picked = new Set(o.read.picked.map((p) => p.group.id));
  const tree: Tree = new Map();
  const reads: ReadTally[] = [];
  let todo = [...o.read.members.values()].flatMap((m) => m.groups ?? []);
  while (todo.length > 0) {
    const next: { id: string; email: string }[] = [];
    for (const g of todo) {
      if (picked.has(g.id) || tree.has(g.id)) continue;
      const what = `groups nested in Google group ${g.email} (${g.id})`;
      const first = directoryUrl(o.config, `groups/${encodeURIComponent(g.id)}/members`, {
        maxResults: String(PAGE.members),
        fields: "nextPageToken,members(id,email,type)",
      });
      try {
        const { items, tally } = await listAll(o.http, first, "members", what);
        const held = (items as GoogleMemberJson[]).filter((m) => m.type === "GROUP" && m.id !== undefined);
        tree.set(g.id, { email: g.email, groups: held.map((m) => m.id!) });
        next.push(...held.map((m) => ({ id: m.id!, email: m.email ?? m.id! })));
        reads.push(tally);
      } catch (err) {
        if (err instanceof DirectoryHttpError && err.status === 404)
          throw new SourceIncompleteError({ read: what, reason: "the group was deleted during the read" });
        throw setupError(err, { config: o.config, what, actor: o.actor });
      }
    }
    todo = next;
  }
  return { tree, reads };
}

export function openGoogleFeed(config: Config, ctx: SourceContext): ChangeFeed {
  const google = config.source.google;
  if (google === undefined)
    throw new ConfigError({
      message:
        "source.type is google but source.google is not set: see docs/google.md and config.example.yaml.",
    });
  const digest = sourceDigest(config);
  let client: Promise<{ http: DirectoryHttp; actor: string }> | undefined;
  const connected = () => (client ??= connectGoogle(google, ctx, [...GOOGLE_SCOPES, GOOGLE_REPORTS_SCOPE]));
  const readWhole = async (): Promise<WholeRead> => {
    const { http, actor } = await connected();
    const position = googlePosition(Date.now());
    const read = await readGoogleGroups({ http, config: google, actor });
    const { tree, reads } = await readTree({ http, config: google, actor, read });
    const picture = googlePicture({ config: google, read, tree, digest, readAt: position.takenAt });
    return { picture, position, reads: [...read.reads, ...reads] };
  };
  return {
    kind: "google",
    configDigest: digest,
    readWhole,
    readChanges: async (since, picture) => {
      const { http, actor } = await connected();
      return readGoogleChanges({ http, config: google, actor, since, picture, now: Date.now() });
    },
    partial: true,
    build: ({ picture, ctx: c, reads, only }) =>
      googleResult(google, c, readOfPicture(google, picture, reads, only)),
    close: async () => {
      if (client !== undefined) await (await client.catch(() => undefined))?.http.close();
    },
  };
}
