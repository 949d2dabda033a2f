/**
 * The request pipeline: route -> auth (401/403) -> faults (one draw, rate limit, latency, a broken
 * answer) -> body -> handler -> answer (or a lost or broken answer) -> log -> persist.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Profile } from "./entity-docs.js";
import { handleGroups, handleUsers } from "./entity-routes.js";
import { brokenUrl } from "./broken-answers.js";
import type { FaultDecision, FaultEngine } from "./faults.js";
import type { RateLimitStatus } from "./rate-headers.js";
import {
  JSON_TYPE,
  ProblemError,
  jsonBody,
  parseBody,
  problemReply,
  readBody,
  redact,
  unauthorized,
  type Reply,
} from "./http-util.js";
import { handleIdp } from "./idp-routes.js";
import { notAllowed, USER_MANAGEMENT_ROUTES } from "./member-routes.js";
import { profileReply } from "./profile-route.js";
import { PERMISSION_ROUTES } from "./access-routes.js";
import { ORGANIZATION_ROUTES } from "./organization-route.js";
import { API_TOKEN_ROUTES } from "./api-token-routes.js";
import { finisher, writeAnswer } from "./write-answer.js";
import type { Persister } from "./persistence.js";
import type { RequestLog } from "./request-log.js";
import type { Handler, Route, RouteContext } from "./route-context.js";
import type { Store } from "./store.js";
import type { EmulatorOptions, RequestLogEntry } from "./types.js";

export interface PipelineDeps {
  store: Store;
  faults: FaultEngine;
  log: RequestLog;
  persister: Persister | undefined;
  profile: NonNullable<EmulatorOptions["profile"]>;
  tokens: Record<string, string>;
  forbiddenTokens: ReadonlySet<string>;
  expiredTokens: ReadonlySet<string>;
  builtinIdp: boolean;
  /** `on`, or the status every userManagement path answers (a service without them). */
  userManagement: NonNullable<EmulatorOptions["userManagement"]>;
  base: () => string;
}

const ROUTES: Route[] = [
  {
    profile: "v1",
    pattern: /^\/api\/v1\/profile$/,
    handler: () => (ctx, caller) => profileReply(ctx, caller),
  },
  {
    profile: "v1",
    pattern: /^\/api\/v1\/auth\/users(?:\/([^/]+))?$/,
    param: 1,
    idp: true,
    handler: () => (ctx) => handleIdp(ctx),
  },
  {
    profile: "legacy",
    pattern: /^\/api\/auth\/users(?:\/([^/]+))?$/,
    param: 1,
    idp: true,
    handler: () => (ctx) => handleIdp(ctx),
  },
  {
    profile: "v1",
    pattern: /^\/api\/v1\/entities\/(users|userGroups)(?:\/([^/]+))?$/,
    param: 2,
    handler: (m) => entity(m, "v1"),
  },
  {
    profile: "legacy",
    pattern: /^\/api\/entities\/(users|userGroups)(?:\/([^/]+))?$/,
    param: 2,
    handler: (m) => entity(m, "legacy"),
  },
  ...USER_MANAGEMENT_ROUTES,
  ...PERMISSION_ROUTES,
  ...ORGANIZATION_ROUTES,
  ...API_TOKEN_ROUTES,
];

function entity(m: RegExpExecArray, profile: Profile): Handler {
  return m[1] === "users" ? (ctx) => handleUsers(ctx, profile) : (ctx) => handleGroups(ctx, profile);
}

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createPipeline(deps: PipelineDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(deps, req, res).catch((err: unknown) => {
      // Only a bug gets here: answer 500 when still possible so the client sees something.
      if (!res.headersSent && !res.destroyed)
        writeAnswer(res, { reply: problemReply(500, `emulator error: ${(err as Error).message}`) });
    });
  };
}

/**
 * One request through the pipeline of the header comment, read top to bottom: each step may
 * answer early with the state gathered so far (entry, rate, decision), and the order of the steps
 * is the emulator's contract (docs/emulator.md).
 */
async function handle(deps: PipelineDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const time = Date.now();
  const method = req.method ?? "GET";
  const url = req.url ?? "/";
  const qAt = url.indexOf("?");
  const path = qAt < 0 ? url : url.slice(0, qAt);
  const entry: RequestLogEntry = { method, url, status: 0, time };
  const finish = finisher({ log: deps.log, persister: deps.persister, res, entry, url });

  // Auth comes before routing so that nothing about the API is revealed to a caller without a token.
  const caller = authenticate(deps, req.headers.authorization);
  if (typeof caller !== "string") {
    req.resume();
    return finish(caller, deps.faults.peekRateLimit(time));
  }

  const route = findRoute(deps, path);

  const { rate, decision } = arrivalFaults(deps, { path, method, time });
  if (!rate?.exceeded && decision?.fault === "drop") {
    entry.fault = "drop";
    return finish(undefined, rate);
  }

  const raw = await readBody(req).catch(bodyErrorReply);
  if (!Buffer.isBuffer(raw)) return finish(raw, rate);
  if (decision && decision.delayMs > 0) await sleep(decision.delayMs);

  const parsed = parseBody(raw);
  const body = (expected: string): unknown => jsonBody(parsed, req.headers["content-type"], expected);
  if (parsed.ok) entry.body = redact(parsed.value);
  else if (!("empty" in parsed)) entry.body = `<${raw.length} bytes, not JSON>`;

  const fault = decision?.fault;
  const refused = faultReply(deps, { rate, fault });
  if (refused) {
    entry.fault = refused.fault;
    return finish(refused.reply, rate);
  }

  let reply: Reply;
  if (route) {
    const param = decodeParam(route.param);
    // Answered as it is, even when the draw said "lose": the handler never ran.
    if (param === BAD_PARAM)
      return finish(problemReply(400, `path segment ${route.param} is not valid percent-encoding`), rate);
    const asked = brokenUrl(decision?.broken, url);
    reply = runRoute(deps, { handler: route.handler, param, method, url: asked, body, caller });
  } else {
    reply = problemReply(404, `no such endpoint: ${method} ${path}`);
  }
  finish(reply, rate, { fault, broken: decision?.broken });
}

