/**
 * Ctrl-C and SIGTERM. One listener per signal for the whole command; what an interrupt means
 * depends on the phase, so the handler of the innermost phase answers it:
 * - before an apply starts (reading, listing, planning, printing the plan), nothing was changed
 *   and nothing is left to finish: main.ts says so in one line and exits 130 at once;
 * - during an apply (execute.ts), the first lets the running steps finish and writes the report;
 *   a second one says what was still running, writes the report and exits 130 at once;
 * - the emulator closes its server and exits 0.
 */

export type InterruptHandler = (signal: NodeJS.Signals) => void;

const handlers: InterruptHandler[] = [];
const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM"];

function dispatch(signal: NodeJS.Signals): void {
  handlers.at(-1)?.(signal);
}

/** Makes `handler` the one that answers interrupts until the returned function is called. */
export function onInterrupt(handler: InterruptHandler): () => void {
  if (handlers.length === 0) for (const s of SIGNALS) process.on(s, dispatch);
  handlers.push(handler);
  return () => {
    const i = handlers.lastIndexOf(handler);
    if (i >= 0) handlers.splice(i, 1);
    if (handlers.length === 0) for (const s of SIGNALS) process.off(s, dispatch);
  };
}
