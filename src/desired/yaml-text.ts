/**
 * Parsing YAML with positions and limits, shared by every YAML the tool reads (desired state,
 * config, emulator seed and faults files): syntax errors with their lines, the core schema only
 * (a tag such as `!!js/function` or `!custom` is refused, not ignored), nesting capped before
 * anything recursive sees the document, alias expansion capped (a billion-laughs file is refused,
 * not expanded), `lineOf` for any node, and `keyLines` for every key of a mapping.
 */
import { Composer, isMap, isScalar, Lexer, LineCounter, Parser, visit, YAMLParseError } from "yaml";
import type { CST, Document, Node } from "yaml";
import type { Problem } from "../errors.js";

/** Aliases a file may expand; a billion-laughs file needs far more. */
export const MAX_YAML_ALIASES = 100;

/**
 * Lists and mappings inside each other. A desired state needs four levels and a config five; the
 * `yaml` package's composer and `toJS` recurse per level and overflow the stack near 1,000.
 */
export const MAX_YAML_DEPTH = 100;

export interface ParsedYaml {
  doc: Document.Parsed;
  /** The plain value (`toJS`). */
  data: unknown;
  /** 1-based line where a node starts, if it has a position. */
  lineOf(node: unknown): number | undefined;
}

type Parsed = { yaml: ParsedYaml; problems?: undefined } | { problems: Problem[] };

export function parseYaml(text: string, file: string): Parsed {
  const lineCounter = new LineCounter();
  const line = (offset: number): number => lineCounter.linePos(offset).line;
  const source = text.replace(/^\uFEFF/, "");
  const cst = parseCst(source, lineCounter);
  if ("tooDeepAt" in cst) return { problems: [tooDeep(file, line(cst.tooDeepAt))] };
  const doc = compose(cst.tokens, source.length);
  const errors = doc.errors.map((e) => ({ at: e.pos[0], message: syntaxMessage(e.message) }));
  if (errors.length > 0)
    return {
      problems: errors.map((e) => ({ file, line: line(e.at), rule: "yaml-syntax", message: e.message })),
    };
  const tags = tagProblems(doc).map((t) => ({
    file,
    line: line(t.at),
    rule: "yaml-tag",
    message: t.message,
  }));
  if (tags.length > 0) return { problems: tags };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (err) {
    // Aliases can nest one anchored value inside another: the expanded value is checked below.
    if (err instanceof RangeError) return { problems: [tooDeep(file, undefined)] };
    return {
      problems: [
        {
          file,
          rule: "yaml-alias-limit",
          message: `aliases expand too much (more than ${MAX_YAML_ALIASES}): write the values out instead of using anchors (${firstLine((err as Error).message)})`,
        },
      ],
    };
  }
  if (depthOver(data, MAX_YAML_DEPTH)) return { problems: [tooDeep(file, undefined)] };
  const lineOf = (node: unknown): number | undefined => {
    const range = (node as Node | undefined)?.range;
    return range ? line(range[0]) : undefined;
  };
  return { yaml: { doc, data, lineOf } };
}

/**
 * The concrete syntax tree, built token by token so that a file nested too deeply is stopped
 * where it goes too deep, before the composer's recursion sees it (and without reading the rest:
 * 64 MiB of `[` stops after a hundred).
 */
function parseCst(source: string, lineCounter: LineCounter): { tokens: CST.Token[] } | { tooDeepAt: number } {
  const parser = new Parser(lineCounter.addNewLine);
  lineCounter.addNewLine(0);
  const tokens: CST.Token[] = [];
  for (const lexeme of new Lexer().lex(source)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    // The stack holds the document, the collections being read and a scalar or two.
    if (parser.stack.length > MAX_YAML_DEPTH && collections(parser.stack) > MAX_YAML_DEPTH)
      return { tooDeepAt: parser.offset };
  }
  for (const token of parser.end()) tokens.push(token);
  return { tokens };
}

const collections = (stack: readonly CST.Token[]): number =>
  stack.filter((t) => t.type === "block-map" || t.type === "block-seq" || t.type === "flow-collection")
    .length;

