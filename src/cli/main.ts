/**
 * The top of the program: parse, dispatch, and one handler that turns any error into a message
 * a person can act on and a stable exit code. Nothing secret reaches these messages: errors are
 * built without secrets (src/errors.ts).
 */
import {
  AnswerError,
  ExitCode,
  exitCodeFor,
  formatProblem,
  ConfigError,
  DirectoryError,
  InputError,
  isUntrustedCertificate,
  HttpError,
  Interrupted,
  NetworkError,
  SourceUnavailableError,
  UsersyncError,
  type Problem,
} from "../errors.js";
import { parseCommandLine, type CommandName, type ParsedCommand } from "./args.js";
import { chosenLogFormat, processIo, type Io } from "./io.js";
import { onInterrupt } from "./interrupt.js";
import { runPlan } from "./commands/plan.js";
import { runApply } from "./commands/apply.js";
import { runValidate } from "./commands/validate.js";
import { runExport } from "./commands/export.js";
import { runEmulator } from "./commands/emulator.js";
import { runDemo } from "./commands/demo.js";
import { runForTargets, type FatalWriter } from "./run-targets.js";
import { runReviewTargets } from "./commands/review.js";
import { runCampaign } from "./commands/campaign.js";
import { runCredentials } from "./commands/credentials.js";
import { version } from "./version.js";

export { version } from "./version.js";
import { usersyncCommand } from "./invocation.js";

const handlers: Record<CommandName, (cmd: ParsedCommand, io: Io) => Promise<number>> = {
  // Plan and apply run once, or once per target of a config with targets: (run-targets.ts).
  plan: (cmd, io) => runForTargets(cmd, io, (runtime) => runPlan(cmd, runtime), fatalWriter(io)),
  apply: (cmd, io) => runForTargets(cmd, io, (runtime) => runApply(cmd, runtime), fatalWriter(io)),
  review: (cmd, io) => runReviewTargets(cmd, io, fatalWriter(io)),
  campaign: (cmd, io) => runCampaign(cmd, io, fatalWriter(io)),
  credentials: (cmd, io) => runCredentials(cmd, io, fatalWriter(io)),
  validate: runValidate,
  // Export lists each organization; it reads no shared source (--source ldap reads it itself).
  export: (cmd, io) =>
    runForTargets(cmd, io, (runtime) => runExport(cmd, runtime), fatalWriter(io), { slices: false }),
  emulator: runEmulator,
  demo: runDemo,
};

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  let release = (): void => {};
  try {
    const parsed = parseCommandLine(argv);
    if (parsed.kind === "help") {
      io.stdout.write(`${parsed.text}\n`);
      return ExitCode.ok;
    }
    if (parsed.kind === "version") {
      io.stdout.write(`usersync ${version()}\n`);
      return ExitCode.ok;
    }
    const { command } = parsed.parsed;
    // Until an apply starts nothing was changed and nothing is left to finish: say so and stop.
    if (command !== "emulator") release = onInterrupt((signal) => exitInterrupted(signal, argv, io));
    return await handlers[command](parsed.parsed, io);
  } catch (err) {
    const exitCode = exitCodeFor(err);
    io.stderr.write(fatalOutput(err, exitCode, argv, io));
    return exitCode;
  } finally {
    release();
  }
}

function exitInterrupted(signal: NodeJS.Signals, argv: readonly string[], io: Io): never {
  const err = new Interrupted({
    message: `interrupted (${signal}) before any change was sent: nothing was changed in the service. Run the command again when you are ready.`,
  });
  // The terminal echoed ^C where the cursor was: the message starts on a line of its own.
  const text = fatalOutput(err, ExitCode.interrupted, argv, io);
  io.stderr.write(io.stderr.isTTY && !text.startsWith("{") ? `\n${text}` : text);
  process.exit(ExitCode.interrupted);
}

/** A target's fatal error, written like the run's logs (their format was chosen with the config). */
const fatalWriter =
  (io: Io): FatalWriter =>
  (err, exitCode, hint) =>
    fatalOutput(err, exitCode, [], io, hint);

/** The fatal error as the run's logs are written: one JSON line, or text for a person. */
export function fatalOutput(
  err: unknown,
  exitCode: number,
  argv: readonly string[],
  io: Io,
  hint?: { token: string },
): string {
  return fatalFormat(argv, io) === "json" ? fatalJsonLine(err, exitCode, hint) : describeError(err, hint);
}

/**
 * The format of the run's logs: the one the run chose once its config was read, else the one
 * asked for (`--log-format`, USERSYNC_LOGGING_FORMAT), else, like the logger's `auto`, pretty on
 * a terminal and JSON otherwise: off a terminal stderr is JSON lines only, fatal error included,
 * so a log collector keeps the one line that matters. Read from the raw arguments: the error may
 * come from parsing them or the config.
 */
