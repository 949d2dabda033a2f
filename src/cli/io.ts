/**
 * What a command may touch of the process: streams, environment, working folder. Passed in, so
 * the end-to-end tests can run commands in-process as well as through the built binary.
 */
import { createInterface } from "node:readline/promises";

export interface OutStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export interface Io {
  stdout: OutStream;
  stderr: OutStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

/**
 * The log format a run chose for a stderr (once its config was read), so the fatal error is
 * written the same way as the logs before it. Keyed by the stream: a copied Io shares it.
 */
const logFormats = new WeakMap<OutStream, "json" | "pretty">();
export const setLogFormat = (stderr: OutStream, format: "json" | "pretty"): void =>
  void logFormats.set(stderr, format);
export const chosenLogFormat = (stderr: OutStream): "json" | "pretty" | undefined => logFormats.get(stderr);

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function useColor(stream: OutStream, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env["NO_COLOR"] ?? "") === "" && env["TERM"] !== "dumb";
}

/** Asks on the terminal; only the word "yes" confirms. */
export async function confirm(io: Io, question: string): Promise<boolean> {
  const rl = createInterface({ input: io.stdin, output: io.stderr as NodeJS.WritableStream, terminal: true });
  try {
    const answer = await rl.question(`${question} Only "yes" will be accepted: `);
    return answer.trim() === "yes";
  } catch (err) {
    // Ctrl-C (or Ctrl-D) at the question is a "no", not an unexpected error. The cursor is still
    // after the question: end its line, so what follows starts on a line of its own.
    if ((err as { code?: string }).code === "ABORT_ERR") {
      io.stderr.write("\n");
      return false;
    }
    throw err;
  } finally {
    rl.close();
  }
}

export function canPrompt(io: Io): boolean {
  return io.stdin.isTTY === true && io.stderr.isTTY === true;
}
