/**
 * The one pino logger factory. JSON lines on stderr by default; `pretty` is a small built-in
 * line format (no pino-pretty). Secrets are redacted by path, and `redactSecrets` scrubs known
 * secret values out of free text before it reaches an error or a log line.
 */
import { Writable } from "node:stream";
import { pino, type Logger } from "pino";

export interface LoggerOptions {
  level?: string;
  format?: "json" | "pretty";
  /** A stream or a file descriptor (default 2, stderr). */
  destination?: NodeJS.WritableStream | number;
}

/** Paths pino censors wherever they appear in a log object. */
export const REDACT_PATHS = [
  "password",
  "*.password",
  "*.*.password",
  "token",
  "*.token",
  "*.*.token",
  "authorization",
  "Authorization",
  "*.authorization",
  "*.Authorization",
  "headers.authorization",
  "headers.Authorization",
  "req.headers.authorization",
  "body.password",
  "body.data.attributes.password",
];

const LEVELS: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};
const OMIT = new Set(["level", "time", "msg", "pid", "hostname"]);

/** One JSON log line -> `HH:MM:SS.mmm LEVEL message key=value ...`. */
export function formatPrettyLine(line: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith("\n") ? line : `${line}\n`;
  }
  const time = typeof o["time"] === "number" ? new Date(o["time"]).toISOString().slice(11, 23) : "";
  const level = LEVELS[Number(o["level"])] ?? String(o["level"]);
  const rest = Object.entries(o)
    .filter(([k]) => !OMIT.has(k))
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");
  return `${time} ${level.padEnd(5)} ${String(o["msg"] ?? "")}${rest ? ` ${rest}` : ""}\n`;
}

/**
 * A display that owns the last terminal line (the progress bar): told before and after each
 * log line, so it can clear itself and redraw below the line instead of being torn by it.
 */
export interface LineOwner {
  clear(): void;
  redraw(): void;
}
let lineOwner: LineOwner | undefined;
export function setLineOwner(owner: LineOwner | undefined): void {
  lineOwner = owner;
}

/** Log lines written whole, each one around the line owner's clear and redraw (the bar). */
function lineStream(out: { write(s: string): unknown }, format: (line: string) => string): Writable {
  let pending = "";
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      pending += chunk.toString();
      let nl = pending.indexOf("\n");
      while (nl >= 0) {
        lineOwner?.clear();
        out.write(format(pending.slice(0, nl)));
        lineOwner?.redraw();
        pending = pending.slice(nl + 1);
        nl = pending.indexOf("\n");
      }
      done();
    },
  });
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const dest = options.destination ?? 2;
  const opts = {
    level: options.level ?? "info",
    base: null,
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
  };
  const out: { write(s: string): unknown } =
    typeof dest === "number" ? pino.destination({ fd: dest, sync: true }) : dest;
  if (options.format === "pretty") return pino(opts, lineStream(out, formatPrettyLine));
  // JSON lines on a terminal share it with the progress bar too (--log-format json on a TTY).
  if (typeof dest !== "number" && (dest as { isTTY?: boolean }).isTTY === true)
    return pino(
      opts,
      lineStream(out, (line) => `${line}\n`),
    );
  return pino(opts, out as NodeJS.WritableStream);
}

/** Replaces every occurrence of each (non-trivial) secret, also URL-encoded, with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length < 4) continue; // too short to be a real secret; replacing would garble text
    for (const form of new Set([s, encodeURIComponent(s)])) out = out.split(form).join("[redacted]");
  }
  return out;
}
