/**
 * A saved snapshot read a line at a time (docs/audits.md "The snapshot"): `--format json` writes
 * each element of a list on a line of its own (report/review/json.ts), so a file of 100,000 people
 * (about 300 MiB) is parsed element by element and never held as one string beside what it
 * parses into (docs/benchmarks.md figure 16). The value is the one `JSON.parse` of the whole text
 * gives (CRLF line ends too). An element of a list may also span lines, as
 * `JSON.stringify(value, null, 2)` writes it (a campaign file's rows): its lines are gathered from
 * `    {` to `    }` and parsed together. A file laid out any other way (indented otherwise, on one
 * line) gives undefined here and is read whole by the caller, so every JSON file still reads.
 */
import type { FileHandle } from "node:fs/promises";
import { createInterface } from "node:readline";

const MEMBER = /^ {2}("(?:[^"\\]|\\.)*"): (.*)$/;

/** A line's JSON without the comma that separates it from the next. */
const parseLine = (text: string): unknown => JSON.parse(text.endsWith(",") ? text.slice(0, -1) : text);

/** What a list's element becomes as it is read (its equal parts shared): given the list's key. */
export type Element = (key: string, value: unknown) => unknown;

const kept = (of: Element | undefined, key: string, value: unknown): unknown =>
  of === undefined ? value : of(key, value);

type State =
  | { at: "start" | "members" | "end" }
  | { at: "list"; key: string; list: unknown[]; lines?: string[] }
  | { at: "value"; key: string; lines: string[] };

/** One line further; false when the layout is not the writer's (the caller falls back). */
function step(state: State, line: string, into: Record<string, unknown>, of?: Element): State | false {
  switch (state.at) {
    case "start":
      return line === "{" ? { at: "members" } : false;
    case "end":
      return line === "" ? state : false;
    case "list":
      if (state.lines !== undefined) return element(state, line, of);
      if (line === "    {" || line === "    [") return { ...state, lines: [line] };
      if (line === "  ]" || line === "  ],") {
        into[state.key] = state.list;
        return { at: "members" };
      }
      if (!line.startsWith("    ")) return false;
      state.list.push(kept(of, state.key, parseLine(line.slice(4))));
      return state;
    case "value":
      state.lines.push(line);
      if (line !== "  }" && line !== "  },") return state;
      into[state.key] = parseLine(state.lines.join("\n"));
      return { at: "members" };
    case "members": {
      if (line === "}") return { at: "end" };
      const m = MEMBER.exec(line);
      if (!m) return false;
      const key = JSON.parse(m[1]!) as string;
      const rest = m[2]!;
      if (key === "__proto__" || Object.hasOwn(into, key)) return false;
      if (rest === "[") return { at: "list", key, list: [] };
      if (rest === "{") return { at: "value", key, lines: [rest] };
      into[key] = parseLine(rest);
      return state;
    }
  }
}

/** A line of a list element that spans lines: at its last line, the element is parsed. */
function element(state: State & { at: "list" }, line: string, of?: Element): State | false {
  const lines = state.lines!;
  lines.push(line);
  if (!/^ {4}[}\]],?$/.test(line)) return line.startsWith("      ") ? state : false;
  state.list.push(kept(of, state.key, parseLine(lines.join("\n"))));
  return { at: "list", key: state.key, list: state.list };
}

/**
 * The file's value, parsed a line at a time; undefined when it is not laid out as `--format json`
 * writes it, or a line is not JSON (the caller reads it whole and reports what is wrong).
 * `onBytes` is given every byte read, in order (the caller hashes exactly what was parsed);
 * `element` makes each element of a list what is kept of it, as it is read.
 */
export async function readJsonLines(
  file: FileHandle,
  o: { onBytes?: (bytes: Buffer) => void; element?: Element | undefined } = {},
): Promise<Record<string, unknown> | undefined> {
  const { onBytes } = o;
  const value: Record<string, unknown> = {};
  let state: State | false = { at: "start" };
  const stream = file.createReadStream({ autoClose: false });
  if (onBytes !== undefined) stream.on("data", (bytes) => onBytes(bytes as Buffer));
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      state = step(state, line, value, o.element);
      if (state === false) break;
    }
  } catch {
    state = false;
  } finally {
    lines.close();
    stream.destroy();
  }
  return state !== false && state.at === "end" ? value : undefined;
}
