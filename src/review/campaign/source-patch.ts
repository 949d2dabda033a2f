/**
 * The source's half of a remediation for a desired-state file (docs/audits.md, "Remediation"):
 * the revocations the file gives, made in the file's own text (YAML: the person's `groups`,
 * `workspaces` and `organization`; CSV: the person's `groups` cell), everything else byte for byte
 * as it was, so the unified diff shows only them and opens as a reviewable pull request. An edit
 * the file cannot take (a CSV has no per-person grants; a person not found) comes back as a reason,
 * for the remediation to show as pending. Pure.
 */
import { parse as parseCsv } from "csv-parse/sync";
import { isMap, isScalar, isSeq, parseDocument, type Pair, type YAMLMap, type YAMLSeq } from "yaml";
import { csvLine } from "../../desired/csv-cell.js";
import type { Lever } from "./remedies.js";

export interface SourceEdit {
  /** The person as the file names them: e-mail (matched case-insensitively) or id. */
  email?: string | undefined;
  userId?: string | undefined;
  lever: Lever;
}

export interface PatchResult {
  text: string;
  /** Edits not made, each with why (in the order given). */
  notMade: Array<{ edit: SourceEdit; why: string }>;
}

type Cut = { from: number; to: number; insert: string };

const lineStart = (text: string, at: number): number => text.lastIndexOf("\n", at - 1) + 1;
const lineEnd = (text: string, at: number): number => {
  const nl = text.indexOf("\n", at);
  return nl < 0 ? text.length : nl + 1;
};

/** Cuts item `i` out of a sequence or map (flow: with its comma; block: its whole lines). */
function cutItem(text: string, coll: YAMLSeq | YAMLMap, i: number, keyEnd: number): Cut {
  const ranges = coll.items.map((it) => {
    const node = (isMap(coll) ? (it as Pair).key : it) as { range?: [number, number, number] };
    const end = isMap(coll)
      ? ((it as Pair).value as { range?: [number, number, number] } | null)?.range
      : node.range;
    return [node.range![0], end![1]] as const;
  });
  const [from, to] = ranges[i]!;
  if (coll.flow) {
    if (i + 1 < ranges.length) return { from, to: ranges[i + 1]![0], insert: "" };
    if (i > 0) return { from: ranges[i - 1]![1], to, insert: "" };
    return { from, to, insert: "" };
  }
  if (ranges.length === 1)
    return { from: keyEnd, to: lineEnd(text, to - 1) - 1, insert: isMap(coll) ? " {}" : " []" };
  return { from: lineStart(text, from), to: lineEnd(text, to - 1), insert: "" };
}

const flowList = (xs: readonly string[]): string => `[${xs.join(", ")}]`;

function yamlCut(text: string, user: YAMLMap, lever: Lever): Cut | string {
  const field =
    lever.kind === "leaveGroup" ? "groups" : lever.kind === "narrowGrant" ? "workspaces" : "organization";
  const pair = user.items.find((p) => isScalar(p.key) && p.key.value === field);
  const keyEnd = (pair?.key as { range?: number[] } | undefined)?.range?.[1] ?? 0;
  const value = pair?.value;
  if (lever.kind === "leaveGroup") {
    if (!isSeq(value)) return `the person's entry has no groups list`;
    const i = value.items.findIndex((x) => isScalar(x) && x.value === lever.group);
    return i < 0 ? `the person's groups do not list ${lever.group}` : cutItem(text, value, i, keyEnd + 1);
  }
  if (lever.kind === "narrowOrganization") {
    if (!isSeq(value)) return "the person's entry lists no organization permissions";
    return { from: value.range![0], to: value.range![1], insert: flowList(lever.keep) };
  }
  if (!isMap(value)) return "the person's entry lists no workspaces";
  const i = value.items.findIndex((p) => isScalar(p.key) && p.key.value === lever.workspace);
  if (i < 0) return `the person's workspaces do not list ${lever.workspace}`;
  const grant = value.items[i]!.value;
  if (lever.keep.length === 0 && !lever.hierarchy) return cutItem(text, value, i, keyEnd + 1);
  const list = isSeq(grant)
    ? grant
    : isMap(grant)
      ? grant.get(lever.hierarchy ? "hierarchy" : "permissions", true)
      : undefined;
  if (!isSeq(list)) return `the grant on ${lever.workspace} is not a list of permissions`;
  return { from: list.range![0], to: list.range![1], insert: flowList(lever.keep) };
}

export function patchYaml(text: string, edits: readonly SourceEdit[]): PatchResult {
  const doc = parseDocument(text, { keepSourceTokens: false });
  const users = doc.get("users", true);
  const notMade: PatchResult["notMade"] = [];
  const cuts: Cut[] = [];
  for (const edit of edits) {
    const user = isSeq(users)
      ? (users.items.find((u) => {
          if (!isMap(u)) return false;
          const email = String(u.get("email") ?? "").toLowerCase();
          return (
            (edit.email !== undefined && email === edit.email.toLowerCase()) ||
            (edit.userId !== undefined && u.get("id") === edit.userId)
          );
        }) as YAMLMap | undefined)
      : undefined;
    const cut = user === undefined ? "the file does not list the person" : yamlCut(text, user, edit.lever);
    if (typeof cut === "string") notMade.push({ edit, why: cut });
    else cuts.push(cut);
  }
  return { text: applyCuts(text, cuts), notMade };
}

function applyCuts(text: string, cuts: readonly Cut[]): string {
  let out = text;
  for (const c of [...cuts].sort((a, b) => b.from - a.from))
    out = out.slice(0, c.from) + c.insert + out.slice(c.to);
  return out;
}

/** A users CSV: the `groups` cell (`;`-separated) of the person's row, found by e-mail or id. */
export function patchCsv(text: string, edits: readonly SourceEdit[]): PatchResult {
  const lines = text.split(/(?<=\n)/);
  const header = (parseCsv(lines[0] ?? "", { bom: true }) as string[][])[0] ?? [];
  const col = (name: string): number => header.findIndex((h) => h.trim().toLowerCase() === name);
  const notMade: PatchResult["notMade"] = [];
  for (const edit of edits) {
    if (edit.lever.kind !== "leaveGroup") {
      notMade.push({
        edit,
        why: "a CSV desired state gives grants through groups only: change the group file, or move the person",
      });
      continue;
    }
    const group = edit.lever.group;
    const at = lines.findIndex((l, i) => {
      if (i === 0 || l.trim() === "") return false;
      const cells = (parseCsv(l, { relax_quotes: true }) as string[][])[0] ?? [];
      return (
        (edit.email !== undefined &&
          (cells[col("email")] ?? "").trim().toLowerCase() === edit.email.toLowerCase()) ||
        (edit.userId !== undefined && col("id") >= 0 && cells[col("id")]?.trim() === edit.userId)
      );
    });
    if (at < 0 || col("groups") < 0) {
      notMade.push({
        edit,
        why: at < 0 ? "the file does not list the person" : "the file has no groups column",
      });
      continue;
    }
    const cells = (parseCsv(lines[at]!) as string[][])[0]!;
    const groups = cells[col("groups")]!.split(";").map((g) => g.trim());
    if (!groups.includes(group)) {
      notMade.push({ edit, why: `the person's groups do not list ${group}` });
      continue;
    }
    cells[col("groups")] = groups.filter((g) => g !== group && g !== "").join(";");
    const eol = lines[at]!.endsWith("\r\n") ? "\r\n" : lines[at]!.endsWith("\n") ? "\n" : "";
    lines[at] = csvLine(cells).replace(/\r\n$/, eol);
  }
  return { text: lines.join(""), notMade };
}
