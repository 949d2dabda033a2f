/**
 * `usersync review`: the access review (docs/audits.md, "Access review"). Read-only: GETs only,
 * through the same client, limits and listing as `plan`. With a desired state configured, the
 * planner runs beside it to say whether the desired state agrees; without one, the review still
 * answers who reaches what and why. stdout carries only the review.
 */
import { ConfigError, ExitCode } from "../../errors.js";
import { prepareOutputPaths } from "../../files.js";
import { toPolicy } from "../../config/index.js";
import { listActualState, type ActualState } from "../../service/index.js";
import type { Plan } from "../../plan/index.js";
import type { DesiredState } from "../../desired/index.js";
import { buildReview } from "../../review/build.js";
import { reviewChanges } from "../../review/changes.js";
import { dateRemovals } from "../../review/removals.js";
import { fromSnapshot } from "../../review/from-snapshot.js";
import { toSnapshot } from "../../review/to-snapshot.js";
import { withLeaverTokens } from "../review-tokens.js";
import { changeInterval, dateChanges } from "../../review/last-change.js";
import type { Snapshot } from "../../review/snapshot.js";
import type { Review } from "../../review/types.js";
import { REVIEW_FORMATS } from "../../report/review/index.js";
import {
  combinedCsvOption,
  combinedCsvPaths,
  reviewOutputPaths,
  writeCombinedCsv,
  writeReview,
} from "../review-output.js";
import { reviewRemovalInput } from "../review-state.js";
import { readPrivateKey, signSnapshot } from "../review-snapshot-file.js";
import { readVerified, runReviewFrom, runReviewVerify } from "./review-saved.js";
import { choiceOption, stringOption, type ParsedCommand } from "../args.js";
import type { Io } from "../io.js";
import { listingCounts } from "../listing-counts.js";
import { datedPath, ownPath } from "../output-paths.js";
import { loadDesired, planAgainstService, type Runtime } from "../pipeline.js";
import { reviewListings } from "../review-listing.js";
import { runForTargets, type FatalWriter } from "../run-targets.js";
import { connect, type Connection } from "../target.js";
import { version } from "../version.js";

/** Whether the config names a desired state (a file, or a directory source). */
const hasSource = (runtime: Runtime): boolean =>
  runtime.desired !== undefined ||
  runtime.config.source.type !== "file" ||
  runtime.config.source.desired !== undefined;

/** Runs the review for one organization, or for each target, and writes the combined CSV. */
export async function runReviewTargets(command: ParsedCommand, io: Io, fatal: FatalWriter): Promise<number> {
  if (command.positionals[0] === "verify") return runReviewVerify(command, io);
  if (command.positionals.length > 0)
    throw new ConfigError({
      message: `usersync review takes no argument but verify FILE, got "${command.positionals[0]}". See usersync review --help.`,
    });
  const from = stringOption(command.values, "from");
  if (from !== undefined) return runReviewFrom(command, io, from, fatal);
  const combined = combinedCsvOption(command);
  if (combined !== undefined) await prepareOutputPaths(combinedCsvPaths(combined));
  const reviews: Review[] = [];
  const code = await runForTargets(
    command,
    io,
    (runtime) => runReview(command, runtime, (r) => reviews.push(r)),
    fatal,
  );
  if (combined !== undefined) await writeCombinedCsv(combined, reviews);
  return code;
}

/** The previous review of `--since`, verified (exit 4 when it does not verify, unless --allow-unverified). */
async function readSince(
  values: ParsedCommand["values"],
  path: string | undefined,
): Promise<Review | undefined> {
  if (path === undefined) return undefined;
  const { snapshot } = await readVerified(values, path, "--since");
  try {
    return fromSnapshot(snapshot);
  } catch (err) {
    throw new ConfigError({ message: `--since ${path}: ${(err as Error).message}.` });
  }
}

export async function runReview(
  { values }: ParsedCommand,
  runtime: Runtime,
  collect?: (review: Review) => void,
): Promise<number> {
  const { config, logger, io } = runtime;
  const format = choiceOption(values, "format", REVIEW_FORMATS) ?? "markdown";
  const out = ownPath(datedPath(stringOption(values, "out")), config);
  // Everything the run reads or writes is checked before the first request (exit 4).
  const previous = await readSince(values, ownPath(stringOption(values, "since"), config));
  const signKeyPath = stringOption(values, "sign-key");
  const signKey = signKeyPath !== undefined ? await readPrivateKey(signKeyPath, "--sign-key") : undefined;
  await prepareOutputPaths(reviewOutputPaths(out, format));
  const removal = await reviewRemovalInput(config);
  // One listing, one snapshot: every format renders from it (review-output.ts). The listing and
  // the review model are left behind here, so a large review's writing holds only the snapshot.
  const { snapshot, findings } = await listAndSnapshot(values, runtime, { previous, removal });
  if (signKey !== undefined) await signSnapshot(snapshot, signKey);
  // The combined CSV of --all-targets reads each review's model (JSON writes none: made here).
  const rendered = await writeReview(snapshot, { format, out, io, logger });
  collect?.(rendered ?? fromSnapshot(snapshot));
  return values["detailed-exitcode"] === true && findings > 0 ? ExitCode.changes : ExitCode.ok;
}

