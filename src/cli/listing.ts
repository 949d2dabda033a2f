/**
 * The service listed for a plan: the whole organization (and the permissions and filters the
 * desired state needs), or, after a changes-only read that touched few people, only those people
 * (targeted-listing.ts). The listing is checked against the desired state; the problems are
 * returned for the caller to report.
 */
import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import type { Problem } from "../errors.js";
import type { DesiredState } from "../desired/index.js";
import { listActualState, type ActualState } from "../service/index.js";
import { dataFilterListing, permissionListing, type Policy } from "../plan/index.js";
import { signInForRevoke } from "./sign-in-read.js";
import type { Connection } from "./target.js";
import { listingCounts } from "./listing-counts.js";
import { narrowForPlan, reviewListings } from "./review-listing.js";
import { listTargeted } from "./targeted-listing.js";
import { serviceChecks } from "./service-checks.js";

export interface Listed {
  listed: ActualState;
  actual: ActualState;
  /** The desired state the plan is made from: the people listed, after a targeted listing. */
  desired: DesiredState;
  problems: Problem[];
}

/** Lists the service (and the permissions the desired state needs) and checks the desired state against it. */
export async function listChecked(
  runtime: { config: Config; logger: Logger },
  o: { connection: Connection; desired: DesiredState; policy: Policy; review?: boolean | undefined },
): Promise<Listed> {
  const { config, logger } = runtime;
  const { connection, policy } = o;
  const started = performance.now();
  const { permissions, dataFilters } = o.review
    ? reviewListings(connection.client.profile, config.execution.pageSize)
    : {
        permissions: permissionListing(o.desired, policy, config.execution.pageSize),
        dataFilters: dataFilterListing({ desired: o.desired, policy }),
      };
  const jit = config.source.type !== "file"; // a directory's people, made at sign-in too?
  const targeted =
    o.review || permissions || dataFilters
      ? undefined
      : await listTargeted({ client: connection.client, desired: o.desired, policy, jit, logger });
  // A partial state (changes/partial.ts) holds only the touched people: planned against a whole
  // listing, everyone else would read as gone. changes-file.ts allows one only where the listing
  // is targeted; should that ever not hold, stop before any write.
  if (targeted === undefined && o.desired.partial !== undefined)
    throw new Error(
      "a desired state of the touched people only cannot be planned against a whole listing (nothing was changed): run again with source.changes.mode: whole, and report this as a usersync bug",
    );
  const actual =
    targeted?.actual ?? (await listActualState(connection.client, { permissions, dataFilters, jit }));
  const desired = targeted?.desired ?? o.desired;
  const signIn = await signInForRevoke(connection.client, actual, policy);
  if (signIn !== undefined) actual.signIn = signIn;
  const durationMs = Math.round(performance.now() - started);
  logger.info(listingCounts(actual, connection.client.profile, durationMs), `listed ${connection.label}`);
  if (actual.builtinIdp === false)
    logger.warn("this service has no built-in identity provider (its user listing answered 404)");
  const problems = serviceChecks({ desired, actual, policy, connection, config, logger });
  // The review lists everything; its plan is made from the part `plan` reads (review-listing.ts).
  const pageSize = config.execution.pageSize;
  return {
    listed: actual,
    actual: o.review ? narrowForPlan(actual, { desired, policy, pageSize }) : actual,
    desired,
    problems,
  };
}
