/**
 * The shell blocks of README.md and docs/*.md, and the bash script that runs a runnable one
 * (docs/architecture.md, "Executed documentation"). A block is marked on the line before its
 * fence: `<!-- runnable -->`, `<!-- runnable: FIXTURE -->` (the test sets FIXTURE up first), or
 * `<!-- not runnable: REASON -->`. In the script:
 * - every command must exit 0, or the code its comment starts with (`# exit 2 ...`);
 * - an emulator command runs in the background until the next one or the end of the block, as a
 *   person runs it in another terminal, and must stop cleanly (exit 0) on SIGTERM;
 * - port 8080 becomes a free port, so blocks never collide with anything.
 */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";

export const SHELL_LANGS = new Set(["sh", "bash", "shell", "console"]);

export type Marker = { runnable: true; fixture?: string } | { runnable: false; reason: string };

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
      const m = MARKER.exec(lines[i - 1]?.trim() ?? "");
      const marker: Marker | undefined = !m
        ? undefined
        : m[1] === "runnable"
          ? { runnable: true, ...(m[2] ? { fixture: m[2] } : {}) }
          : { runnable: false, reason: m[2] ?? "" };
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

/** A bash script that runs the block's commands one by one and checks each one's exit code. */
export function blockScript(
  block: ShellBlock,
  o: { port: number; replace?: Record<string, string> },
): string {
  let text = block.text.replace(/\\\n\s*/g, "").replace(/\b8080\b/g, String(o.port));
  for (const [from, to] of Object.entries(o.replace ?? {})) text = text.split(from).join(to);
  const body = text.split("\n").map((line, i) => {
    const { command, comment } = splitComment(line.trim());
    if (command === "" || command.startsWith("#")) return line;
    if (EMULATOR.test(command)) return `__emu_start ${command}`;
    const expected = /^exit (\d+)\b/.exec(comment ?? "")?.[1] ?? "0";
    const where = `${block.file}:${block.line + 1 + i}: ${command.replace(/[^\w ./:=-]/g, "_")}`;
    return `${command}\n__check $? ${expected} "${where}"`;
  });
  return `${PRELUDE}\n${body.join("\n")}\n__emu_stop\nexit $__fail\n`;
}
