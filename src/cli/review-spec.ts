/**
 * `usersync review`'s entry in the table of commands (options.ts), kept beside it in a file of its
 * own; the parts it shares with plan (the target options, the format option) are passed in.
 */
interface Spec {
  type: "string" | "boolean";
  short?: string;
  value?: string;
  help: string;
}

export function reviewSpec<G>(o: {
  planOptions: { target: Spec; "all-targets": Spec; "target-index": Spec; "target-list": Spec };
  formatOption: (help: string) => Spec;
  globals: G;
  footer: string;
}) {
  return {
    summary: "the access review: who reaches which workspace and rows, why, findings (read-only)",
    usage: "usersync review [options]",
    description:
      "Lists the organization (GETs only, like plan) and writes the access review: for every person,\neach workspace they reach with their effective permissions and the reason (direct, group\nchain, hierarchy), organization permissions, data filters, status, and whether the desired\nstate agrees (when a source is configured). Findings first. See docs/audits.md.",
    options: {
      format: o.formatOption("csv|json|markdown|html (default markdown)"),
      out: {
        type: "string",
        short: "o",
        value: "FILE",
        help: "write to FILE (csv: the organization permissions go beside it,\nreview.csv -> review-organization.csv); default stdout",
      },
      since: {
        type: "string",
        value: "FILE",
        help: "a previous review (--format json): add what changed since it, and\ndate each change between the two (last_change)",
      },
      "detailed-exitcode": {
        type: "boolean",
        help: "exit 2 when the review has findings, 0 when it has none",
      },
      "no-compare": {
        type: "boolean",
        help: "do not read the desired state even if one is configured (no\nagreement column, no desired-state findings)",
      },
      "combined-csv": {
        type: "string",
        value: "FILE",
        help: "with --all-targets: also write one CSV of every organization's\naccess (and FILE-organization.csv), an organization column first",
      },
      target: o.planOptions.target,
      "all-targets": o.planOptions["all-targets"],
      "target-index": o.planOptions["target-index"],
      "target-list": o.planOptions["target-list"],
    },
    globals: o.globals,
    footer: o.footer,
  } as const;
}
