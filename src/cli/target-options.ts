/** The options by which every command takes the targets of a config with `targets:`. */
// docs/multi-org.md, "Running targets"
export const TARGET_OPTIONS = {
  target: {
    type: "string",
    value: "NAME",
    help: "run for this one of the config's targets (docs/multi-org.md)",
  },
  "all-targets": {
    type: "boolean",
    help: "run for every target, one after another; exits with the first of\n130, 4, 1, 3, 5, 2, 0 among the targets' codes",
  },
  "target-index": {
    type: "string",
    value: "N",
    help: "run the target at index N of the sorted names (an Indexed Job's\n$(JOB_COMPLETION_INDEX)); needs --target-list",
  },
  "target-list": {
    type: "string",
    value: "NAMES",
    help: "the comma-separated names the Job was rendered with; a config\nwhose targets differ is refused (exit 4)",
  },
} as const;
