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

// eslint-disable-next-line max-lines-per-function -- one table of options, each a few lines of help
export function reviewSpec<G>(o: {
  planOptions: { target: Spec; "all-targets": Spec; "target-index": Spec; "target-list": Spec };
  formatOption: (help: string) => Spec;
  globals: G;
  footer: string;
}) {
  return {
    summary: "the access review: who reaches which workspace and rows, why, findings (read-only)",
    usage: "usersync review [options] | usersync review verify FILE [--public-key KEY]",
    description:
      "Lists the organization (GETs only, like plan) and writes the access review: for every person,\neach workspace they reach with their effective permissions and the reason (direct, group\nchain, hierarchy), organization permissions, data filters, status, and whether the desired\nstate agrees (when a source is configured). Findings first. One listing becomes one snapshot\n(--format json); every format renders from it, and --from renders a saved one. verify FILE\nrecomputes a snapshot's digest (and checks its signature with --public-key). See docs/audits.md.",
    options: {
      format: o.formatOption("csv|json|markdown|html (default markdown)"),
      out: {
        type: "string",
        short: "o",
        value: "FILE",
        help: "write to FILE (csv: the organization permissions and the findings go\nbeside it, review-organization.csv, review-findings.csv); default stdout",
      },
      since: {
        type: "string",
        value: "FILE",
        help: "a previous review's snapshot (--format json): add what changed since\nit, and date each change between the two (last_change); refused\n(exit 4) when it does not verify",
      },
      from: {
        type: "string",
        value: "FILE",
        help: "render a saved snapshot (--format json) instead of listing: the same\nbytes the run that listed it wrote; no token needed (no config either,\nbut with --all-targets or --target: each one's FILE with its name)",
      },
      "sign-key": {
        type: "string",
        value: "FILE",
        help: "sign the snapshot with this PEM private key (Ed25519, RSA, EC; a\nmounted Kubernetes Secret): a JWS over its digest",
      },
      "public-key": {
        type: "string",
        value: "FILE",
        help: "with verify, --since or --from: also check the snapshot's signature\nwith this PEM public key",
      },
      "allow-unverified": {
        type: "boolean",
        help: "use a --since or --from snapshot whose digest (or signature) does\nnot verify; refused with exit 4 otherwise",
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
        help: "with --all-targets: also write one CSV of every organization's\naccess (and FILE-organization.csv, FILE-findings.csv), an organization\ncolumn first; with --from and no --out, only these",
      },
      target: o.planOptions.target,
      "all-targets": o.planOptions["all-targets"],
      "target-index": o.planOptions["target-index"],
      "target-list": o.planOptions["target-list"],
    },
    globals: o.globals,
    positional: { name: "verify FILE", max: 2 },
    footer: o.footer,
  } as const;
}
