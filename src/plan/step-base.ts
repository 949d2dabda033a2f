/** What every plan step has (types.ts): its stable id, what it waits for, why, and what it relies on. */
/** A reference to an `authenticationId` produced by an earlier createCredentials step. */
export interface FromStep {
  fromStep: string;
}

export interface StepBase {
  /** Stable id `<kind>:<target>`, e.g. `createCredentials:jane@example.com`, `updateMapping:jane`. */
  id: string;
  dependsOn: string[];
  /** Why the planner wants this, for a person. */
  reason: string;
  /** Object keys (see `objectKey`) whose fingerprints this step relies on. */
  touches: string[];
  /** `heldBack`: a deletion over `maxDeletes` (or a permission removal over `maxRemovals`), reported, not carried out. */
  status: "planned" | "heldBack";
  /** The step undoes what a run within `policy.revertWindow` changed (plan/reverts.ts, the plan's `reverts`). */
  revertsRecent?: true;
}
