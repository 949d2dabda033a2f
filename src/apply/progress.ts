/**
 * Progress on stderr: on a TTY a one-line bar redrawn in place (`\r`, at most ~10 redraws per
 * second, so a fast run does not spend its time painting); otherwise a plain progress line (or
 * a logger event) every `intervalMs`, which reads well in CI logs and Kubernetes.
 */
import type { Logger } from "pino";
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

  const draw = (p: Progress): void => {
    if (options.isTTY) {
      const line = barLine(p);
      // Pad over the previous, possibly longer line.
      options.stream.write(`\r${line.padEnd(drawnWidth)}`);
      drawnWidth = line.length;
    } else if (options.logger) {
      options.logger.info(
        { done: p.done, total: p.total, running: p.running, ...p.counts },
        "apply progress",
      );
    } else {
      options.stream.write(`${textLine(p, now() - started)}\n`);
    }
  };

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
      if (!last) return;
      if (options.isTTY) {
        draw(last);
        options.stream.write("\n");
      } else if (lastShown !== last) {
        draw(last);
      }
    },
  };
}

function barLine(p: Progress): string {
  const share = p.total === 0 ? 1 : p.done / p.total;
  const filled = Math.round(share * BAR_WIDTH);
  const failed = p.counts.failed + p.counts.skipped;
  return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${p.done}/${p.total} steps, ${p.running} running${failed ? `, ${failed} failed or skipped` : ""}`;
}

function textLine(p: Progress, elapsedMs: number): string {
  const pct = p.total === 0 ? 100 : Math.floor((p.done / p.total) * 100);
  return `progress: ${p.done}/${p.total} steps (${pct}%), ${p.running} running, ${p.counts.succeeded} succeeded, ${p.counts.failed} failed, ${p.counts.skipped} skipped, ${Math.round(elapsedMs / 1000)} s elapsed`;
}
