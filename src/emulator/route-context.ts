/** What a route handler gets (the parsed request and the shared store), and the routes' table rows. */
import type { Profile } from "./entity-docs.js";
import type { Reply } from "./http-util.js";
import type { Store } from "./store.js";
import type { EmulatorFaults } from "./types.js";

export interface RouteContext {
  method: string;
  /** Decoded path parameter (`{userEmail}`, `{id}`), when the path has one. */
  param: string | undefined;
  query: URLSearchParams;
  /** `http://127.0.0.1:port`, for `links`. */
  base: string;
  /** Path and query string as requested, for `links.self` of lists. */
  url: string;
  /** Parses the body as JSON of the given media type (415/400 as problems). */
  body(expectedMediaType: string): unknown;
  store: Store;
  faults: Readonly<EmulatorFaults>;
}

export type Handler = (ctx: RouteContext, caller: string) => Reply;

/** A row of the emulator's ROUTES (server.ts). */
export interface Route {
  profile: Profile;
  pattern: RegExp;
  /** Capture group of the path parameter, if any. */
  param?: number;
  /** A route of the built-in identity provider (not served with `builtinIdp: false`). */
  idp?: true;
  /** A userManagement action (answers 404 or 405 with the `userManagement` option set so). */
  userManagement?: true;
  handler: (match: RegExpExecArray) => Handler;
}
