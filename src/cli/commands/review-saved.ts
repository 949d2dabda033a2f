/**
 * The review's commands on a saved snapshot, with no listing and no config: `usersync review
 * verify FILE` (recompute the digest, check the signature with `--public-key`) and `usersync review
 * --from FILE --format F` (render it: the bytes the run that listed it wrote). A snapshot that does
 * not verify is refused (exit 4) unless `--allow-unverified`; so is a `--since` predecessor.
 */
import { ConfigError, ExitCode } from "../../errors.js";
import { prepareOutputPaths } from "../../files.js";
import type { Snapshot } from "../../review/snapshot.js";
import { REVIEW_FORMATS } from "../../report/review/index.js";
import { choiceOption, stringOption, type ParsedCommand } from "../args.js";
import type { Io } from "../io.js";
import { reviewOutputPaths, writeReview } from "../review-output.js";
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

export async function runReviewFrom(command: ParsedCommand, io: Io, from: string): Promise<number> {
  const { values } = command;
  for (const flag of ["since", "combined-csv", "all-targets", "target", "no-compare"])
    if (values[flag] !== undefined)
      throw new ConfigError({
        message: `--from renders a saved snapshot as it is; --${flag} needs a listing. Drop one of them.`,
      });
  const format = choiceOption(values, "format", REVIEW_FORMATS) ?? "markdown";
  const out = stringOption(values, "out");
  const { snapshot } = await readVerified(values, from, "--from");
  await prepareOutputPaths(reviewOutputPaths(out, format));
  const findings = snapshot.findings.length;
  await writeReview(snapshot, { format, out, io });
  return values["detailed-exitcode"] === true && findings > 0 ? ExitCode.changes : ExitCode.ok;
}
