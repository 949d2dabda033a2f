/** `usersync emulator`: the local service emulator, until SIGINT or SIGTERM. */
import type { Logger } from "pino";
import { loadSeedFile, startEmulator, type EmulatorFaults } from "../../emulator/index.js";
import { startStandIn, STAND_INS, type RunningStandIn } from "../../emulator/stand-ins.js";
import { ConfigError, ExitCode } from "../../errors.js";
import { choiceOption, intOption, stringOption, type ParsedCommand, type ParsedValues } from "../args.js";
import { describeFaults, loadFaultsFile } from "../emulator-faults.js";
import type { Io } from "../io.js";
import { optional, runLogger } from "../pipeline.js";
import { onInterrupt } from "../interrupt.js";

export async function runEmulator({ values }: ParsedCommand, io: Io, signal?: AbortSignal): Promise<number> {
  const port = intOption(values, "port") ?? 8080;
  const profile = choiceOption(values, "profile", ["v1", "legacy", "both"] as const) ?? "both";
  const tokens = (values["token"] as string[] | undefined) ?? ["dev-token"];
  const seedFile = stringOption(values, "seed");
  const userManagement = choiceOption(values, "user-management", ["on", "404", "405"] as const) ?? "on";
  const logger = emulatorLogger(values, io);
  const faults = await faultsOf(values);
  let emulator;
  try {
    emulator = await startEmulator({
      port,
      profile,
      userManagement: userManagement === "on" ? "on" : userManagement === "404" ? 404 : 405,
      tokens: Object.fromEntries(tokens.map((t) => [t, "admin"])),
      ...(seedFile !== undefined ? { seed: await loadSeedFile(seedFile) } : {}),
      ...optional("persistPath", stringOption(values, "data")),
      ...optional("faults", faults),
    });
  } catch (err) {
    // A bad seed or data file, or a port in use: the person can fix it.
    throw new ConfigError({ message: startFailure(err, port) });
  }
  let directory: (RunningStandIn & { config: string }) | undefined;
  try {
    directory = await directoryStandIn(values, io, emulator.url);
  } catch (err) {
    await emulator.close();
    throw new ConfigError({ message: `cannot start the directory stand-in: ${(err as Error).message}` });
  }
  // Listening for the stop before saying where it listens: a SIGTERM sent the moment the URL is
  // read must close the emulator cleanly, not find Node's default handler and kill it.
  let release = (): void => {};
  const stopped = new Promise<void>((resolve) => {
    release = onInterrupt(() => resolve());
    signal?.addEventListener("abort", () => resolve(), { once: true });
  });
  try {
    io.stdout.write(`${emulator.url}\n`);
    if (directory)
      io.stdout.write(
        `${[...directory.notes, `a config that reads it and targets this emulator: ${directory.config}`].map((n) => `# ${n}`).join("\n")}\n# paste into your config, beside target.baseUrl: ${emulator.url}\n${directory.source}\n`,
      );
    logger.info(
      { url: emulator.url, profile, tokens: tokens.length },
      `usersync emulator (profile ${profile}) listening on ${emulator.url}; ${tokens.length} token(s) accepted. Ctrl-C stops it.`,
    );
    if (faults) logger.info(describeFaults(faults));
    await stopped;
  } finally {
    release();
    await directory?.close();
    await emulator.close();
  }
  return ExitCode.ok;
}

/** What went wrong starting it, and what to do; a port in use is the usual one. */
function startFailure(err: unknown, port: number): string {
  if ((err as NodeJS.ErrnoException).code === "EADDRINUSE")
    return `cannot start the emulator: port ${port} on 127.0.0.1 is already in use (another emulator still running?). Stop what listens there, or choose another port: --port N (--port 0 picks a free one and prints it).`;
  return `cannot start the emulator: ${(err as Error).message}`;
}

/** The emulator reads no config file: its logs follow --log-level and --log-format (or their variables). */
function emulatorLogger(values: ParsedValues, io: Io): Logger {
  const env = (name: string): ParsedValues => {
    const v = io.env[`USERSYNC_LOGGING_${name.toUpperCase()}`];
    return v === undefined || v === "" ? {} : { [`log-${name}`]: v };
  };
  const pick = { ...env("level"), ...env("format"), ...values };
  return runLogger(io, {
    level: choiceOption(pick, "log-level", LOG_LEVELS) ?? "info",
    format: choiceOption(pick, "log-format", ["auto", "json", "pretty"] as const) ?? "auto",
  });
}

const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/**
 * `--faults FILE`, read and validated before anything listens (a bad file exits 4), and
 * `--latency MS`, which wins over the file's latencyMs.
 */
async function faultsOf(values: ParsedValues): Promise<EmulatorFaults | undefined> {
  const file = stringOption(values, "faults");
  const latency = intOption(values, "latency");
  if (file === undefined && latency === undefined) return undefined;
  return { ...(file !== undefined ? await loadFaultsFile(file) : {}), ...optional("latencyMs", latency) };
}

/** `--directory KIND` (graph, okta, google): a directory stand-in beside the service, from `--directory-seed`. */
async function directoryStandIn(
  values: ParsedValues,
  io: Io,
  serviceUrl: string,
): Promise<(RunningStandIn & { config: string }) | undefined> {
  const kind = choiceOption(values, "directory", Object.keys(STAND_INS) as [string, ...string[]]);
  if (kind === undefined) return undefined;
  return startStandIn(kind, {
    seed: stringOption(values, "directory-seed"),
    port: intOption(values, "directory-port") ?? 0,
    dir: stringOption(values, "directory-files") ?? `${io.cwd}/.usersync/stand-in`,
    serviceUrl,
  });
}
