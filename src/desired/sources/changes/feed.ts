/**
 * Changes only (DESIGN section 9, docs/sources.md "Changes-only runs"): the types every directory
 * shares to read only what changed since its last run. Types only: no code, so every reader can
 * import it without pulling anything in.
 *
 * The flow, the same for every directory:
 * 1. A whole read (`ChangeFeed.readWhole`) takes the directory's position FIRST, then reads every
 *    picked group and person, and returns a `Picture` with that position: a change made during
 *    the read is replayed on the next run (applying a change twice is harmless).
 * 2. The desired state is always built from a picture (`BuildDesired`), after a whole read as
 *    after changes, so both give the SAME desired state for the same directory.
 * 3. After a successful run the picture and the position are kept beside the state file (one
 *    versioned file, written only after success; docs/configuration.md, "state.file").
 * 4. A later run asks the feed for the changes since the position (`ChangeFeed.readChanges`). It
 *    answers either changes and the new position, or a fallback with its reason; the run then
 *    applies the changes to the kept picture (`ApplyChanges`, pure) or reads whole. A fallback is
 *    always a whole read, never a partial plan. A change page that fails after its retries throws
 *    SourceUnavailableError (exit 5) like a whole read: nothing is written.
 *
 * Stability: this interface is shared by the readers of every directory (entra here; ldap, okta,
 * google on branch s48b). Changes to it are additive only; any change is listed here.
 * - v1 (formatVersion 1): first version. Since then, comments only: person-upserted merges
 *   attributes; feeds register in changes/source.ts (FEEDS). Beside it: changes/apply.ts
 *   (applyChanges, membersOf, nestedBelow: the closure over nested groups any build can use),
 *   changes/run.ts (chooseRead, readWithChanges), changes/touched.ts (the desired state's digests:
 *   the touched people without building the kept picture again), state/changes-file.ts
 *   (KeptChanges, the file; formatVersion 2 keeps the digests),
 *   entra/feed.ts (the first feed, a model for the others). Since: `BuildInput.only` and
 *   `ChangeFeed.partial`, a partial build (changes/partial.ts; all four feeds).
 */
import type { Config } from "../../../config/schema.js";
import type { RecordContext } from "../../records.js";
import type { ReadTally } from "../../types.js";
import type { SourceContext, SourceResult } from "../contract.js";

/** The directories that can read changes only. */
export type FeedKind = "entra" | "okta" | "google" | "ldap";

/** The picture's format; a kept picture of another version is not used (a whole read instead). */
export const PICTURE_FORMAT_VERSION = 1;

/**
 * A directory attribute's value as kept in the picture: JSON only (the picture is a JSON file).
 * Binary values (AD's objectGUID) are kept in the text form the templates give them (binaryText).
 */
export type AttributeValue = string | number | boolean | null | readonly string[];

/** Attributes by the directory's own name (as the directory spells it; templates match case-insensitively). */
export type Attributes = Readonly<Record<string, AttributeValue>>;

/**
 * A group of the picture: every group a rule picks, and every group nested below one (so a member
 * added to a nested group reaches the people of every group above it).
 */
export interface PicturedGroup {
  /** The directory's stable id: Entra object id, Okta id, Google id, LDAP DN (normalised). */
  id: string;
  /** The group's name, for messages and evidence (displayName, cn, email). */
  name: string;
  /**
   * The index of the rule that picked it (`source.<kind>.groups[rule]`; the first rule wins), or
   * undefined for a group kept only because it is nested below a picked one.
   */
  rule?: number;
  /** The attributes the group rule's templates read (and the reader needs to pick it again). */
  attributes: Attributes;
  /**
   * Direct member people ids, sorted. A reader that reads members at any depth in one listing
   * (Entra's transitiveMembers) may keep them all here: the closure gives the same people.
   */
  people: readonly string[];
  /** Direct nested group ids, sorted (at any depth is allowed too, as for people). */
  groups: readonly string[];
  /** Members of other kinds (service principals, devices, contacts): counted for the evidence. */
  others?: number;
}

