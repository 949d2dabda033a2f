/**
 * Who signs in as whom (DESIGN section 9): with an external OIDC provider a mapping's
 * `authenticationId` is the claim the organization names in `oauthSubjectIdClaim`. Only the
 * source knows which of its attributes holds that claim, so each directory source returns a step
 * (`SourceResult.signIn`); it rides on the desired state (and on every target's slice of it), and
 * the pipeline runs it once connected, never naming the source.
 */
import type { Logger } from "pino";
import type { OrganizationSignIn } from "../../service/types.js";
import type { DesiredState, Identity, SignInStep } from "../types.js";

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
