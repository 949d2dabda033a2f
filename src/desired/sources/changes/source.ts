/**
 * The changes-only read of a directory (docs/sources.md, "Changes-only runs"), behind readSource:
 * the feed of the configured directory (one table: each directory registers its feed here), the
 * choice between changes and a whole read, the read, and how it went in the evidence (`read`).
 */
import type { Config } from "../../../config/schema.js";
import type { KeptChanges } from "../../../state/changes-file.js";
import type { SourceContext, SourceResult } from "../contract.js";
import { openEntraFeed } from "../entra/feed.js";
import { openGoogleFeed } from "../google/feed.js";
import { openLdapFeed } from "../ldap/feed.js";
import { openOktaFeed } from "../okta/feed.js";
import { sourceDigest } from "./digest.js";
import type { OpenFeed } from "./feed.js";
import { chooseRead, readWithChanges, type Kept } from "./run.js";
import type { PartialAllowed, PartialCounts } from "./partial.js";

/** The directories that can read changes only; the others read whole with `source.changes.mode` on. */
const FEEDS: Partial<Record<Config["source"]["type"], OpenFeed>> = {
  entra: openEntraFeed,
  google: openGoogleFeed,
  ldap: openLdapFeed,
  okta: openOktaFeed,
};

export interface ChangesInput {
  /** What the last successful apply kept (the changes file), or why nothing usable was. */
  kept: Kept;
  /** Epoch ms: the run's clock. */
  now: number;
  /** usersync's version (the changes file's `builtBy`). */
  version?: string;
  /**
   * Set when the run can plan from the touched people alone (a targeted listing): whether the
   * desired groups allow it. Then a batch of few changes may build only those people (partial.ts).
   */
  usable?: PartialAllowed["usable"] | undefined;
}

/** The read of a directory with a feed and `source.changes.mode` on; undefined: read as always. */
export async function readChangesOnly(
  config: Config,
  ctx: SourceContext,
  input: ChangesInput,
): Promise<
  | (SourceResult & {
      keep: KeptChanges;
      touched?: string[];
      groupsChanged?: boolean;
      partial?: PartialCounts;
    })
  | undefined
> {
  const type = config.source.type;
  const open = FEEDS[type];
  if (config.source.changes.mode === "off") return undefined;
  if (open === undefined) {
    ctx.logger.warn(
      { notice: "no-effect" },
      `source.changes.mode has no effect with source.type ${type} yet: every run reads whole`,
    );
    return undefined;
  }
  const feed = open(config, ctx);
  try {
    const choice = chooseRead({
      changes: config.source.changes,
      kept: input.kept,
      kind: feed.kind,
      digest: feed.configDigest,
      now: input.now,
    });
    const { usable, version } = input;
    const partial = usable && { usable, maxPeople: config.source.changes.maxPeople };
    const read = await readWithChanges({ feed, choice, ctx, now: input.now, version, partial });
    read.result.evidence.read = read.how;
    return {
      ...read.result,
      keep: read.next,
      ...(read.touched ? { touched: read.touched, groupsChanged: read.groupsChanged ?? true } : {}),
      ...(read.partial ? { partial: read.partial } : {}),
    };
  } finally {
    await feed.close();
  }
}

export { sourceDigest };
