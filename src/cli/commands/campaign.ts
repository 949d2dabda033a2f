/**
 * `usersync campaign open|decide|remediate|close`: the access-review campaign (docs/audits.md,
 * "The campaign"). Each step reads files and writes files; only remediate lists the service
 * (GETs only), and nothing but `apply --plan` ever changes it.
 */
import { ConfigError } from "../../errors.js";
import { closest } from "../../suggest.js";
import type { ParsedCommand } from "../args.js";
import type { Io } from "../io.js";
import { CAMPAIGN_ACTIONS, type CampaignAction } from "../campaign-spec.js";
import { runOpen } from "../campaign/open.js";
import { runDecide } from "../campaign/decide.js";
import { runRemediate } from "../campaign/remediate.js";
import { runClose } from "../campaign/close.js";
import { loadRuntime } from "../pipeline.js";
import { runForTargets, type FatalWriter } from "../run-targets.js";

const steps: Record<CampaignAction, typeof runOpen> = {
  open: runOpen,
  decide: runDecide,
  remediate: runRemediate,
  close: runClose,
};

export async function runCampaign(command: ParsedCommand, io: Io, fatal: FatalWriter): Promise<number> {
  const [action, ...files] = command.positionals;
  if (action === undefined || !(CAMPAIGN_ACTIONS as readonly string[]).includes(action)) {
    const near = action === undefined ? undefined : closest(action, CAMPAIGN_ACTIONS);
    throw new ConfigError({
      message: `usersync campaign needs one of ${CAMPAIGN_ACTIONS.join(", ")}${action === undefined ? "" : `, not "${action}"`}.${near ? ` Did you mean ${near}?` : ""} See usersync campaign --help.`,
    });
  }
  if (action !== "decide" && files.length > 0)
    throw new ConfigError({
      message: `usersync campaign ${action} takes no file arguments, got "${files[0]}": name its files with their options. See usersync campaign --help.`,
    });
  const targeted = ["target", "all-targets", "target-index", "target-list"].find(
    (o) => command.values[o] !== undefined && command.values[o] !== false,
  );
  if ((action === "decide" || action === "close") && targeted !== undefined)
    throw new ConfigError({
      message: `usersync campaign ${action} reads one campaign's files: --${targeted} is for open and remediate. Decide and close each organization's campaign by its own files (c.alpha.json, ...). See docs/audits.md, "Many organizations".`,
    });
  const step = steps[action as CampaignAction];
  // Open and remediate run per organization: --target NAME or --all-targets pick them from a
  // config with targets, each with its own files (need.ts); open reads no desired state.
  if (action === "remediate" || (action === "open" && targeted !== undefined))
    return runForTargets(
      command,
      io,
      (runtime) => step({ values: command.values, files, runtime }),
      fatal,
      action === "open" ? { slices: false } : {},
    );
  return step({ values: command.values, files, runtime: await loadRuntime(command.values, io) });
}
