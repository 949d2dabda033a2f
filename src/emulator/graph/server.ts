/**
 * A Microsoft Graph v1.0 and identity-platform stand-in on a real socket (HTTPS when given a key
 * and certificate: MSAL refuses an authority that is not https). It serves what a directory
 * reader uses: `/v1.0/groups` ($filter, $select, $top, $count), `/v1.0/groups/{id}`,
 * `/v1.0/groups/{id}/transitiveMembers[/microsoft.graph.<type>][/$count]` and `/members`,
 * `/v1.0/users/delta` and `/v1.0/groups/delta` (delta.ts), with
 * opaque `$skiptoken` nextLinks, Graph's error body `{error: {code, message, innerError}}`, and
 * faults on demand (routes.ts). It stops by itself after `idleMs` without a request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { listenStandIn } from "../stand-in-listen.js";
import { Directory, type GraphTenant } from "./directory.js";
import { GraphQueryError } from "./query.js";
import type { TenantChanges } from "./delta.js";
import { GraphRoutes, graphError, type Answer, type GraphFault } from "./routes.js";

export type { GraphFault, GraphFaultKind } from "./routes.js";
export type { TenantChanges } from "./delta.js";
export * from "./directory.js";

export interface GraphRequestRecord {
  method: string;
  path: string;
  query: string;
  consistencyLevel: string | undefined;
  status: number;
}

export interface GraphStandInOptions {
  tenant: GraphTenant;
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** Delay before every answer (ms), to stand in for the network. */
  latencyMs?: number;
  faults?: GraphFault[];
  /** Stops by itself after this long without a request (default 10 minutes). */
  idleMs?: number;
  /** The port on 127.0.0.1 (default 0: a free one). */
  port?: number;
}

export interface GraphStandIn {
  /** Base URL of both the authority host and Graph (`{url}/v1.0/...`). */
  url: string;
  directory: Directory;
  requests: GraphRequestRecord[];
  /** Faults still to fire; push more between runs. */
  faults: GraphFault[];
  /** Change the tenant through this so the delta query reports it (delta.ts). */
  changes: TenantChanges;
  close(): Promise<void>;
}

const GRAPH_JSON =
  "application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8";

export async function startGraphStandIn(options: GraphStandInOptions): Promise<GraphStandIn> {
  const faults = options.faults ?? [];
  const routes = new GraphRoutes(new Directory(options.tenant), faults);
  const requests: GraphRequestRecord[] = [];

  const answer = async (req: IncomingMessage): Promise<Answer> => {
    try {
      return await routes.handle(req);
    } catch (err) {
      return err instanceof GraphQueryError
        ? graphError(err.status, err.code, err.message)
        : graphError(500, "UnknownError", String((err as Error).message));
    }
  };
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    void answer(req).then(async (a) => {
      const url = new URL(req.url ?? "/", "http://stand-in");
      const consistencyLevel = req.headers["consistencylevel"] as string | undefined;
      requests.push({
        method: req.method ?? "",
        path: url.pathname,
        query: url.search,
        consistencyLevel,
        status: a.status,
      });
      if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
      if (a.status === -1) return void req.socket.destroy();
      res.writeHead(a.status, { "Content-Type": a.contentType ?? GRAPH_JSON, ...a.headers });
      res.end(a.text ?? JSON.stringify(a.body));
    });
  };

  const { url, close } = await listenStandIn(listener, options);
  routes.base = url;
  return { url, directory: routes.directory, requests, faults, changes: routes.changes, close };
}