/** Decided synchronously at arrival, so the draws follow arrival order; out of scope: no draw, no count. */
function arrivalFaults(
  deps: PipelineDeps,
  req: { path: string; method: string; time: number },
): { rate: RateLimitStatus | undefined; decision?: FaultDecision } {
  if (!deps.faults.applies(req.path)) return { rate: deps.faults.peekRateLimit(req.time) };
  const decision = deps.faults.decide(WRITE_METHODS.has(req.method));
  const broken = deps.faults.decideBroken(req.method, req.path);
  return {
    rate: deps.faults.countRateLimit(req.time),
    decision: broken ? { ...decision, broken } : decision,
  };
}

function bodyErrorReply(err: unknown): Reply {
  return err instanceof ProblemError
    ? problemReply(err.status, err.detail)
    : problemReply(400, "cannot read the request body");
}

/** The answer that replaces the handler's, once the body is read: the rate limit, then an injected error. */
function faultReply(
  deps: PipelineDeps,
  o: { rate: RateLimitStatus | undefined; fault: FaultDecision["fault"] },
): { fault: NonNullable<RequestLogEntry["fault"]>; reply: Reply } | undefined {
  const { rate, fault } = o;
  if (rate?.exceeded) {
    const message = `rate limit of ${rate.limit} requests per window exceeded`;
    return { fault: "rateLimit", reply: throttled(message, rate.resetSeconds) };
  }
  if (fault === "500" || fault === "503")
    return { fault, reply: problemReply(Number(fault), "injected fault") };
  if (fault === "429") {
    const retryAfter = deps.faults.current.retryAfterSeconds ?? 1;
    return { fault: "429", reply: throttled("injected throttling", retryAfter) };
  }
  return undefined;
}

/** The caller a bearer token names, or the 401 (no or unknown token) or 403 answer. */
function authenticate(deps: PipelineDeps, header: string | undefined): string | Reply {
  const token = header?.startsWith("Bearer ") ? header.slice(7).trim() : undefined;
  const caller = token === undefined ? undefined : deps.tokens[token];
  if (caller !== undefined) return caller;
  if (token === undefined || !deps.forbiddenTokens.has(token))
    return unauthorized(token !== undefined && deps.expiredTokens.has(token));
  return problemReply(403, "this token may not manage users of the organization");
}

interface FoundRoute {
  handler: Handler;
  /** The path parameter as sent (still percent-encoded). */
  param: string | undefined;
}

/** The route of a path, if this emulator serves it (its profile, its built-in IdP). */
function findRoute(deps: PipelineDeps, path: string): FoundRoute | undefined {
  for (const r of ROUTES) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    if (deps.profile !== "both" && deps.profile !== r.profile) return undefined;
    if (r.idp && !deps.builtinIdp) return undefined;
    const param = r.param === undefined ? undefined : m[r.param];
    if (r.userManagement && deps.userManagement === 404) return undefined;
    if (r.userManagement && deps.userManagement === 405) return { handler: notAllowed, param };
    return { handler: r.handler(m), param };
  }
  return undefined;
}

const BAD_PARAM = Symbol("bad percent-encoding");

function decodeParam(param: string | undefined): string | undefined | typeof BAD_PARAM {
  try {
    return param === undefined ? undefined : decodeURIComponent(param);
  } catch {
    return BAD_PARAM;
  }
}

/** Runs the route's handler; a ProblemError it throws becomes its problem answer. */
function runRoute(
  deps: PipelineDeps,
  req: {
    handler: Handler;
    param: string | undefined;
    method: string;
    url: string;
    body: RouteContext["body"];
    caller: string;
  },
): Reply {
  const { method, url, param } = req;
  const qAt = url.indexOf("?");
  const ctx: RouteContext = {
    method,
    param,
    query: new URLSearchParams(qAt < 0 ? "" : url.slice(qAt + 1)),
    base: deps.base(),
    url,
    body: req.body,
    store: deps.store,
    faults: deps.faults.current,
  };
  try {
    return req.handler(ctx, req.caller);
  } catch (err) {
    if (!(err instanceof ProblemError)) throw err;
    return problemReply(err.status, err.detail);
  }
}

function throttled(message: string, retryAfterSeconds: number): Reply {
  return {
    status: 429,
    contentType: JSON_TYPE,
    headers: { "Retry-After": String(retryAfterSeconds) },
    body: { error: "Too Many Requests", message },
  };
}
