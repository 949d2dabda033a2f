/**
 * Okta's filter and search expressions (developer.okta.com/docs/api/#filter), as far as groups
 * use them: `attr op "value"` with eq, ne, sw, co, gt, ge, lt, le and `pr`, joined by `and` / `or`,
 * grouped with parentheses. String comparisons ignore case, as Okta's do. A malformed expression
 * throws `SearchSyntaxError` (Okta answers 400 E0000031).
 */

export class SearchSyntaxError extends Error {}

type Value = string | number | boolean;
type Node =
  | { op: "and" | "or"; left: Node; right: Node }
  | { op: "pr"; attr: string }
  | { op: "eq" | "ne" | "sw" | "co" | "gt" | "ge" | "lt" | "le"; attr: string; value: Value };

const TOKEN = /\s*(\(|\)|"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_.]*|-?\d+(?:\.\d+)?)/y;
const COMPARE = new Set(["eq", "ne", "sw", "co", "gt", "ge", "lt", "le"]);

function tokens(text: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m) throw new SearchSyntaxError(`unexpected text at ${at}: ${text.slice(at, at + 20)}`);
    out.push(m[1]!);
  }
  return out;
}

export function parseSearch(text: string): Node {
  const list = tokens(text);
  let i = 0;
  const peek = (): string | undefined => list[i];
  const take = (): string => {
    const t = list[i++];
    if (t === undefined) throw new SearchSyntaxError("the expression ends too early");
    return t;
  };
  const value = (t: string): Value => {
    if (t.startsWith('"')) return JSON.parse(t) as string;
    if (t === "true" || t === "false") return t === "true";
    if (/^-?\d/.test(t)) return Number(t);
    throw new SearchSyntaxError(`expected a value, found ${t}`);
  };
  const primary = (): Node => {
    const t = take();
    if (t === "(") {
      const inner = or();
      if (take() !== ")") throw new SearchSyntaxError("a parenthesis is not closed");
      return inner;
    }
    const op = take().toLowerCase();
    if (op === "pr") return { op: "pr", attr: t };
    if (!COMPARE.has(op)) throw new SearchSyntaxError(`unknown operator ${op}`);
    return { op: op as "eq", attr: t, value: value(take()) };
  };
  const and = (): Node => {
    let left = primary();
    while (peek()?.toLowerCase() === "and") {
      take();
      left = { op: "and", left, right: primary() };
    }
    return left;
  };
  const or = (): Node => {
    let left = and();
    while (peek()?.toLowerCase() === "or") {
      take();
      left = { op: "or", left, right: and() };
    }
    return left;
  };
  const tree = or();
  if (i !== list.length) throw new SearchSyntaxError(`unexpected ${list[i]}`);
  return tree;
}

/** The attributes a `filter` (not `search`) may name on groups, per the spec. */
export const FILTER_ATTRIBUTES = new Set(["id", "type", "lastUpdated", "lastMembershipUpdated"]);

export function attributesOf(node: Node): string[] {
  return "attr" in node ? [node.attr] : [...attributesOf(node.left), ...attributesOf(node.right)];
}

export function matches(node: Node, get: (attr: string) => unknown): boolean {
  switch (node.op) {
    case "and":
      return matches(node.left, get) && matches(node.right, get);
    case "or":
      return matches(node.left, get) || matches(node.right, get);
    case "pr": {
      const v = get(node.attr);
      return v !== undefined && v !== null && v !== "";
    }
    default:
      return compare(node.op, get(node.attr), node.value);
  }
}

function compare(op: string, actual: unknown, wanted: Value): boolean {
  if (actual === undefined || actual === null) return op === "ne";
  const a = typeof actual === "string" ? actual.toLowerCase() : actual;
  const w = typeof wanted === "string" ? wanted.toLowerCase() : wanted;
  switch (op) {
    case "eq":
      return a === w;
    case "ne":
      return a !== w;
    case "sw":
      return typeof a === "string" && typeof w === "string" && a.startsWith(w);
    case "co":
      return typeof a === "string" && typeof w === "string" && a.includes(w);
    case "gt":
      return (a as Value) > w;
    case "ge":
      return (a as Value) >= w;
    case "lt":
      return (a as Value) < w;
    default:
      return (a as Value) <= w;
  }
}
