/**
 * `usersync campaign`'s entry in the table of commands (options.ts): the access-review campaign's
 * steps, one word each (open, decide, remediate, close), and their options. Kept beside the table
 * in a file of its own; the parts it shares with plan (the target options) are passed in.
 */
import { TARGET_OPTIONS } from "./target-options.js";

interface Spec {
  type: "string" | "boolean";
  multiple?: boolean;
  short?: string;
  value?: string;
  help: string;
}

export const CAMPAIGN_ACTIONS = ["open", "decide", "remediate", "close"] as const;
export type CampaignAction = (typeof CAMPAIGN_ACTIONS)[number];

const CAMPAIGN_OPTIONS = {
  review: {
    type: "string",
    value: "FILE",
    help: "the review snapshot (usersync review --format json --out FILE)",
  },
  campaign: {
    type: "string",
    value: "FILE",
    help: "the campaign file (open writes it; the other steps read it)",
  },
  csv: {
    type: "string",
    value: "FILE",
    help: "open: also write the reviewers' CSV (decision and comment columns\nto fill in a spreadsheet)",
  },
  html: {
    type: "string",
    value: "FILE",
    help: "open: also write the decision page, one file (a reviewer's rows,\nkeep/revoke/change buttons, a decisions file to download); up to\n20,000 rows, past that use --html-dir",
  },
  "html-dir": {
    type: "string",
    value: "DIR",
    help: "open: the decision pages as a folder: index.html (every reviewer,\ntheir rows, links) and each reviewer's own pages",
  },
  "html-rows": {
    type: "string",
    value: "N",
    help: "open: rows on a reviewer's page of --html-dir (default 2000)",
  },
  due: {
    type: "string",
    value: "DATE",
    help: "open: the due date, YYYY-MM-DD or days (14d) (config: review.due)",
  },
  decisions: {
    type: "string",
    value: "FILE",
    help: "the merged decisions (decide reads and rewrites it; remediate and\nclose read it)",
  },
  reviewer: {
    type: "string",
    value: "EMAIL",
    help: "decide: who filled the CSV files given (a page's file names its\nreviewer)",
  },
  out: { type: "string", short: "o", value: "FILE", help: "remediate: the plan; close: the close-out" },
  "source-patch": {
    type: "string",
    value: "FILE",
    help: "remediate: write the desired-state file's change as a unified diff",
  },
  removals: {
    type: "string",
    value: "FILE",
    help: "remediate: write what the source must stop giving, one line per\ngroup and member (CSV), for the directory's owner",
  },
  after: { type: "string", value: "FILE", help: "close: the review listed after remediation" },
  remedies: {
    type: "string",
    value: "FILE",
    help: "close: remediate's remedies (PLAN.remedies.json): why a revocation is\npending",
  },
  journal: {
    type: "string",
    multiple: true,
    value: "FILE",
    help: "close: the remediation apply's journal (apply --journal)",
  },
  "detailed-exitcode": {
    type: "boolean",
    help: "close: exit 2 when a row is undecided or a revocation is pending",
  },
  "allow-permission-removals": {
    type: "string",
    value: "N",
    help: "remediate: allow up to N removals, over permissions.maxRemovals",
  },
  format: { type: "string", short: "f", value: "FMT", help: "close: json|csv|html (default json)" },
  "signing-key": {
    type: "string",
    value: "FILE",
    help: "close: sign the close-out (JWS, with this PEM private key)",
  },
  "signed-by": { type: "string", value: "NAME", help: "close: who closes the campaign (default $USER)" },
} satisfies Record<string, Spec>;

export function campaignSpec<G>(o: { planOptions: { target: Spec }; globals: G; footer: string }) {
  return {
    summary: "certify a review: assign reviewers, merge decisions, remediate, close out",
    usage: "usersync campaign open|decide|remediate|close [FILE...] [options]",
    description:
      'The access-review campaign (docs/audits.md, "The campaign"):\n' +
      "  open       --review SNAPSHOT --campaign FILE: every row of the review gets its reviewer(s)\n" +
      "             (config: review.reviewers, review.due); rows nobody is assigned are listed;\n" +
      "             --csv FILE the reviewers' CSV, --html FILE one decision page (a small\n" +
      "             campaign), --html-dir DIR an index and each reviewer's own pages\n" +
      "  decide     --campaign FILE --decisions FILE [--reviewer EMAIL] FILE...: check the page's\n" +
      "             decisions files or the filled CSV, merge them, print coverage per reviewer\n" +
      "  remediate  --campaign FILE --decisions FILE --out PLAN: revocations as a plan (apply --plan)\n" +
      "             and, for access the source gives, a patch to the file (--source-patch) or a\n" +
      "             list for the directory's owner (--removals)\n" +
      "  close      --campaign FILE --decisions FILE --after REVIEW: the close-out evidence\n" +
      "With targets, open and remediate run for --target NAME or --all-targets, each organization's\n" +
      "files its own (c.json is c.alpha.json); {date} in a path is today's UTC date.\n" +
      "Nothing is sent to the service except remediate's listing (GETs only).",
    options: { ...CAMPAIGN_OPTIONS, ...TARGET_OPTIONS, target: o.planOptions.target },
    globals: o.globals,
    positional: { name: "ACTION [FILE...]", max: 100 },
    footer: o.footer,
  } as const;
}