/** A person's status in the directory; a person deleted for good leaves the picture. */
export type PersonStatus = "enabled" | "disabled" | "suspended" | "deleted";

/** A person of the picture: anyone who is a member (at any depth) of a picked group. */
export interface PicturedPerson {
  /** The directory's stable id: Entra object id, Okta id, Google id, LDAP DN (normalised). */
  id: string;
  status: PersonStatus;
  /** The attributes the source maps (email, names, id, authenticationId, userType...). */
  attributes: Attributes;
}

/**
 * Where the directory's change feed stands: opaque to everything but the reader that made it (a
 * Graph delta link per listing, an Okta System Log `since`, an LDAP highest `uSNChanged`...).
 * Never a secret: no token, no password (a Graph delta token is a position, not a credential).
 */
export interface Position {
  kind: FeedKind;
  /** One cursor per stream the reader follows (`users`, `groups`, `log`...). */
  streams: Readonly<Record<string, string>>;
  /** When the directory was asked for it (ISO 8601): changes after this are in the next batch. */
  takenAt: string;
}

/** What a directory read, whole or from changes, kept for the next run. */
export interface Picture {
  formatVersion: typeof PICTURE_FORMAT_VERSION;
  kind: FeedKind;
  /**
   * The digest of the source config it was read with (sourceDigest: `source.<kind>` and the
   * identity settings, secrets left out): another config's picture is never used.
   */
  configDigest: string;
  /** When the whole read that began this picture started (ISO 8601): its age limit counts from here. */
  readAt: string;
  /** When changes were last applied to it (ISO 8601), or undefined right after a whole read. */
  changedAt?: string;
  /** Sorted by id. */
  groups: readonly PicturedGroup[];
  /** Sorted by id. */
  people: readonly PicturedPerson[];
}

/** One change the directory reported, in the picture's terms. */
export type DirectoryChange =
  /** A person new or changed: the attributes given are set over those kept; status as given. */
  | { type: "person-upserted"; person: PicturedPerson }
  /** A person disabled or suspended (a leaver), re-enabled, or soft-deleted. */
  | { type: "person-status"; id: string; status: PersonStatus }
  /** A person deleted for good (or out of the directory's scope): leaves the picture and every group. */
  | { type: "person-removed"; id: string }
  /** A direct member added to a group of the picture; a person added comes with their attributes. */
  | {
      type: "member-added";
      group: string;
      member: string;
      memberKind: "person" | "group";
      person?: PicturedPerson;
    }
  | { type: "member-removed"; group: string; member: string; memberKind: "person" | "group" }
  /** A group's name or attributes changed (a rename): the group rule makes its id and name again. */
  | { type: "group-updated"; id: string; name: string; attributes: Attributes }
  /** A group of the picture deleted. A picked group's removal makes the run read whole. */
  | { type: "group-removed"; id: string }
  /**
   * A group read again whole (its members at any depth and the people among them), replacing what
   * the picture had: for a feed that knows a group changed but not exactly how.
   */
  | { type: "group-read"; group: PicturedGroup; people: readonly PicturedPerson[] };

/** Why a run read whole rather than changes: in the plan's evidence and the metrics. */
export type WholeReason =
  /** No picture kept yet (the first run), or its file is unreadable or of another format. */
  | "no-picture"
  /** The picture was read with another source config (configDigest differs). */
  | "config-changed"
  /** The picture is older than `source.changes.maxAge`. */
  | "picture-too-old"
  /** `source.changes.fullEvery` has passed since the last whole read: the full reconcile. */
  | "full-reconcile"
  /** Asked for: `source.changes.mode: whole`, or `--whole`. */
  | "asked"
  /** The directory no longer knows the position (Graph 410 syncStateNotFound, an aged-out log). */
  | "position-expired"
  /** The position is not one this reader can read (another tenant, a corrupt cursor). */
  | "position-unknown"
  /** A change page that cannot be proved whole (a loop, a page without its next link). */
  | "broken-page"
  /** The feed says it lags behind the directory (a reporting lag past the position). */
  | "feed-lagging"
  /** A change the picture cannot take safely (a picked group deleted or renamed under a rule). */
  | "groups-changed"
  /** More changes than a changes-only run is worth (`source.changes.maxChanges`). */
  | "too-many-changes";

