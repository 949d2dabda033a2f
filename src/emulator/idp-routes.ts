/**
 * The built-in identity provider: `/api/v1/auth/users[/{userEmail}]` and the legacy
 * `/api/auth/users[/{email}]`, same bodies (`AuthUser`). Deleting a user removes only its
 * credentials; the mapping that points at its authenticationId stays.
 */
import { JSON_TYPE, ProblemError, isObject, type Reply } from "./http-util.js";
import type { RouteContext } from "./route-context.js";
import type { StoredIdpUser } from "./types.js";

interface AuthUserBody {
  email: string;
  displayName: string;
  password?: string;
  authenticationId?: string;
}

/** Checks a body against the official `AuthUser` schema (email and displayName required strings). */
function parseAuthUser(body: unknown): AuthUserBody {
  if (!isObject(body)) throw new ProblemError(400, "body must be a JSON object (AuthUser)");
  const { email, displayName, password, authenticationId } = body;
  if (typeof email !== "string" || email.trim() === "")
    throw new ProblemError(400, "email: required, a non-empty string");
  if (typeof displayName !== "string") throw new ProblemError(400, "displayName: required, a string");
  if (password !== undefined && password !== null && typeof password !== "string") {
    throw new ProblemError(400, "password: must be a string");
  }
  if (authenticationId !== undefined && authenticationId !== null && typeof authenticationId !== "string") {
    throw new ProblemError(400, "authenticationId: must be a string");
  }
  const out: AuthUserBody = { email, displayName };
  if (typeof password === "string") out.password = password;
  if (typeof authenticationId === "string") out.authenticationId = authenticationId;
  return out;
}

/** What GET serves: never the password. */
function publicUser(u: StoredIdpUser): { email: string; displayName: string; authenticationId: string } {
  return { email: u.email, displayName: u.displayName, authenticationId: u.authenticationId };
}

const ok = (status: number, body?: unknown): Reply => ({ status, body, contentType: JSON_TYPE });

export function handleIdp(ctx: RouteContext): Reply {
  const { store } = ctx;
  if (ctx.param === undefined) {
    if (ctx.method === "GET") {
      const users = [...store.idp.values()].map(publicUser);
      users.sort((a, b) => (a.email.toLowerCase() < b.email.toLowerCase() ? -1 : 1));
      return ok(200, users);
    }
    if (ctx.method === "POST") {
      const body = parseAuthUser(ctx.body(JSON_TYPE));
      if (store.getIdp(body.email)) {
        if (ctx.faults.duplicateIdpAs400) throw new ProblemError(400, "user already exists");
        throw new ProblemError(409, `user ${body.email} already exists`);
      }
      if (body.authenticationId !== undefined) {
        throw new ProblemError(400, "authenticationId: must be absent on create; the service generates it");
      }
      const user: StoredIdpUser = {
        email: body.email,
        displayName: body.displayName,
        authenticationId: store.newAuthenticationId(),
      };
      if (body.password !== undefined) user.password = body.password;
      store.putIdp(user);
      return ok(200, { ...publicUser(user), password: null });
    }
    throw new ProblemError(405, `${ctx.method} is not allowed on the user collection (GET, POST)`);
  }

  const existing = store.getIdp(ctx.param);
  if (ctx.method === "GET") {
    if (!existing) throw new ProblemError(404, `user ${ctx.param} not found`);
    return ok(200, publicUser(existing));
  }
  if (ctx.method === "PUT") {
    const body = parseAuthUser(ctx.body(JSON_TYPE));
    if (body.email.toLowerCase() !== ctx.param.toLowerCase()) {
      throw new ProblemError(400, `email ${body.email} in the body differs from ${ctx.param} in the path`);
    }
    if (!existing) throw new ProblemError(404, `user ${ctx.param} not found`);
    if (body.authenticationId !== undefined && body.authenticationId !== existing.authenticationId) {
      throw new ProblemError(
        400,
        "authenticationId: cannot be changed; leave it out or send the stored value",
      );
    }
    // Without a password the old one is kept: a display-name change must not reset a login.
    const updated: StoredIdpUser = { ...existing, displayName: body.displayName };
    if (body.password !== undefined) updated.password = body.password;
    store.putIdp(updated);
    return ok(200, publicUser(updated));
  }
  if (ctx.method === "DELETE") {
    if (!store.deleteIdp(ctx.param)) throw new ProblemError(404, `user ${ctx.param} not found`);
    return { status: 204 };
  }
  throw new ProblemError(405, `${ctx.method} is not allowed on a user (GET, PUT, DELETE)`);
}
