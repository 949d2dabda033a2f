/**
 * Who signs in as whom (DESIGN section 9): with an external OIDC provider a mapping's
 * `authenticationId` is the claim the organization names in `oauthSubjectIdClaim`. Only the
 * source knows which of its attributes holds that claim, so each directory source returns a step
 * (`SourceResult.signIn`); it rides on the desired state (and on every target's slice of it), and
 * the pipeline runs it once connected, never naming the source. A directory that is itself the
 * OIDC provider (Okta, Google) gives only where each claim's value is (`SubjectClaims`).
 */
import type { Logger } from "pino";
import type { OrganizationSignIn } from "../../service/types.js";
import { DirectoryError } from "../../errors.js";
import type { DesiredState, DesiredUser, Identity, SignInStep } from "../types.js";

/** Puts the source's step on the state it read (non-enumerable: never serialised). */
export function keepSignIn(state: DesiredState, step: SignInStep | undefined): void {
  if (step !== undefined) Object.defineProperty(state, "signIn", { value: step, enumerable: false });
}

/**
 * Runs the sign-in step of the source the state came from, if it has one: asks the organization
 * how it signs people in (two GETs, after the whole directory read), then lets the source key its
 * people. A source error names the fix (exit 4); a state without a step is left as it is.
 */
export async function resolveSignIn(o: {
  state: DesiredState;
  signIn: (() => Promise<OrganizationSignIn | undefined>) | undefined;
  defaultIdentity: Identity;
  logger: Logger;
}): Promise<void> {
  const step = o.state.signIn;
  if (step === undefined) return;
  const signIn = o.signIn ? await o.signIn() : undefined;
  step({ signIn, users: o.state.users, defaultIdentity: o.defaultIdentity, logger: o.logger });
}

/**
 * A directory that is itself the organization's OIDC provider (Okta, Google): the ID token's
 * `sub` is the directory's user id, which its reader put in `authenticationId`; another claim
 * the organization names is filled from one of the directory user's attributes.
 */
export interface SubjectClaims<D> {
  /** `Okta`, `Google`: in messages. */
  directory: string;
  /** Why `sub` may not match yet, when the organization does not sign people in through the directory. */
  subWarning: string;
  idOf(user: D): string;
  /**
   * Where a claim's value is: `undefined` for `sub` (already in place); else the attribute
   * (`field`, described as `from`) and how to read it. Throws a DirectoryError, naming the fix,
   * for a claim the directory cannot give.
   */
  reader(claim: string): { from: string; field: string; read: (user: D) => unknown } | undefined;
  /** What to do when people lack `field`. */
  fix(field: string): string;
}

/**
 * The sign-in step (SourceResult.signIn) of such a directory: people stay keyed by `sub` unless
 * the organization names another claim. `of` holds the directory user behind each desired user id.
 */
export function subjectClaimStep<D>(kind: SubjectClaims<D>, of: ReadonlyMap<string, D>): SignInStep {
  return ({ signIn, users, logger }) => {
    if (signIn === undefined || signIn.kind === "builtin") {
      logger.warn(
        `${signIn ? "the organization signs people in with its built-in identity provider" : "this service does not tell how its organization signs people in"}: ${kind.subWarning}`,
      );
      return;
    }
    logger.info(
      { claim: signIn.claim, issuer: signIn.issuer },
      `the organization keys logins by the claim ${signIn.claim}`,
    );
    keyBySubjectClaim(kind, { claim: signIn.claim, users, userOf: (u) => of.get(u.id) });
  };
}

/** Re-keys every present external user by the organization's claim; a DirectoryError names who cannot be. */
export function keyBySubjectClaim<D>(
  kind: SubjectClaims<D>,
  o: { claim: string; users: readonly DesiredUser[]; userOf: (user: DesiredUser) => D | undefined },
): void {
  const reader = kind.reader(o.claim);
  if (reader === undefined) return;
  const external = o.users.filter((u) => u.identity === "external" && u.state === "present");
  const missing: string[] = [];
  for (const user of external) {
    const found = o.userOf(user);
    const value = found === undefined ? undefined : reader.read(found);
    if (typeof value === "string" && value.trim() !== "") user.authenticationId = value.trim();
    else missing.push(`${user.email} (${found === undefined ? "?" : kind.idOf(found)})`);
  }
  if (missing.length === 0) return;
  const { directory } = kind;
  throw new DirectoryError({
    message: `the organization keys people by the ID-token claim "${o.claim}" (oauthSubjectIdClaim), which ${directory} fills from ${reader.from}, but ${missing.length} of ${external.length} ${directory} people have no ${reader.field}: ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", …" : ""}. ${kind.fix(reader.field)}`,
  });
}
