/**
 * The shell blocks of README.md and docs/*.md, and the bash script that runs a runnable one
 * (docs/architecture.md, "Executed documentation"). A block is marked on the line before its
 * fence: `<!-- runnable -->`, `<!-- runnable: FIXTURE -->` (the test sets FIXTURE up first), or
 * `<!-- not runnable: REASON -->`. In the script:
 * - every command must exit 0, or the code its comment starts with (`# exit 2 ...`);
 * - an emulator command runs in the background until the next one or the end of the block, as a
 *   person runs it in another terminal, and must stop cleanly (exit 0) on SIGTERM;
 * - port 8080 becomes a free port, so blocks never collide with anything.
 *
 * `<!-- runnable in the background -->` (or `<!-- runnable in the background: ready when it
 * prints "TEXT" -->`) marks a block of one long-running command (a person runs it in a terminal
 * of its own until Ctrl-C): the test starts it in the background, waits until its stdout has a
 * line starting with `http` (or TEXT), runs every runnable block after it on the page in the same
 * folder and shell, one port for all, and then stops it by its pid with SIGTERM (it must exit 0).
 * sessionScript builds that one script.
 */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";

export const SHELL_LANGS = new Set(["sh", "bash", "shell", "console"]);

export type Marker =
  | { runnable: true; fixture?: string; background?: { ready: string | undefined } }
  | { runnable: false; reason: string };

export interface ShellBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  text: string;
  marker: Marker | undefined;
}

export interface CodeBlock {
  file: string;
  lang: string;
  text: string;
}

export async function markdownFiles(root: string): Promise<string[]> {
  const docs = (await readdir(join(root, "docs")))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => join("docs", f));
  return ["README.md", ...docs];
}

export async function codeBlocks(root: string): Promise<CodeBlock[]> {
  const blocks: CodeBlock[] = [];
  for (const file of await markdownFiles(root)) {
    const text = await readFile(join(root, file), "utf8");
    for (const m of text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm))
      blocks.push({ file, lang: m[1] ?? "", text: m[2] ?? "" });
  }
  return blocks;
}

const MARKER = /^<!--\s*(runnable|not runnable)(?::\s*(.*?))?\s*-->$/;
const BACKGROUND = /^<!--\s*runnable in the background(?::\s*ready when it prints "(.*)")?\s*-->$/;

function markerOf(line: string): Marker | undefined {
  const bg = BACKGROUND.exec(line);
  if (bg) return { runnable: true, background: { ready: bg[1] } };
  const m = MARKER.exec(line);
  if (!m) return undefined;
  return m[1] === "runnable"
    ? { runnable: true, ...(m[2] ? { fixture: m[2] } : {}) }
    : { runnable: false, reason: m[2] ?? "" };
}

/** Every shell block of one Markdown text, with the marker on the line before its fence. */
export function shellBlocks(markdown: string, file: string): ShellBlock[] {
  const lines = markdown.split("\n");
  const out: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.indexOf("```", i + 1);
    if (end < 0) break;
    if (SHELL_LANGS.has(open[1]!)) {
      const marker = markerOf(lines[i - 1]?.trim() ?? "");
      out.push({ file, line: i + 1, text: lines.slice(i + 1, end).join("\n"), marker });
    }
    i = end;
  }
  return out;
}