function fatalFormat(argv: readonly string[], io: Io): "json" | "pretty" {
  const chosen = chosenLogFormat(io.stderr);
  if (chosen !== undefined) return chosen;
  const i = argv.indexOf("--log-format");
  const inline = argv.find((a) => a.startsWith("--log-format="))?.slice("--log-format=".length);
  const asked = i >= 0 ? argv[i + 1] : (inline ?? io.env["USERSYNC_LOGGING_FORMAT"]);
  if (asked === "json" || asked === "pretty") return asked;
  return io.stderr.isTTY === true ? "pretty" : "json";
}

export function fatalJsonLine(err: unknown, exitCode: number, hint?: { token: string }): string {
  const code = err instanceof UsersyncError ? err.code : "INTERNAL";
  const msg = describeError(err, hint)
    .replace(/^usersync: /, "")
    .trimEnd();
  return `${JSON.stringify({ level: 60, time: Date.now(), msg, code, exitCode })}\n`;
}

const ANSWER_HINT =
  "usersync stopped before any change. Check that target.baseUrl is the service itself " +
  "(not a sign-in page, a proxy or a load balancer's error page), then run again (docs/configuration.md, " +
  '"Answers usersync refuses").';

/** A failure that reached the CLI was retried as often as allowed if the retry policy could retry it. */
const retriedNote = (err: HttpError | NetworkError): string => (err.retryable ? ", after every retry" : "");

/** The message's first line is the summary; the problems below it are listed once here. */
function withProblems(err: Error & { problems: readonly Problem[] }, hint: string): string {
  const lines = err.problems.map((p) => `  ${formatProblem(p)}\n`).join("");
  const summary = lines === "" ? err.message : err.message.split("\n")[0];
  return `usersync: ${summary}\n${lines}${hint}`;
}

const SOURCE_HINT =
  "Nothing was changed in the service. The source could not be read now (exit 5): check that the directory is up and reachable, or that the file and its share are mounted; a later run may succeed.\n";

/** Where a directory's setup error is fixed: its own settings and docs. */
function directorySettings(err: DirectoryError): string {
  return err.source === undefined
    ? "source.ldap, docs/ldap.md; source.entra, docs/entra.md; source.okta, docs/okta.md"
    : `source.${err.source}, docs/${err.source}.md`;
}

/** `where.token`: where the token of the target that ran is read (a target's USERSYNC_TOKEN_<NAME>). */
export function describeError(err: unknown, where?: { token: string }): string {
  if (err instanceof SourceUnavailableError) return withProblems(err, SOURCE_HINT);
  if (err instanceof InputError || err instanceof ConfigError) {
    const hint =
      err instanceof InputError
        ? err instanceof DirectoryError
          ? `Nothing was changed in the service. Fix the directory settings (${directorySettings(err)}) and run again (${usersyncCommand()} validate).\n`
          : `Nothing was changed in the service. Fix the file(s) and run again (${usersyncCommand()} validate FILE).\n`
        : "";
    return withProblems(err, hint);
  }
  if (err instanceof HttpError) {
    const hint =
      err.status === 401
        ? ` The token was refused: it is wrong or has expired. Check ${where?.token ?? "USERSYNC_TOKEN (or target.tokenEnv, target.tokenFile)"}.`
        : err.status === 403
          ? " The token is valid but may not manage users: use the token of an organization admin."
          : "";
    return `usersync: ${err.message}${retriedNote(err)}.${hint}\n`;
  }
  if (err instanceof NetworkError) {
    const retried = retriedNote(err);
    // An untrusted certificate carries its own advice (target.caFile) in the message.
    const hint = isUntrustedCertificate(err.causeCode)
      ? ""
      : /WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG/.test(err.causeCode)
        ? " The server does not answer TLS on that port: check target.baseUrl (http:// for a local emulator, https:// for the service) and its port."
        : " Check target.baseUrl and that the service is reachable from here.";
    return `usersync: ${err.message}${retried}.${hint}\n`;
  }
  if (err instanceof AnswerError) {
    // One answer (with a status) was retried; a listing that never added up says how often it was read.
    const retried = err.status !== undefined ? ", after every retry" : "";
    return `usersync: ${err.message}${retried}.\n${ANSWER_HINT}\n`;
  }
  if (err instanceof UsersyncError) return `usersync: ${err.message}\n`;
  const message = err instanceof Error ? err.message : String(err);
  return `usersync: unexpected error: ${message}\nPlease report it with the command you ran (without any token).\n`;
}
