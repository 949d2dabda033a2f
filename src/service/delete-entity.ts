/**
 * The one DELETE of the service API: a 404 is an answer, not an error (the object is already
 * gone: someone else deleted it, or a retried delete that succeeded before its answer was lost),
 * so it reports `notFound` and the plan's step counts as done.
 */
import { ENTITY_MEDIA } from "./codec.js";
import type { Transport } from "./transport.js";
import type { CallOptions, DeleteResult } from "./types.js";

export async function deleteEntity(
  transport: Transport,
  path: string,
  opts?: CallOptions,
  mediaType: string = ENTITY_MEDIA,
): Promise<DeleteResult> {
  const { status } = await transport.request({
    method: "DELETE",
    path,
    mediaType,
    accept: [404],
    call: opts,
  });
  return status === 404 ? "notFound" : "deleted";
}
