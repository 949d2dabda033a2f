/**
 * The sources of the desired state, one table: `source.type` -> a reader that returns the desired
 * state with the evidence that it was read whole, or throws SourceUnavailableError (exit 5). A new
 * source registers itself here (docs/sources.md); the pipeline and the planner never name one.
 */
import type { Config } from "../../config/schema.js";
import { ConfigError, DirectoryError } from "../../errors.js";
import type { SourceContext, SourceReader, SourceResult } from "./contract.js";
import { openFileSource } from "./file/source.js";
import { checkGroupSizes } from "./group-sizes.js";
import { NoSuchGroupError, vanishedOrMistake } from "./vanished-groups.js";
import { keepSignIn } from "./sign-in.js";
import { openLdapSource } from "./ldap/source.js";
import { openEntraSource } from "./entra/index.js";
import { openOktaSource } from "./okta/source.js";
import { openGoogleSource } from "./google/source.js";
import { readChangesOnly, type ChangesInput } from "./changes/source.js";
import type { KeptChanges } from "../../state/changes-file.js";
import type { PartialCounts } from "./changes/partial.js";

export type {
  Count,
  Evidence,
  ReadTally,
  SignInContext,
  SignInStep,
  SkippedCount,
  SourceContext,
  SourceReader,
  SourceResult,
} from "./contract.js";
export { evidenceLine, SkipCounter } from "./contract.js";
export { checkGroupSizes, emptiedGroups } from "./group-sizes.js";
export { keepSignIn, resolveSignIn } from "./sign-in.js";
export {
  DirectoryHttp,
  type DirectoryAnswer,
  type DirectoryHttpOptions,
  type Pacer,
} from "./directory-http.js";
export { pages, readAll, redactLink, Tally, type PageRule } from "./pages.js";
export { sourceUnreadable } from "./file/source.js";
export { DirectoryHttpError, SourceIncompleteError } from "./errors.js";

export type SourceType = Config["source"]["type"];

/** Opens the reader of a source kind; bad settings fail here, before any network (exit 4). */
type Opener = (config: Config, ctx: SourceContext) => SourceReader;

const SOURCES: Record<SourceType, Opener> = {
  file: openFileSource,
  ldap: openLdapSource,
  entra: openEntraSource,
  okta: openOktaSource,
  google: openGoogleSource,
};

export interface ReadSourceOptions {
  config: Config;
  ctx: SourceContext;
  /** Members per picked group at the last successful apply (the state file), if known. */
  lastGroupSizes?: Readonly<Record<string, number>> | undefined;
  /** `--allow-empty-groups`: believe a picked group that emptied since the last successful run. */
  allowEmptyGroups?: boolean;
  /** With `source.changes.mode` on: what the last successful run kept (the changes file). */
  changes?: ChangesInput | undefined;
}

/** A source's result, and with `source.changes.mode` on, the picture and position to keep. */
export type ReadSourceResult = SourceResult & {
  keep?: KeptChanges;
  /** After changes only: the desired users the changes touched (a targeted listing's people). */
  touched?: string[];
  /** After changes only: whether the desired groups changed. */
  groupsChanged?: boolean;
  /** A partial build (changes/partial.ts): the state holds the touched people; the whole one's counts. */
  partial?: PartialCounts;
};

/** The configured source read and proved whole; its evidence rides on the state (`state.evidence`). */
export async function readSource(o: ReadSourceOptions): Promise<ReadSourceResult> {
  const type = o.config.source.type;
  let result: ReadSourceResult;
  try {
    result =
      (o.changes && (await readChangesOnly(o.config, o.ctx, o.changes))) ??
      (await SOURCES[type](o.config, o.ctx).read());
  } catch (err) {
    // The setup error names this source's settings and docs (main.ts), not another's.
    if (err instanceof DirectoryError) err.source ??= type;
    if (err instanceof NoSuchGroupError)
      throw vanishedOrMistake(err, o.lastGroupSizes, o.allowEmptyGroups ?? false);
    throw err;
  }
  checkGroupSizes({
    evidence: result.evidence,
    lastGood: o.lastGroupSizes,
    allowEmpty: o.allowEmptyGroups ?? false,
  });
  result.evidence.people = result.partial?.users ?? result.state.users.length;
  if (result.partial)
    Object.defineProperty(result.state, "partial", { value: result.partial, enumerable: false });
  // A directory's ids come from its rule, never from a person writing one down: they count as
  // derived, so a person's existing mapping under another id is adopted (plan/adopt.ts).
  if (o.config.source.type !== "file") for (const u of result.state.users) u.idDerived = true;
  result.state.evidence = result.evidence;
  keepSignIn(result.state, result.signIn);
  return result;
}

/**
 * A desired-state file and a directory source (`source.type: ldap`, ...) name two sources of the
 * truth: one of them is a mistake, so neither wins silently (exit 4, before anything is read or sent).
 */
export function checkOneSource(config: Config & { configFile?: string | undefined }): void {
  const file = config.source.desired;
  const type = config.source.type;
  if (type === "file" || file === undefined) return;
  throw new ConfigError({
    message: `two sources of the desired state: the file ${file} (--desired or source.desired) and the directory (source.type: ${type}${config.configFile ? ` in ${config.configFile}` : ""}). Use one: drop --desired (and source.desired) to read the directory, or set source.type: file to read the file.`,
  });
}
