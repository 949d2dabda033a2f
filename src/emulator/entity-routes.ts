/**
 * The entity API for users (mappings) and user groups, both profiles:
 * v1 `/api/v1/entities/{users,userGroups}[/{id}]` (GET, POST 201, PUT, PATCH, DELETE 204) and
 * legacy `/api/entities/{users,userGroups}[/{id}]` (POST with `{data}`, PUT with the BARE resource
 * object, GET, DELETE; no PATCH).
 *
 * Decisions where the contract is silent:
 * - A relationship to a group that does not exist answers 400 naming the id (not 404, which a
 *   client would read as "the user itself is missing").
 * - Deleting a group that still has members or child groups answers 409 and changes nothing;
 *   the caller must first move the users and children away (the planner's order does that).
 * - A legacy PUT replaces what legacy knows (authenticationId, the one group) and keeps the
 *   v1-only attributes (firstname, lastname, email) and, for groups, the parents.
 *
 * Each entity's routes are a table of handlers by method (user-routes.ts, group-routes.ts);
 * entity-common.ts dispatches on it and answers 405 for a method the table does not hold.
 */
export { handleUsers } from "./user-routes.js";
export { handleGroups } from "./group-routes.js";
