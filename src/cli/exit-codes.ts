/** The meaning of every exit code, for --help and the README's table (checked by a test). */
export const EXIT_CODE_HELP: ReadonlyArray<readonly [number, string]> = [
  [0, "done / no changes"],
  [1, "some steps failed, or a fatal error stopped the run"],
  [2, "the plan has changes, or the review has findings (--detailed-exitcode only)"],
  [3, "refused by a safety guard"],
  [4, "invalid config or input"],
  [5, "the source could not be read now (directory down, file missing): retry later"],
  [130, "interrupted (Ctrl-C, SIGTERM)"],
];
