/**
 * Progress on stderr: on a TTY a one-line bar redrawn in place (`\r`, at most ~10 redraws per
 * second, so a fast run does not spend its time painting); otherwise a plain progress line (or
 * a logger event) every `intervalMs`, which reads well in CI logs and Kubernetes.
 *
 * Hand-written rather than a bar library: it is one line, and what it needs (redrawing below a
 * log line from the pretty logger, see setLineOwner) sits between our logger and the bar, which
 * a library would not know about. The bar shows done/total, rate, ETA (the plan's estimate until
 * enough steps ran to measure), retries and failures.
 */
import type { Logger } from "pino";
import { setLineOwner } from "../logging.js";
import type { Progress } from "./types.js";

export interface ProgressReporterOptions {
  stream: { write(chunk: string): unknown };
  isTTY: boolean;
  /** Steps expected; informational, since every update carries its own `total`. */
  total: number;
  /** Between progress lines when not a TTY (default 5000 ms). */
  intervalMs?: number;
  /** When set (and not a TTY), progress goes to the log instead of a plain line. */
  logger?: Logger;
  /** The plan's estimate in seconds: the ETA until the run has measured its own rate. */
  estimateSeconds?: number;
  /** Test hook: a clock in ms. */
  now?: () => number;
}

export interface ProgressReporter {
  update(p: Progress): void;
  /** Draws the last state and ends the line. */
  done(): void;
}

const TTY_REDRAW_MS = 100;
const BAR_WIDTH = 30;

export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  const now = options.now ?? (() => performance.now());
  const interval = options.isTTY ? TTY_REDRAW_MS : (options.intervalMs ?? 5000);
  const started = now();
  let last: Progress | undefined;
  let lastShown: Progress | undefined;
  let lastDrawn = -Infinity;
  let drawnWidth = 0;

  const eta = (p: Progress): number | undefined =>
    etaSeconds(p, (now() - started) / 1000, options.estimateSeconds);
  const draw = (p: Progress): void => {
    if (options.isTTY) {
      const line = barLine(p, (now() - started) / 1000, eta(p));
      // Pad over the previous, possibly longer line.
      options.stream.write(`\r${line.padEnd(drawnWidth)}`);
      drawnWidth = line.length;
    } else {
      plainProgress(options, p, now() - started);
    }
  };

  if (options.isTTY) {
    setLineOwner({
      clear: () => {
        if (drawnWidth > 0) options.stream.write("\r\x1b[K");
      },
      redraw: () => {
        if (drawnWidth > 0 && lastShown)
          options.stream.write(`\r${barLine(lastShown, (now() - started) / 1000, eta(lastShown))}`);
      },
    });
  }

  return {
    update(p) {
      last = p;
      const t = now();
      if (t - lastDrawn >= interval) {
        lastDrawn = t;
        lastShown = p;
        draw(p);
      }
    },
    done() {
      if (options.isTTY) setLineOwner(undefined);
      if (!last) return;
      if (options.isTTY) {
        lastShown = last;
        draw(last);
        options.stream.write("\n");
      } else if (lastShown !== last) {
        draw(last);
      }
    },
  };
}

/** Off a TTY: a log event when there is a logger, else a plain line. */
function plainProgress(options: ProgressReporterOptions, p: Progress, elapsedMs: number): void {
  if (options.logger)
    options.logger.info({ done: p.done, total: p.total, running: p.running, ...p.counts }, "apply progress");
  else options.stream.write(`${textLine(p, elapsedMs)}\n`);
}

/** Measured once a few steps and a second have passed; the plan's estimate before that. */
function etaSeconds(p: Progress, elapsedS: number, estimateS: number | undefined): number | undefined {
  const remaining = p.total - p.done - (p.notStarted ?? 0);
  if (p.done >= 10 && elapsedS >= 1) return (remaining * elapsedS) / p.done;
  if (estimateS === undefined || p.total === 0) return undefined;
  return Math.max(0, estimateS - elapsedS);
}

/** 2,078: the bar counts as the summary below it does. */
const num = (n: number): string => n.toLocaleString("en-US");

function barLine(p: Progress, elapsedS: number, etaS: number | undefined): string {
  const share = p.total === 0 ? 1 : p.done / p.total;
  const filled = Math.round(share * BAR_WIDTH);
  const parts = [`${num(p.done)}/${num(p.total)} steps`, `${num(p.running)} running`];
  if (elapsedS >= 1) parts.push(`${(p.done / elapsedS).toFixed(1)}/s`);
  // A stopped run has no time left to estimate; what it left undone is said once, by the
  // summary after the bar, not here as well.
  if (etaS !== undefined && p.done < p.total && !p.notStarted) parts.push(`ETA ${clock(etaS)}`);
  if (p.retries) parts.push(`${num(p.retries)} retried`);
  if (p.counts.failed) parts.push(`${num(p.counts.failed)} failed`);
  return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${parts.join(", ")}`;
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

function textLine(p: Progress, elapsedMs: number): string {
  const pct = p.total === 0 ? 100 : Math.floor((p.done / p.total) * 100);
  const notStarted = p.notStarted ? `, ${p.notStarted} not started` : "";
  return `progress: ${p.done}/${p.total} steps (${pct}%), ${p.running} running, ${p.counts.succeeded} succeeded, ${p.counts.failed} failed, ${p.counts.skipped - (p.notStarted ?? 0)} skipped, ${p.retries ?? 0} retried${notStarted}, ${Math.round(elapsedMs / 1000)} s elapsed`;
}
