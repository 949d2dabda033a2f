/**
 * The review's commands on a saved snapshot, with no listing and no config: `usersync review
 * verify FILE` (recompute the digest, check the signature with `--public-key`) and `usersync review
 * --from FILE --format F` (render it: the bytes the run that listed it wrote). A snapshot that does
 * not verify is refused (exit 4) unless `--allow-unverified`; so is a `--since` predecessor.
 */
import { ConfigError, ExitCode, exitCodeFor } from "../../errors.js";
import { prepareOutputPaths } from "../../files.js";
import { fromSnapshot } from "../../review/from-snapshot.js";
import type { Snapshot } from "../../review/snapshot.js";
import type { Review } from "../../review/types.js";
import { REVIEW_FORMATS } from "../../report/review/index.js";
import { choiceOption, stringOption, type ParsedCommand } from "../args.js";
import type { Io } from "../io.js";
import { datedPath, ownPath } from "../output-paths.js";
import { loadRuntime } from "../pipeline.js";
import {
  combinedCsvOption,
  combinedCsvPaths,
  reviewOutputPaths,
  writeCombinedCsv,
  writeReview,
} from "../review-output.js";
import { summarize, withOrganization, type FatalWriter } from "../run-targets.js";
import { combinedExitCode, selectTargets } from "../target-selection.js";
import {
  readPublicKey,
  readSnapshotFile,
  verificationProblem,
  verifySnapshot,
} from "../review-snapshot-file.js";

/** A snapshot read from `flag`'s file, verified (digest; signature with --public-key) or refused. */
export async function readVerified(
  values: ParsedCommand["values"],
  path: string,
  flag: string,
): Promise<{ snapshot: Snapshot; problem: string | undefined }> {
  const snapshot = await readSnapshotFile(path, flag);
  const keyPath = stringOption(values, "public-key");
  const key = keyPath !== undefined ? await readPublicKey(keyPath, "--public-key") : undefined;
  const problem = verificationProblem(await verifySnapshot(snapshot, key), snapshot.header.digest);
  if (problem !== undefined && values["allow-unverified"] !== true)
    throw new ConfigError({
      message: `${flag} ${path}: ${problem}. Nothing was read from it. Use the snapshot as it was written (usersync review verify ${path}), or add --allow-unverified to use it anyway.`,
    });
  return { snapshot, problem };
}

export async function runReviewVerify(command: ParsedCommand, io: Io): Promise<number> {
  const file = command.positionals[1];
  if (file === undefined || command.positionals.length > 2)
    throw new ConfigError({
      message:
        "usersync review verify takes one FILE: a snapshot saved with usersync review --format json --out FILE.",
    });
  const snapshot = await readSnapshotFile(file, "verify");
  const keyPath = stringOption(command.values, "public-key");
  const key = keyPath !== undefined ? await readPublicKey(keyPath, "--public-key") : undefined;
  const v = await verifySnapshot(snapshot, key);
  const problem = verificationProblem(v, snapshot.header.digest);
  const h = snapshot.header;
  if (problem !== undefined) throw new ConfigError({ message: `${file} does not verify: ${problem}.` });
  io.stdout.write(
    `${file}: verified. ${h.digest}${v.signature === "valid" ? ", signed by the given key" : h.signature !== undefined ? " (signed; give --public-key to check the signature)" : ""}; ${h.organization} (${h.baseUrl}) listed at ${h.listedAt} by usersync ${h.usersyncVersion}\n`,
  );
  return ExitCode.ok;
}

/**
 * `--from FILE`: render a saved snapshot. With a config's targets (`--all-targets`, `--target`,
 * `--target-index`), each organization's own snapshot (FILE with its name, as the listing run
 * saved it) to its own `--out`, and with `--combined-csv` one CSV of them all: the files a
 * listing run with these options writes, from the snapshots instead of a second listing.
 */
export async function runReviewFrom(
  command: ParsedCommand,
  io: Io,
  from: string,
  fatal: FatalWriter,
): Promise<number> {
  const { values } = command;
  for (const flag of ["since", "no-compare"])
    if (values[flag] !== undefined)
      throw new ConfigError({
        message: `--from renders a saved snapshot as it is; --${flag} needs a listing. Drop one of them.`,
      });
  const combined = combinedCsvOption(command);
  const targeted = ["target", "all-targets", "target-index"].some((f) => values[f] !== undefined);
  if (!targeted)
    return (await renderOne(values, io, datedPath(from)!, datedPath(stringOption(values, "out")))).code;
  // The config says which organizations there are; nothing is listed and no token is read.
  const runtime = await loadRuntime(values, io);
  const selection = selectTargets(values, runtime.config);
  if (selection === undefined)
    throw new ConfigError({
      message: `--from with --${["target", "all-targets", "target-index"].find((f) => values[f] !== undefined)}: the config has no targets: section (docs/multi-org.md). Drop the option to render ${from} alone.`,
    });
  if (combined !== undefined) await prepareOutputPaths(combinedCsvPaths(combined));
  const reviews: Review[] = [];
  const codes = new Map<string, number>();
  // Without --out the combined CSV is the only file; each page goes to stdout only when asked for.
  const toStdout = stringOption(values, "out") === undefined && combined === undefined;
  for (const name of selection.names) {
    const own = (p: string | undefined): string | undefined => ownPath(datedPath(p), { targetName: name });
    try {
      if (toStdout && selection.all) io.stdout.write(`${codes.size > 0 ? "\n" : ""}=== target ${name} ===\n`);
      const out = toStdout ? undefined : own(stringOption(values, "out"));
      const r = await renderOne(values, io, own(from)!, out, {
        skip: combined !== undefined && out === undefined,
        wanted: combined !== undefined,
      });
      codes.set(name, r.code);
      if (r.review !== undefined) reviews.push(r.review);
    } catch (err) {
      const code = exitCodeFor(err);
      io.stderr.write(withOrganization(fatal(err, code), name));
      codes.set(name, code);
    }
  }
  if (combined !== undefined) await writeCombinedCsv(combined, reviews);
  // Every organization's code, as a listing run over the targets says them.
  return selection.all
    ? summarize(runtime, selection.names, codes, new Map())
    : combinedExitCode([...codes.values()]);
}

/**
 * One snapshot rendered to `out` (or stdout; or nowhere, `skip`: only the combined CSV wanted);
 * its review model handed back when `wanted` (for the combined CSV).
 */
async function renderOne(
  values: ParsedCommand["values"],
  io: Io,
  from: string,
  out: string | undefined,
  o: { skip?: boolean; wanted?: boolean } = {},
): Promise<{ code: number; review: Review | undefined }> {
  const { skip = false, wanted = false } = o;
  const format = choiceOption(values, "format", REVIEW_FORMATS) ?? "markdown";
  const { snapshot } = await readVerified(values, from, "--from");
  await prepareOutputPaths(reviewOutputPaths(out, format));
  const findings = snapshot.findings.length;
  const written = skip ? undefined : await writeReview(snapshot, { format, out, io });
  // The combined CSV needs the model; JSON writes the snapshot as it is, which leaves it whole.
  const review = wanted ? (written ?? fromSnapshot(snapshot)) : undefined;
  const code = values["detailed-exitcode"] === true && findings > 0 ? ExitCode.changes : ExitCode.ok;
  return { code, review };
}
