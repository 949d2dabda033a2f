/** A failure the executor explains itself (conflicts, vanished objects); carries no secret. */
export class StepFailure extends Error {
  readonly status: number | undefined;
  readonly traceId: string | undefined;
  /** Stops the run like a 401: every later step would fail the same way. */
  readonly fatal: boolean;
  constructor(init: { message: string; status?: number; traceId?: string | undefined; fatal?: boolean }) {
    super(init.message);
    this.name = "StepFailure";
    this.status = init.status;
    this.traceId = init.traceId;
    this.fatal = init.fatal ?? false;
  }
}