/** The text before a trailing ` # comment` (outside quotes), and the comment. */
export function splitComment(line: string): { command: string; comment: string | undefined } {
  for (const m of line.matchAll(/\s#/g)) {
    const before = line.slice(0, m.index);
    const quotes = (q: string): number => before.split(q).length - 1;
    if (quotes("'") % 2 === 0 && quotes('"') % 2 === 0)
      return { command: before.trimEnd(), comment: line.slice(m.index + m[0].length).trim() };
  }
  return { command: line, comment: undefined };
}

const EMULATOR = /^(npx usersync|node dist\/cli\.js) emulator\b/;

const PRELUDE = String.raw`
__fail=0
__emu=
__check() {
  if [ "$1" != "$2" ]; then echo "__DOCS_FAILED $3: exit $1, expected $2" >&2; __fail=1; fi
  return "$1"
}
__emu_stop() {
  if [ -n "$__emu" ]; then
    kill -TERM "$__emu"; wait "$__emu"; local rc=$?
    if [ "$rc" != 0 ]; then echo "__DOCS_FAILED the emulator exited $rc on SIGTERM" >&2; __fail=1; fi
    __emu=
  fi
}
__emu_start() {
  __emu_stop
  "$@" >"$__TMP/emulator.out" 2>"$__TMP/emulator.err" &
  __emu=$!
  for _ in $(seq 300); do
    grep -q '^http' "$__TMP/emulator.out" 2>/dev/null && return 0
    if ! kill -0 "$__emu" 2>/dev/null; then
      wait "$__emu"; echo "__DOCS_FAILED the emulator exited $?: $(cat "$__TMP/emulator.err")" >&2
      __fail=1; __emu=; return 1
    fi
    sleep 0.1
  done
  echo "__DOCS_FAILED the emulator printed no URL in 30 s" >&2; __fail=1
}
`;

const BACKGROUND_PRELUDE = String.raw`
__bg=
__bg_stop() {
  if [ -n "$__bg" ]; then
    kill -TERM "$__bg"; wait "$__bg"; local rc=$?
    if [ "$rc" != 0 ]; then echo "__DOCS_FAILED the background command exited $rc on SIGTERM" >&2; __fail=1; fi
    __bg=
  fi
}
# Whatever ends the script, the background command and a block's emulator are stopped by pid.
trap '__emu_stop; __bg_stop' EXIT
__bg_start() {
  local ready="$1" where="$2"; shift 2
  "$@" >"$__TMP/background.out" 2>"$__TMP/background.err" &
  __bg=$!
  for _ in $(seq 600); do
    grep -qF -- "$ready" "$__TMP/background.out" 2>/dev/null && return 0
    if ! kill -0 "$__bg" 2>/dev/null; then
      wait "$__bg"; echo "__DOCS_FAILED $where exited $?: $(cat "$__TMP/background.err")" >&2
      __bg=; exit 1
    fi
    sleep 0.1
  done
  echo "__DOCS_FAILED $where printed no "$ready" in 60 s" >&2; exit 1
}
`;

/** The block's text as run: continuation lines joined, port 8080 the free one, the fixture's replacements. */
function runText(block: ShellBlock, o: { port: number; replace?: Record<string, string> }): string {
  let text = block.text.replace(/\\\n\s*/g, "").replace(/\b8080\b/g, String(o.port));
  for (const [from, to] of Object.entries(o.replace ?? {})) text = text.split(from).join(to);
  return text;
}

const quote = (s: string): string => `'${s.split("'").join(`'\\''`)}'`;

/**
 * One script for a page's walk: the background block's one command started and waited for, the
 * runnable blocks after it run as blockScript runs each (one shell: an `export` carries on), and
 * the background command stopped by its pid at the end.
 */
export function sessionScript(
  background: ShellBlock,
  after: ShellBlock[],
  o: { port: number; replace?: Record<string, string> },
): string {
  const commands = runText(background, o)
    .split("\n")
    .map((l) => splitComment(l.trim()).command)
    .filter((c) => c !== "" && !c.startsWith("#"));
  if (commands.length !== 1)
    throw new Error(`${background.file}:${background.line}: a background block has exactly one command`);
  const ready = background.marker?.runnable ? background.marker.background?.ready : undefined;
  const where = `${background.file}:${background.line + 1}`;
  const start = `__bg_start ${quote(ready ?? "http")} ${quote(where)} ${commands[0]!}`;
  const bodies = after.map((b) => `${blockBody(b, o).join("\n")}\n__emu_stop`);
  return `${PRELUDE}\n${BACKGROUND_PRELUDE}\n${start}\n${bodies.join("\n")}\n__bg_stop\nexit $__fail\n`;
}

/** A bash script that runs the block's commands one by one and checks each one's exit code. */
export function blockScript(
  block: ShellBlock,
  o: { port: number; replace?: Record<string, string> },
): string {
  return `${PRELUDE}\n${blockBody(block, o).join("\n")}\n__emu_stop\nexit $__fail\n`;
}

function blockBody(block: ShellBlock, o: { port: number; replace?: Record<string, string> }): string[] {
  const text = runText(block, o);
  return text.split("\n").map((line, i) => {
    const { command, comment } = splitComment(line.trim());
    if (command === "" || command.startsWith("#")) return line;
    if (EMULATOR.test(command)) return `__emu_start ${command}`;
    const expected = /^exit (\d+)\b/.exec(comment ?? "")?.[1] ?? "0";
    const where = `${block.file}:${block.line + 1 + i}: ${command.replace(/[^\w ./:=-]/g, "_")}`;
    return `${command}\n__check $? ${expected} "${where}"`;
  });
}
