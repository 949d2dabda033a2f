/**
 * How a directory stand-in (graph/, google/) listens: on 127.0.0.1, port 0 unless given, over
 * HTTPS when given a key and certificate (MSAL refuses an authority that is not https), and it
 * stops by itself after `idleMs` (ten minutes unless given) without a request.
 */
import {
  createServer as createHttp,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttps } from "node:https";
import type { AddressInfo } from "node:net";

export interface StandInListen {
  tls?: { key: string | Buffer; cert: string | Buffer };
  port?: number;
  idleMs?: number;
}

export async function listenStandIn(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options: StandInListen,
): Promise<{ url: string; close: () => Promise<void> }> {
  // `idle` is set before the first request can arrive: nothing awaits between listening and it.
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    idle.refresh();
    handler(req, res);
  };
  const server: Server = options.tls
    ? createHttps({ ...options.tls, noDelay: true }, listener)
    : createHttp({ noDelay: true }, listener);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      clearTimeout(idle);
      server.closeAllConnections();
      server.close(() => resolve());
    });
  const idle = setTimeout(() => void close(), options.idleMs ?? 600_000);
  idle.unref();
  return { url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}`, close };
}
