/** The desired state checked against the organization once it is listed, before the plan. */
import type { Logger } from "pino";
import type { Problem } from "../errors.js";
import { resolveGroupNames, type DesiredState } from "../desired/index.js";
import {
  checkBuiltinIdentity,
  checkGroupReferences,
  checkWorkspaceReferences,
  type Policy,
} from "../plan/index.js";
import type { ActualState } from "../service/index.js";
import type { Config } from "../config/index.js";
import type { Connection } from "./target.js";

export function serviceChecks(o: {
  desired: DesiredState;
  actual: ActualState;
  policy: Policy;
  connection: Connection;
  config: Config;
  logger: Logger;
}): Problem[] {
  const { desired, actual, policy, connection, config, logger } = o;
  const problems = [
    // HR's "People Operations" for the organization's group of that name (desired/group-names.ts).
    ...resolveGroupNames(desired.users, [...desired.groups, ...actual.groups], { final: true }),
    ...checkBuiltinIdentity(desired, actual),
    ...checkGroupReferences(desired, actual, policy),
    ...(actual.permissions ? checkWorkspaceReferences(desired, actual.permissions.workspaces, policy) : []),
  ];
  if (
    connection.embedded &&
    !config.target.embeddedSeed &&
    problems.some((p) => p.rule === "unknown-workspace")
  )
    logger.warn(
      "the embedded emulator starts empty: to plan a file against an organization, seed it with target.embeddedSeed " +
        "(USERSYNC_TARGET_EMBEDDED_SEED=fixtures/demo/organization.yaml for the README's demo file)",
    );
  return problems;
}
