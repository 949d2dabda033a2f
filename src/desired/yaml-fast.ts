/**
 * The fast way to read a YAML desired state: js-yaml's event parser, which parses 100k users in
 * about 1.5 s where the `yaml` package's document model (`parseYaml`) takes some twenty.
 * Lines come from the events' offsets. Only for plain files: one document, no anchors, aliases
 * or tags, no lone CR line breaks, scalar keys, no duplicate keys. For anything else it returns
 * undefined and the caller reads the file the precise way, so unusual files keep the behaviour
 * and messages they always had (`readYaml` also falls back when the file has any problem).
 */
import { constructFromEvents, CORE_SCHEMA, EVENT_ID, getScalarValue, parseEvents } from "js-yaml";

type Event = ReturnType<typeof parseEvents>[number];

/** Lines of one list item: where it starts and where each of its keys is. */
export interface ItemLines {
  line: number;
  keys: Map<string, number>;
}

export interface FastYaml {
  data: unknown;
  /** The top level is a mapping. */
  topIsMap: boolean;
  /** Line of each top-level key. */
  topKeys: Map<string, number>;
  /** For each top-level key whose value is a list: its items' lines (undefined: not a mapping). */
  lists: Map<string, Array<ItemLines | undefined>>;
}

class NotPlain extends Error {}

export function readFastYaml(text: string): FastYaml | undefined {
  if (/\r(?!\n)/.test(text)) return undefined;
  let events: Event[];
  try {
    events = parseEvents(text, {});
  } catch {
    return undefined;
  }
  let documents = 0;
  for (const e of events) {
    if (e.type === EVENT_ID.DOCUMENT) documents++;
    else if (isNotPlain(e)) return undefined;
  }
  if (documents !== 1) return undefined;
  let data: unknown;
  try {
    [data] = constructFromEvents(events, { source: text, schema: CORE_SCHEMA, maxAliases: 0 });
  } catch {
    // Duplicate keys and values the schema refuses: the precise reader says where.
    return undefined;
  }
  const lineOf = lineCounter(text);
  const out: FastYaml = { data, topIsMap: false, topKeys: new Map(), lists: new Map() };
  const top = events[1];
  if (top?.type !== EVENT_ID.MAPPING) return out;
  out.topIsMap = true;
  try {
    let i = 2;
    while (events[i]!.type !== EVENT_ID.POP) {
      const key = scalarKey(text, events[i]!);
      out.topKeys.set(key.name, lineOf(key.at));
      i += 1;
      if (events[i]!.type === EVENT_ID.SEQUENCE) {
        const list = itemLines({ text, events, at: i, lineOf });
        out.lists.set(key.name, list.items);
        i = list.next;
      } else i = skipNode(events, i);
    }
  } catch (err) {
    if (err instanceof NotPlain) return undefined;
    throw err;
  }
  return out;
}

/**
 * The lines of the items of the sequence starting at event `at`, and the event after it. An item
 * that is no mapping has no lines; of a key given twice, the first counts.
 */
function itemLines(o: {
  text: string;
  events: readonly Event[];
  at: number;
  lineOf: (offset: number) => number;
}): { items: Array<ItemLines | undefined>; next: number } {
  const { text, events, lineOf } = o;
  const items: Array<ItemLines | undefined> = [];
  let i = o.at + 1;
  while (events[i]!.type !== EVENT_ID.POP) {
    const item = events[i]!;
    if (item.type !== EVENT_ID.MAPPING) {
      items.push(undefined);
      i = skipNode(events, i);
      continue;
    }
    const keys = new Map<string, number>();
    i += 1;
    while (events[i]!.type !== EVENT_ID.POP) {
      const field = scalarKey(text, events[i]!);
      if (!keys.has(field.name)) keys.set(field.name, lineOf(field.at));
      i = skipNode(events, i + 1);
    }
    items.push({ line: lineOf(item.start), keys });
    i += 1;
  }
  return { items, next: i + 1 };
}

/** An alias, or a node with an anchor or a tag. */
function isNotPlain(e: Event): boolean {
  if (e.type === EVENT_ID.ALIAS) return true;
  if (e.type === EVENT_ID.DOCUMENT || e.type === EVENT_ID.POP) return false;
  return e.anchorStart !== -1 || e.tagStart !== -1;
}

/** A mapping key that is a scalar (a list or mapping as a key: the precise reader handles it). */
function scalarKey(text: string, e: Event): { name: string; at: number } {
  if (e.type !== EVENT_ID.SCALAR) throw new NotPlain();
  return { name: getScalarValue(text, e), at: e.valueStart };
}

/** The index after the node that starts at `i`. */
function skipNode(events: readonly Event[], i: number): number {
  const e = events[i]!;
  if (e.type !== EVENT_ID.MAPPING && e.type !== EVENT_ID.SEQUENCE) return i + 1;
  let depth = 0;
  for (let j = i; j < events.length; j++) {
    const t = events[j]!.type;
    if (t === EVENT_ID.MAPPING || t === EVENT_ID.SEQUENCE) depth++;
    else if (t === EVENT_ID.POP && --depth === 0) return j + 1;
  }
  throw new NotPlain();
}

/** 1-based line of an offset: the offsets where lines start, searched by halves. */
function lineCounter(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}