/** The first document; a second one is an error (as `parseDocument` does). */
function compose(tokens: CST.Token[], length: number): Document.Parsed {
  // The core schema only: no YAML 1.1 types (`!!binary`, `!!timestamp`, `!!set`, ...), even
  // under a `%YAML 1.1` directive, so every tag outside the core schema is left unresolved.
  const composer = new Composer({ uniqueKeys: true, schema: "core", resolveKnownTags: false });
  let doc: Document.Parsed | undefined;
  for (const next of composer.compose(tokens, true, length)) {
    if (!doc) doc = next;
    else {
      const at: [number, number] = [next.range[0], next.range[1]];
      doc.errors.push(new YAMLParseError(at, "MULTIPLE_DOCS", "Source contains multiple documents"));
      break;
    }
  }
  return doc!;
}

/** The tags of the core schema (and `!`, the non-specific tag: "read as text"). */
const CORE_TAGS = new Set(
  ["str", "int", "float", "bool", "null", "map", "seq"].map((t) => `tag:yaml.org,2002:${t}`).concat("!"),
);

/** `!!js/function` for the standard prefix, the tag as written otherwise. */
const shortTag = (tag: string): string => tag.replace(/^tag:yaml\.org,2002:/, "!!");

/**
 * Every tag outside the core schema, and every core tag that does not fit its value (`!!int x`,
 * `!!str {a: 1}`): the value would otherwise be used as if the tag were not there. The composer
 * leaves each of them unresolved, with a warning at the tag.
 */
function tagProblems(doc: Document.Parsed): Array<{ at: number; message: string }> {
  const out: Array<{ at: number; message: string }> = [];
  for (const w of doc.warnings)
    if (w.code === "TAG_RESOLVE_FAILED")
      out.push({ at: w.pos[0], message: tagMessage(/^Unresolved tag: (\S+)/.exec(w.message)?.[1]) });
  // A foreign tag resolved without a warning (none is, with this schema) is refused at its node.
  if (out.length === 0)
    visit(doc, {
      Node(_key, { tag, range }) {
        if (tag !== undefined && !CORE_TAGS.has(tag) && range)
          out.push({ at: range[0], message: tagMessage(tag) });
      },
    });
  return out;
}

function tagMessage(tag: string | undefined): string {
  if (tag === undefined || CORE_TAGS.has(tag))
    return `the tag ${tag === undefined ? "" : `${shortTag(tag)} `}does not fit its value: remove the tag (quote the value to make it text)`;
  return `the tag ${shortTag(tag)} is not allowed: usersync reads plain YAML (text, numbers, true/false, null, lists and mappings); remove the tag`;
}

/** At a line: the brackets or indentation go too deep there; without one: once aliases are expanded. */
function tooDeep(file: string, line: number | undefined): Problem {
  const where = line === undefined ? " once its aliases are expanded" : "";
  return {
    file,
    ...(line !== undefined ? { line } : {}),
    rule: "yaml-too-deep",
    message: `nested too deeply: lists and mappings more than ${MAX_YAML_DEPTH} levels inside each other${where}; no usersync file needs more than a few (an unclosed [ or {?)`,
  };
}

/** Whether lists and mappings nest deeper than `max`, found without recursion. */
export function depthOver(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The line of every key of the document's mappings, by dotted path (`rateLimit.resetHeader`). */
export function keyLines(yaml: ParsedYaml): Map<string, number> {
  const lines = new Map<string, number>();
  const walk = (node: unknown, prefix: string): void => {
    if (!isMap(node)) return;
    for (const pair of node.items) {
      if (!isScalar(pair.key)) continue;
      const path = prefix ? `${prefix}.${String(pair.key.value)}` : String(pair.key.value);
      const line = yaml.lineOf(pair.key);
      if (line !== undefined) lines.set(path, line);
      walk(pair.value, path);
    }
  };
  walk(yaml.doc.contents, "");
  return lines;
}

/** The parser's words, except where they talk to a programmer rather than to the file's author. */
function syntaxMessage(message: string): string {
  if (message.startsWith("Source contains multiple documents"))
    return "the file holds more than one YAML document (a line with ---): keep one";
  return firstLine(message);
}

function firstLine(s: string): string {
  return s.split("\n")[0]!.trim();
}
