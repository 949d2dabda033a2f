/** What a route handler gets: the parsed request and the shared store. */
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
