/**
 * An Io for running the CLI in this process (`main(argv, io)`): what it writes to stdout and
 * stderr is kept, stdin is empty, the environment is only what the test gives.
 */
import { PassThrough } from "node:stream";
import type { Io } from "../../src/cli/io.js";

export function captureIo(o: { env?: NodeJS.ProcessEnv; cwd?: string; isTTY?: boolean } = {}): {
  io: Io;
  err: () => string;
  out: () => string;
} {
  let err = "";
  let out = "";
  const io: Io = {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true), isTTY: o.isTTY ?? false },
    stdin: new PassThrough(),
    env: o.env ?? {},
    cwd: o.cwd ?? process.cwd(),
  };
  return { io, err: () => err, out: () => out };
}
