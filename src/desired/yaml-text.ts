/**
 * Parsing YAML with positions and limits, shared by the desired-state reader and the config
 * loader: syntax errors with their lines, alias expansion capped (a billion-laughs file is
 * refused, not expanded), `lineOf` for any node, and `keyLines` for every key of a mapping.
 */
import { isMap, isScalar, LineCounter, parseDocument } from "yaml";
import type { Document, Node } from "yaml";
import type { Problem } from "../errors.js";

/** Aliases a file may expand; a billion-laughs file needs far more. */
export const MAX_YAML_ALIASES = 100;

export interface ParsedYaml {
  doc: Document.Parsed;
  /** The plain value (`toJS`). */
  data: unknown;
  /** 1-based line where a node starts, if it has a position. */
  lineOf(node: unknown): number | undefined;
}

export function parseYaml(
  text: string,
  file: string,
): { yaml: ParsedYaml; problems?: undefined } | { problems: Problem[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text.replace(/^\uFEFF/, ""), {
    lineCounter,
    uniqueKeys: true,
    prettyErrors: false,
  });
  if (doc.errors.length > 0)
    return {
      problems: doc.errors.map((e) => ({
        file,
        line: lineCounter.linePos(e.pos[0]).line,
        rule: "yaml-syntax",
        message: syntaxMessage(e.message),
      })),
    };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (err) {
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
  const lineOf = (node: unknown): number | undefined => {
    const range = (node as Node | undefined)?.range;
    return range ? lineCounter.linePos(range[0]).line : undefined;
  };
  return { yaml: { doc, data, lineOf } };
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