/** What a feed answers: the changes since a position and the next position, or a whole read's reason. */
export type ChangeBatch =
  | {
      kind: "changes";
      changes: readonly DirectoryChange[];
      position: Position;
      /** The change listings read, proved whole like any listing (pages.ts). */
      reads: readonly ReadTally[];
    }
  | {
      kind: "fallback";
      reason: WholeReason;
      /** For a person: what the directory said, e.g. `Graph answered 410 syncStateNotFound to users delta`. */
      detail: string;
    };

/** A batch that reads whole instead, and why. */
export type Fallback = Extract<ChangeBatch, { kind: "fallback" }>;

export function fallback(reason: WholeReason, detail: string): Fallback {
  return { kind: "fallback", reason, detail };
}

/** A whole read: the picture, the position taken before it, and its listings for the evidence. */
export interface WholeRead {
  picture: Picture;
  position: Position;
  reads: readonly ReadTally[];
}

/** The result of applying changes: the new picture, or why the run must read whole instead. */
export type Applied = { picture: Picture } | { fallback: WholeReason; detail: string };

/** Applying a batch of changes to a picture: pure (no I/O, no clock), never mutates its input. */
export type ApplyChanges = (picture: Picture, changes: readonly DirectoryChange[], at: string) => Applied;

/**
 * What building the desired state from a picture is given: the run's context, the listings
 * that made the picture (for the evidence), and a record context for problems.
 */
export interface BuildInput {
  picture: Picture;
  ctx: SourceContext;
  reads: readonly ReadTally[];
  rc?: RecordContext;
  /**
   * A partial build (changes/partial.ts), for a feed whose `partial` is true: only these people's
   * (picture ids) desired records, every group as always. Each record is the one a whole build
   * gives that person (the same line, groups and fields); the evidence's group sizes stay whole,
   * its skipped counts are of these people. A feed without `partial` builds whole.
   */
  only?: ReadonlySet<string>;
}

/**
 * The source's desired state from a picture: the same function after a whole read and after
 * changes, so both give the same desired state. Pure but for the logger in ctx.
 */
export type BuildDesired = (input: BuildInput) => SourceResult;

/** A directory that can read changes only implements this beside its whole reader. */
export interface ChangeFeed {
  readonly kind: FeedKind;
  /** The digest of the config this feed reads with (sourceDigest): a picture of another is refused. */
  readonly configDigest: string;
  /** Takes the position, then reads whole (exit 5 when not whole, as the whole reader). */
  readWhole(): Promise<WholeRead>;
  /**
   * The changes since `since`, for this picture; a fallback when they cannot be proved whole.
   * Throws SourceUnavailableError (exit 5) when a change page fails after its retries.
   */
  readChanges(since: Position, picture: Picture): Promise<ChangeBatch>;
  /** The desired state from a picture (the same after a whole read and after changes). */
  build: BuildDesired;
  /** Its `build` honours BuildInput.only (a partial build, changes/partial.ts). */
  readonly partial?: boolean;
  /** Closes connections; called once, whatever happened. */
  close(): Promise<void>;
}

/**
 * Opens a directory's feed (bad settings fail here, before any network: exit 4). Each directory
 * registers one in the FEEDS table of changes/source.ts: `entra` -> openEntraFeed, `ldap` -> openLdapFeed, ...
 */
export type OpenFeed = (config: Config, ctx: SourceContext) => ChangeFeed;
