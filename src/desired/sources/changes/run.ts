/**
 * A run of `source.changes.mode: changes | whole` (docs/sources.md, "Changes-only runs"): which
 * read it makes (`chooseRead`, pure), then the read itself (`readWithChanges`): the changes since
 * the kept position applied to the kept picture, or, whenever that cannot be proved whole, a whole
 * read. Either way the desired state is built from a picture by the feed's one `build`, and the
 * picture and position to keep are handed back, with the digests of the desired state built from
 * it (touched.ts: the next run's touched people, without building the kept picture again); the
 * caller writes them only after a successful apply (cli/changes-file.ts). After changes, where the
 * run allows it and it is proved enough, only the people the batch can touch are built (partial.ts).
 */
import type { ReadHow } from "../../types.js";
import type { DesiredDigests, KeptChanges } from "../../../state/changes-file.js";
import type { SourceContext, SourceResult } from "../contract.js";
import { applyChanges } from "./apply.js";
import type { ChangeBatch, ChangeFeed, Picture, WholeReason } from "./feed.js";
import type { ChangesConfig } from "./schema.js";
import { desiredDigests, touchedSince } from "./touched.js";
import { partialBuild, type PartialAllowed, type PartialCounts } from "./partial.js";
import { durationSeconds } from "../../../config/values.js";

export type Choice =
  | { read: "changes"; kept: KeptChanges }
  | {
      read: "whole";
      reason: WholeReason;
      detail: string;
      /** A full reconcile: the service is listed whole too. */
      full: boolean;
      /** The last full reconcile's time, kept when this read is not one. */
      fullAt?: string;
    };

/** What was kept, or why nothing usable was (the changes file's read). */
export type Kept = KeptChanges | { unusable: string };

