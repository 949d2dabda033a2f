/** `usersync emulator`: the local service emulator, until SIGINT or SIGTERM. */
import { loadSeedFile, startEmulator, type EmulatorFaults } from "../../emulator/index.js";
import { ConfigError, ExitCode } from "../../errors.js";
import { choiceOption, intOption, stringOption, type ParsedCommand, type ParsedValues } from "../args.js";
import { describeFaults, loadFaultsFile } from "../emulator-faults.js";
import type { Io } from "../io.js";
import { optional } from "../pipeline.js";

export async function runEmulator({ values }: ParsedCommand, io: Io, signal?: AbortSignal): Promise<number> {
  const port = intOption(values, "port") ?? 8080;
  const profile = choiceOption(values, "profile", ["v1", "legacy", "both"] as const) ?? "both";
  const tokens = (values["token"] as string[] | undefined) ?? ["dev-token"];
  const seedFile = stringOption(values, "seed");
  const faults = await faultsOf(values);
  let emulator;
  try {
    emulator = await startEmulator({
      port,
      profile,
      tokens: Object.fromEntries(tokens.map((t) => [t, "admin"])),
      ...(seedFile !== undefined ? { seed: await loadSeedFile(seedFile) } : {}),
      ...optional("persistPath", stringOption(values, "data")),
      ...optional("faults", faults),
    });
  } catch (err) {
    // A bad seed or data file, or a port in use: the person can fix it.
    throw new ConfigError({ message: `cannot start the emulator: ${(err as Error).message}` });
  }
  // Listening for the stop before saying where it listens: a SIGTERM sent the moment the URL is
  // read must close the emulator cleanly, not find Node's default handler and kill it.
  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    signal?.addEventListener("abort", stop, { once: true });
  });
  io.stdout.write(`${emulator.url}\n`);
  io.stderr.write(
    `usersync emulator (profile ${profile}) listening on ${emulator.url}; ${tokens.length} token(s) accepted. Ctrl-C stops it.\n`,
  );
  if (faults) io.stderr.write(`${describeFaults(faults)}\n`);
  await stopped;
  await emulator.close();
  return ExitCode.ok;
}

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