/** Lists the organization, builds the review (compared with --since), and returns its snapshot. */
// eslint-disable-next-line max-lines-per-function -- the steps of one review in order: list, build, compare
async function listAndSnapshot(
  values: ParsedCommand["values"],
  runtime: Runtime,
  o: { previous: Review | undefined; removal: Awaited<ReturnType<typeof reviewRemovalInput>> },
): Promise<{ snapshot: Snapshot; findings: number }> {
  const { config, logger } = runtime;
  const { previous, removal } = o;
  const policy = toPolicy(config);
  // Held until the review is built, then let go: the listing of a large organization is a third
  // of what building its review holds (docs/benchmarks.md figure 16).
  let listing: ReviewListing | undefined = await listForReview(values, runtime);
  const { connection, notes } = listing;
  try {
    if (connection.client.profile !== "v1")
      notes.push(
        `This service speaks the ${connection.client.profile} API: it has no workspaces, permissions or data filters to review.`,
      );
    let signIn: "builtin" | "oidc" | undefined;
    let organizationId: string | undefined;
    let externalDomains: string[] | undefined;
    try {
      const read = await connection.client.signIn?.();
      signIn = read?.kind;
      organizationId = read?.organizationId;
      externalDomains = await connection.client.identityProviderDomains?.();
    } catch (err) {
      logger.warn(
        { err: (err as Error).message },
        "could not read how the organization signs in (its identity provider and the domains its providers claim); a mapping with no built-in login is reported revoked",
      );
    }
    const started = process.cpuUsage();
    const desiredOf = ({ plan, desiredState, source }: ReviewListing) =>
      plan !== undefined && desiredState !== undefined
        ? { desired: { state: desiredState, plan, source } }
        : {};
    const build = (actual: ActualState): Review =>
      buildReview({
        actual,
        policy,
        signIn,
        externalDomains,
        ...desiredOf(listing!),
        snapshot: {
          generatedAt: new Date().toISOString(),
          organization: config.targetName ?? hostOf(config.target.baseUrl),
          baseUrl: config.target.baseUrl ?? "",
          ...(organizationId !== undefined ? { organizationId } : {}),
          usersyncVersion: version(),
        },
        requests: connection.client.stats().requests,
        notes,
        goneSince: removal.goneSince,
        removalWithinSeconds: removal.removalWithinSeconds,
      });
    // A leaver's own API tokens: listed for the people the review finds leaving, then built again.
    const review = await withLeaverTokens(connection.client, build, listing.listed);
    listing = undefined;
    const requests = review.evidence.requests;
    if (previous !== undefined) {
      if (previous.snapshot.organization !== review.snapshot.organization)
        logger.warn(
          `--since: the previous review is of ${previous.snapshot.organization}, this one of ${review.snapshot.organization}; the changes compare two organizations`,
        );
      review.changes = reviewChanges(previous, review);
      dateChanges(previous, review, review.changes);
      const interval = { from: previous.snapshot.generatedAt, to: review.snapshot.generatedAt };
      dateRemovals(review.changes, removal.removals, interval);
      if (changeInterval(previous.snapshot, review.snapshot) === undefined)
        logger.warn(
          `--since: the previous review was taken ${previous.snapshot.generatedAt}, not before this one (${review.snapshot.generatedAt}); the changes are listed but not dated (last_change stays empty for them)`,
        );
      review.summary.changes = review.changes.changes.length;
    }
    const cpu = process.cpuUsage(started);
    logger.info(
      {
        people: review.summary.people,
        accessRows: review.summary.accessRows,
        findings: review.summary.findings,
        requests,
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      },
      `access review of ${review.snapshot.organization}: ${review.summary.people} people, ${review.summary.findings} finding(s)`,
    );
    // The review's access moves into the snapshot's rows as they are made (never both in full).
    return { findings: review.findings.length, snapshot: toSnapshot(review, { release: true }) };
  } finally {
    await connection.close();
  }
}

/** The organization's name in a review without targets: the service's host. */
function hostOf(baseUrl: string | undefined): string {
  if (baseUrl === undefined || baseUrl === "embedded") return "embedded";
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

interface ReviewListing {
  listed: ActualState;
  plan?: Plan | undefined;
  desiredState?: DesiredState | undefined;
  source?: string | undefined;
  connection: Connection;
  notes: string[];
}

/**
 * The organization listed for the review: with a desired state configured, through the planning
 * pipeline (the plan made from `plan`'s part of the listing); without, the listing alone.
 */
async function listForReview(values: ParsedCommand["values"], runtime: Runtime): Promise<ReviewListing> {
  const { config, logger } = runtime;
  if (hasSource(runtime) && values["no-compare"] !== true) {
    const desired = await loadDesired(runtime);
    const planned = await planAgainstService(runtime, { values, desired, review: true });
    return {
      listed: planned.listed,
      plan: planned.plan,
      desiredState: desired,
      source: desired.evidence?.source ?? desired.files.join(", "),
      connection: planned.connection,
      notes: [],
    };
  }
  const connection = await connect({ config, logger });
  const started = performance.now();
  try {
    const listed = await listActualState(
      connection.client,
      reviewListings(connection.client.profile, config.execution.pageSize),
    );
    logger.info(
      listingCounts(listed, connection.client.profile, Math.round(performance.now() - started)),
      `listed ${connection.label}`,
    );
    const note =
      "No desired state was compared (no source configured, or --no-compare): agreement and the findings that need it are left out.";
    return { listed, connection, notes: [note] };
  } catch (err) {
    await connection.close();
    throw err;
  }
}
