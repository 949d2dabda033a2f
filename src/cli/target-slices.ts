/**
 * The slices of a shared source for the targets of a config with `targets:` (docs/multi-org.md),
 * cut from the source read once and checked before any organization is asked anything; `plan`,
 * `apply` and `review` run on them (run-targets.ts), `validate` reports them (validate-targets.ts).
 */
import { ConfigError } from "../errors.js";
import { sliceDesired, type DesiredState } from "../desired/index.js";
import { unknownSelectNames } from "../desired/select-check.js";
import { checkGroupSizes } from "../desired/sources/index.js";
import { configForTarget, type Config, type TargetEntry } from "../config/index.js";
import { checkMinUsersCount } from "./min-users.js";
import { lastGroupSizes } from "./run-state.js";
import { loadDesired, type Runtime } from "./pipeline.js";

/**
 * One target's slice of what the shared source read, or what is wrong with its select: a name the
 * source does not have, or a slice of nobody (unless the target says `allowEmptySlice`).
 */
export function sliceFor(
  shared: DesiredState,
  config: Config,
  entry: TargetEntry,
): { slice?: DesiredState; problems: string[] } {
  const select = entry.select!;
  const field = `targets[${config.targets.indexOf(entry)}] (${entry.name}).select`;
  const unknown = unknownSelectNames(shared, select, field);
  if (unknown.length > 0) return { problems: unknown };
  const others = config.targets.filter((t) => t !== entry).flatMap((t) => t.select?.groups ?? []);
  const slice = sliceDesired(shared, select, others);
  // Leavers are in every slice (slice.ts): a slice of leavers only still gives nobody.
  if (!slice.users.some((u) => u.state === "present") && !entry.allowEmptySlice)
    return {
      slice,
      problems: [
        `${field}: gives nobody of the ${shared.users.length} people the source read, so this organization's people would all be leavers; fix the select, or set allowEmptySlice: true on target ${entry.name} if it is meant to be empty`,
      ],
    };
  return { slice, problems: [] };
}

/**
 * The slices of the targets this run is for, cut from the shared source read once, and checked
 * before any request to any organization: a name a select does not find in what was read, or a
 * slice of nobody (unless the target says `allowEmptySlice`), is a mistake in the config (exit 4),
 * never an organization emptied. Targets with their own desired file are not here.
 */
export async function checkedSlices(
  base: Runtime,
  names: readonly string[],
): Promise<Map<string, DesiredState>> {
  const slices = new Map<string, DesiredState>();
  const running = base.config.targets.filter((t) => names.includes(t.name) && t.select !== undefined);
  if (running.length === 0) return slices;
  // source.minUsers counts each target's slice (pipeline.ts's checkedSlice); the shared read
  // needs only a directory's one person.
  const source = { ...base.config.source, minUsers: undefined };
  // One organization (the Indexed Job's pod): the shared read keeps its picture beside its state file.
  const one = names.length === 1 ? await configForTarget(base.config, names[0]!, base.io.env) : undefined;
  const changesState = one?.state.file;
  const shared = await loadDesired({ ...base, config: { ...base.config, source }, changesState });
  const problems: string[] = [];
  for (const entry of running) {
    const cut = sliceFor(shared, base.config, entry);
    problems.push(...cut.problems);
    if (cut.slice === undefined) continue;
    // What the changes-only read left for the run (pipeline.ts): the organization's own slice keeps it.
    for (const key of ["afterApply", "targeted"] as const)
      if (shared[key] !== undefined)
        Object.defineProperty(cut.slice, key, { value: shared[key], enumerable: false });
    slices.set(entry.name, cut.slice);
  }
  if (problems.length > 0)
    throw new ConfigError({
      message: `targets: ${problems.length} select${problems.length === 1 ? "" : "s"} that the source does not answer (nothing was sent to any organization):\n${problems.map((p) => `  ${p}`).join("\n")}`,
      problems: problems.map((message) => ({
        file: configFile(base),
        field: "targets",
        rule: "select",
        message,
      })),
    });
  return slices;
}

function configFile(runtime: Runtime): string {
  return (runtime.config as { configFile?: string }).configFile ?? "(config)";
}

/**
 * A target's slice, checked for that organization: `minUsers` (the target's own, else the shared
 * one) counts the people it receives; and as the shared read is checked against no state file
 * (each target has its own), each target checks the picked groups' sizes against its own state
 * file's record, and records them after its own successful apply.
 */
export async function checkedSlice(
  config: Runtime["config"],
  slice: DesiredState,
  o: { allowEmptyGroups: boolean },
): Promise<DesiredState> {
  checkMinUsersCount(slice, config, true);
  if (slice.evidence !== undefined)
    checkGroupSizes({
      evidence: slice.evidence,
      lastGood: await lastGroupSizes(config),
      allowEmpty: o.allowEmptyGroups,
    });
  return slice;
}
