/** What a run remembers for the next one: the state file of `policy.revokeAfter`. */
export {
  changesOfRun,
  createdKeys,
  emptyState,
  mergeState,
  STATE_FORMAT_VERSION,
  withRemovals,
  type RemovalRecord,
  withChanges,
  type StateData,
} from "./merge.js";
export {
  keepCorrupt,
  parseState,
  readState,
  serializeState,
  withStateLock,
  writeState,
  type StateRead,
} from "./file.js";
