/** Which directory failures are an outage (exit 5, retried) and which are settings to fix (exit 4). */
import { BusyError, InvalidCredentialsError, NoSuchObjectError, UnavailableError } from "ldapts";
import { expect, test } from "vitest";
import { isDirectoryOutage } from "../../../../src/desired/sources/ldap/client.js";

const withCode = (code: string): Error => Object.assign(new Error(`connect ${code} 10.0.0.1:636`), { code });

test.each([
  ["a refused connection (slapd stopped)", withCode("ECONNREFUSED"), true],
  ["a reset connection", withCode("ECONNRESET"), true],
  ["a connect timeout", withCode("ETIMEDOUT"), true],
  ["no route to the host", withCode("EHOSTUNREACH"), true],
  ["a DNS answer that may come later", withCode("EAI_AGAIN"), true],
  ["ldapts: Connection timeout", new Error("Connection timeout"), true],
  ["ldapts: an operation that timed out", new Error("BindRequest: Operation timed out"), true],
  [
    "ldapts: closed before the answer",
    new Error("Connection closed before message response was received."),
    true,
  ],
  ["LDAP busy (51)", new BusyError(), true],
  ["LDAP unavailable (52)", new UnavailableError(), true],
  ["an unknown host name (a typo)", withCode("ENOTFOUND"), false],
  ["a wrong bind password (49)", new InvalidCredentialsError(), false],
  ["a base DN that does not exist (32)", new NoSuchObjectError(), false],
  ["a malformed filter", new Error("Unbalanced parens in filter string: (uid=x"), false],
])("%s: outage %s", (_name, err, outage) => {
  expect(isDirectoryOutage(err)).toBe(outage);
});
