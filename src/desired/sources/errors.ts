/** The errors of a directory read (src/desired/sources/): exit 5 for a read not whole, and a setup error's raw material. */
import { SourceUnavailableError, UsersyncError, type Problem } from "../../errors.js";

/**
 * A directory read that cannot be proved whole (a page loop, counts that do not add up, a group
 * that suddenly reads empty, throttling past its budget): exit 5 like any unavailable source,
 * naming the read and why. Nothing is planned from it.
 */
export class SourceIncompleteError extends SourceUnavailableError {
  /** The read at fault, e.g. `members of group Sales (entra:1f2e…)`. */
  readonly read: string;
  readonly reason: string;
  constructor(init: { read: string; reason: string; problems?: Problem[] }) {
    super({ message: `${init.read}: ${init.reason}`, ...(init.problems ? { problems: init.problems } : {}) });
    this.read = init.read;
    this.reason = init.reason;
  }
}

/**
 * A directory (Graph, Okta) answered a request with a status no retry fixes (400, 401, 403,
 * 404): the source's reader turns it into a setup error that names the fix (a DirectoryError,
 * exit 4). Carries the request without its query secrets and the parsed body.
 */
export class DirectoryHttpError extends UsersyncError {
  readonly code = "HTTP_ERROR" as const;
  readonly directory: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** The parsed JSON body, or the start of a text body. */
  readonly body: unknown;
  constructor(init: {
    directory: string;
    method: string;
    path: string;
    status: number;
    body: unknown;
    detail?: string;
  }) {
    super(
      `${init.directory}: ${init.method} ${init.path} answered ${init.status}${init.detail ? `: ${init.detail}` : ""}`,
    );
    this.name = "DirectoryHttpError";
    this.directory = init.directory;
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.body = init.body;
  }
}