export interface ChooseInput {
  changes: ChangesConfig;
  kept: Kept;
  kind: string;
  digest: string;
  /** Epoch ms. */
  now: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Changes, or a whole read and why; `full` when the service is listed whole as well. */
export function chooseRead(o: ChooseInput): Choice {
  const fullAt = "unusable" in o.kept ? undefined : o.kept.fullAt;
  const whole = (reason: WholeReason, detail: string, full = true): Choice => ({
    read: "whole",
    reason,
    detail,
    full,
    ...(fullAt !== undefined ? { fullAt } : {}),
  });
  if (o.changes.mode === "whole") return whole("asked", "source.changes.mode is whole: the full reconcile");
  if ("unusable" in o.kept) return whole("no-picture", o.kept.unusable);
  const { picture } = o.kept;
  if (picture.kind !== o.kind)
    return whole("config-changed", `the kept picture is of a ${picture.kind} source`);
  if (picture.configDigest !== o.digest)
    return whole("config-changed", "the kept picture was read with another source config");
  const fullEvery = durationSeconds(o.changes.fullEvery) * 1000;
  const lastFull = fullAt === undefined ? NaN : Date.parse(fullAt);
  if (fullEvery > 0 && !(o.now - lastFull < fullEvery))
    return whole(
      "full-reconcile",
      `the last full reconcile was ${fullAt ?? "never"}; source.changes.fullEvery is ${String(o.changes.fullEvery)}`,
    );
  const maxAge = durationSeconds(o.changes.maxAge) * 1000;
  if (maxAge > 0 && !(o.now - Date.parse(picture.readAt) < maxAge))
    return whole(
      "picture-too-old",
      `the kept picture was read whole at ${picture.readAt}; source.changes.maxAge is ${String(o.changes.maxAge)}`,
      false,
    );
  return { read: "changes", kept: o.kept };
}

export interface ChangesRead {
  result: SourceResult;
  /** After changes: the desired users (ids) whose record the changes altered, added or took away. */
  touched?: string[];
  /** After changes: whether any desired group (id, name, parents, access) differs. */
  groupsChanged?: boolean;
  /** To keep after a successful apply. */
  next: KeptChanges;
  how: ReadHow;
  /** A partial build (partial.ts): the state holds the touched people only; the whole one's counts. */
  partial?: PartialCounts;
}

interface ReadInput {
  feed: ChangeFeed;
  choice: Choice;
  ctx: SourceContext;
  now: number;
  /** usersync's version, kept as `builtBy`. */
  version?: string | undefined;
  /** When the run can take a partial state (partial.ts); undefined: always a whole build. */
  partial?: Omit<PartialAllowed, "version"> | undefined;
}

/** Reads as chosen; a feed's or the picture's fallback becomes a whole read (never a partial plan). */
export async function readWithChanges(o: ReadInput): Promise<ChangesRead> {
  const { feed, choice, ctx } = o;
  let reason: WholeReason;
  let detail: string;
  if (choice.read === "changes") {
    const { picture, position } = choice.kept;
    const batch = await feed.readChanges(position, picture);
    if (batch.kind === "changes") {
      const applied = applyChanges(picture, batch.changes, iso(o.now));
      if ("picture" in applied) return fromChanges(o, choice.kept, batch, applied.picture);
      ({ fallback: reason, detail } = applied);
    } else ({ reason, detail } = batch);
    ctx.logger.info({ reason, detail }, `the changes cannot be proved whole (${reason}): reading whole`);
  } else ({ reason, detail } = choice);
  const before = choice.read === "changes" ? choice.kept.fullAt : choice.fullAt;
  const full = (choice.read === "whole" && choice.full) || before === undefined;
  const whole = await feed.readWhole();
  const result = feed.build({ picture: whole.picture, ctx, reads: whole.reads });
  const fullAt = full ? whole.position.takenAt : before;
  return {
    result,
    how: { source: "whole", reason, detail, listing: "whole" },
    next: {
      picture: whole.picture,
      position: whole.position,
      digests: desiredDigests(result.state),
      ...(fullAt !== undefined ? { fullAt } : {}),
      ...(o.version !== undefined ? { builtBy: o.version } : {}),
    },
  };
}

/** The desired state after changes applied to the kept picture: of the touched people only when proved. */
function fromChanges(
  o: ReadInput,
  kept: KeptChanges,
  batch: Extract<ChangeBatch, { kind: "changes" }>,
  picture: Picture,
): ChangesRead {
  const { feed, ctx } = o;
  const how: ReadHow = {
    source: "changes",
    changes: batch.changes.length,
    since: kept.position.takenAt,
    listing: "whole",
  };
  const next = (digests: DesiredDigests): KeptChanges => ({
    picture,
    position: batch.position,
    digests,
    ...(kept.fullAt ? { fullAt: kept.fullAt } : {}),
    ...(kept.managedUsers !== undefined ? { managedUsers: kept.managedUsers } : {}),
    ...(o.version !== undefined ? { builtBy: o.version } : {}),
  });
  // The people the batch can have touched only, when that is proved enough (partial.ts).
  const part =
    o.partial &&
    o.version !== undefined &&
    partialBuild({
      feed,
      kept,
      picture,
      changes: batch.changes,
      input: { ctx, reads: batch.reads },
      allowed: { ...o.partial, version: o.version },
    });
  if (part) {
    const { result, touched, groupsChanged, digests, counts } = part;
    ctx.logger.info(
      { built: part.built, touched: touched.length, people: counts.users },
      `built the desired records of the ${part.built} people the changes can touch, not of all ${counts.users}`,
    );
    return { result, touched, groupsChanged, how, next: next(digests), partial: counts };
  }
  // One build: the kept picture's desired state is known by its digests (touched.ts).
  const result = feed.build({ picture, ctx, reads: batch.reads });
  const digests = desiredDigests(result.state);
  return {
    result,
    touched: touchedSince(kept.digests, digests),
    groupsChanged: digests.groups !== kept.digests.groups,
    how,
    next: next(digests),
  };
}
