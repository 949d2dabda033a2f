/**
 * A run that fails before it reaches an organization (the config, the shared source, a bad select,
 * a target's token file, the Job rendered for another list) is that organization's failure too
 * (DESIGN section 11, docs/multi-org.md "When a run fails before an organization"): its exit code
 * and its metrics are recorded for every target the run was meant to serve, in each one's own
 * metrics file and Pushgateway group, so each organization's failure and staleness alerts fire.
 *
 * When the config itself cannot be read, where the metrics go is read leniently from what can be
 * read: the config file's `output` section (when the file is YAML at all) and the `USERSYNC_OUTPUT_…`
 * variables (a CronJob's settings); the target names from the command line (`--target`,
 * `--target-list` with `--target-index`) or the file's `targets[].name`.
 */
import { dirname, resolve } from "node:path";
import type { Logger } from "pino";
import { forTarget, sortedTargetNames, type Config } from "../config/index.js";
import { envLayer, fileLayer, getPath, merge, resolvePaths, type Tree } from "../config/layers.js";
import { runMetrics, type MetricsPush } from "../outputs/index.js";
import { stringOption, type ParsedValues } from "./args.js";
import type { Io } from "./io.js";
import { createLogger } from "../logging.js";

/** Where a run's metrics go, for one organization each. */
interface MetricsPlace {
  file?: string | undefined;
  push?: Omit<MetricsPush, "grouping"> & { grouping: readonly string[] };
}

/** The targets a run was meant to serve, from its options and the names the config (or file) lists. */
export function meantTargets(values: ParsedValues, names: readonly string[]): string[] {
  const name = stringOption(values, "target");
  if (name !== undefined) return [name];
  if (values["all-targets"] === true) return [...names];
  const index = stringOption(values, "target-index");
  if (index === undefined || !/^\d+$/.test(index)) return [];
  // The Job was rendered for --target-list: index i is the organization its alerts know as i.
  const list = stringOption(values, "target-list")
    ?.split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const target = (list ?? names)[Number(index)];
  return target === undefined ? [] : [target];
}

/** The place of the loaded config's metrics (the same keys and flag a run uses). */
function placeOf(config: Config, values: ParsedValues): MetricsPlace {
  const { output } = config;
  return {
    file: stringOption(values, "metrics-file") ?? output.metricsFile,
    ...(output.metricsPushUrl !== undefined
      ? {
          push: {
            url: output.metricsPushUrl,
            job: output.metricsPushJob,
            grouping: output.metricsPushGrouping,
          },
        }
      : {}),
  };
}

/** What can be read of a config that does not load: its output section and targets' names. */
async function lenientRead(
  values: ParsedValues,
  io: Io,
): Promise<{ place: MetricsPlace; names: string[]; host?: string }> {
  const asked = stringOption(values, "config") ?? io.env["USERSYNC_CONFIG"]?.trim();
  const file = resolve(io.cwd, asked || "usersync.yaml");
  const fromFile = await fileLayer(file).catch(() => ({ data: {} as Tree }));
  resolvePaths(fromFile.data, dirname(file));
  const fromEnv = envLayer(io.env, new Set());
  resolvePaths(fromEnv.data, io.cwd);
  const tree = merge(fromFile.data, fromEnv.data);
  const text = (leaf: string): string | undefined => {
    const v = getPath(tree, `output.${leaf}`);
    return typeof v === "string" && v !== "" ? v : undefined;
  };
  const grouping = getPath(tree, "output.metricsPushGrouping");
  const url = text("metricsPushUrl");
  const targets = getPath(tree, "targets");
  const names = Array.isArray(targets)
    ? targets.flatMap((t: unknown) => {
        const n = (t as { name?: unknown } | null)?.name;
        return typeof n === "string" ? [n] : [];
      })
    : [];
  const baseUrl = getPath(tree, "target.baseUrl");
  return {
    ...optionalHost(typeof baseUrl === "string" ? baseUrl : undefined),
    place: {
      file: stringOption(values, "metrics-file") ?? text("metricsFile"),
      ...(url !== undefined
        ? {
            push: {
              url,
              job: text("metricsPushJob") ?? "usersync",
              grouping: Array.isArray(grouping)
                ? grouping.filter((g): g is string => typeof g === "string" && /^[a-zA-Z_]\w*=.+$/.test(g))
                : [],
            },
          }
        : {}),
    },
    names: [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
  };
}

/** The host of one organization's URL: its metrics label (outputs/metrics.ts's organizationLabel). */
function optionalHost(url: string | undefined): { host?: string } {
  try {
    const host = url === undefined ? "" : new URL(url).host;
    return host === "" ? {} : { host };
  } catch {
    return {};
  }
}

/** Records `exitCode` as the last run of each organization in `names` (plan and apply keep metrics). */
async function recordFor(
  command: string,
  names: readonly string[],
  exitCode: number,
  o: { place: MetricsPlace; logger: Logger },
): Promise<void> {
  if (command !== "plan" && command !== "apply") return;
  const { place } = o;
  if (place.file === undefined && place.push === undefined) return;
  for (const name of names) {
    const logger = o.logger.child({ organization: name });
    await runMetrics(command, {
      file: place.file === undefined ? undefined : forTarget(place.file, name),
      push:
        place.push === undefined
          ? undefined
          : { ...place.push, grouping: [...place.push.grouping, `organization=${name}`] },
      logger,
      labels: { organization: name },
    })
      .finish(exitCode)
      .catch((err: unknown) =>
        logger.warn({ err: (err as Error).message }, "the failure's metrics could not be written"),
      );
  }
}

/**
 * The failure of a run that reached no organization, recorded for each target it was meant for
 * (or, for a config without targets that does not load, for its one organization).
 * `config` is the loaded config, undefined when it did not load (then read leniently).
 */
export async function recordUnreached(o: {
  command: string;
  values: ParsedValues;
  io: Io;
  config: Config | undefined;
  logger: Logger | undefined;
  exitCode: number;
  /** The targets; default: those the options name. */
  names?: readonly string[];
}): Promise<void> {
  if (o.command !== "plan" && o.command !== "apply") return;
  const read = o.config === undefined ? await lenientRead(o.values, o.io) : undefined;
  const all = o.config !== undefined ? sortedTargetNames(o.config) : read!.names;
  // A config without targets run for no target is one organization's run: its own code records it.
  if (o.config !== undefined && all.length === 0) return;
  const names = o.names ?? meantTargets(o.values, all);
  const place = o.config !== undefined ? placeOf(o.config, o.values) : read!.place;
  const logger =
    o.logger ??
    createLogger({ level: "warn", format: "json", destination: o.io.stderr as NodeJS.WritableStream });
  if (names.length > 0) await recordFor(o.command, names, o.exitCode, { place, logger });
  // One organization's config that does not load: its run, labelled as its runs are.
  else if (read?.host !== undefined && all.length === 0 && (place.file ?? place.push) !== undefined)
    await runMetrics(o.command, {
      file: place.file,
      push: place.push,
      logger,
      labels: { organization: read.host },
    })
      .finish(o.exitCode)
      .catch((err: unknown) =>
        logger.warn({ err: (err as Error).message }, "the failure's metrics could not be written"),
      );
}
