/**
 * Carrying out data filter steps (docs/data-filters.md). A create that meets "exists" reads the
 * filter back: usersync's own (its tag) is brought in line, anyone else's is a conflict. A replace
 * or delete whose outcome stays unknown (no answer, a 5xx after the retries) is settled by reading
 * the filter back: when it already says what the step wanted (or is gone), the step succeeded
 * (`recovered: "readBack"`). A create is retried as a create guarded by the read-back on 409.
 */
import { sameMeaning } from "../data-filters.js";
import { HttpError, NetworkError } from "../errors.js";
import type { DataFilterStep } from "../plan/types.js";
import type { CallOptions, ServiceClient } from "../service/types.js";
import { StepFailure } from "./step-failure.js";

interface Context {
  client: ServiceClient;
  callOptions: CallOptions;
}
type Success = { recovered?: "readBack" | "exists" | "notFound" };

const unknownOutcome = (err: unknown): boolean =>
  err instanceof NetworkError || (err instanceof HttpError && err.status >= 500);

export async function runDataFilterStep(step: DataFilterStep, ctx: Context): Promise<Success> {
  const api = ctx.client.dataFilters;
  if (!api) throw new StepFailure({ message: "data filters need the current API (profile v1)", fatal: true });
  const filter = { id: step.filterId, workspace: step.workspace, assignee: step.assignee };
  const opts = ctx.callOptions;
  if (step.kind === "createDataFilter") {
    const res = await api.create({ ...filter, maql: step.after.maql }, opts);
    if (res.status === "created") return {};
    const found = await api.get(step.workspace, step.filterId);
    if (
      !found?.managed ||
      found.assignee.type !== step.assignee.type ||
      found.assignee.id !== step.assignee.id
    )
      throw new StepFailure({
        message: `conflict: a data filter ${step.filterId} exists on ${step.workspace} that usersync did not make for ${step.assignee.type} ${step.assignee.id}; it is left alone`,
      });
    if (!sameMeaning(found.maql, step.after.maql))
      await api.replace({ ...filter, maql: step.after.maql }, opts);
    return { recovered: "exists" };
  }
  try {
    if (step.kind === "updateDataFilter") {
      await api.replace({ ...filter, maql: step.after.maql }, opts);
      return {};
    }
    return (await api.delete(step.workspace, step.filterId, opts)) === "notFound"
      ? { recovered: "notFound" }
      : {};
  } catch (err) {
    if (err instanceof HttpError && err.status === 404 && step.kind === "updateDataFilter")
      throw new StepFailure({
        message: `data filter ${step.filterId} on ${step.workspace} disappeared since the plan was made; re-run plan`,
        status: 404,
        traceId: err.traceId,
      });
    if (!unknownOutcome(err)) throw err;
    const now = await api.get(step.workspace, step.filterId);
    const landed =
      step.kind === "deleteDataFilter"
        ? now === undefined
        : now !== undefined && sameMeaning(now.maql, step.after.maql);
    if (landed) return { recovered: "readBack" };
    throw err;
  }
}
