/**
 * Streaming CSV reader for the users file and the groups file. The bytes go through the UTF-8
 * check and csv-parse chunk by chunk, so a file of a million rows is never held as one string.
 * The first row is the header; rows are checked one by one and every problem is collected. Only a
 * structural error (a quote never closed, a row over the size cap) stops the parse, since nothing
 * after it can be trusted.
 */
import { createReadStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { parse } from "csv-parse";
import { ByteProblem, byteCheckStream } from "./byte-check.js";
import { visible } from "./characters.js";
import { unneutraliseCell } from "./csv-cell.js";
import type { ProblemList, Where } from "./problems.js";
import type { RawRecord } from "./records.js";
import { didYouMean } from "../suggest.js";
import { projectHeader, type ColumnMapping, type Projection } from "./column-map.js";

/** A cell this long is junk, not a name. */
export const MAX_FIELD_CHARS = 64 * 1024;
/** csv-parse stops (and we report) a record past this many characters. */
export const MAX_RECORD_CHARS = 1024 * 1024;

export interface CsvShape<F extends string> {
  /** Known columns, in their documented spelling (matched case-insensitively). */
  fields: readonly F[];
  required: readonly F[];
  /** Columns whose cell is a `;`-separated list: an empty cell is `[]`. */
  lists: readonly F[];
  /** What one record is called in messages ("user", "group"). */
  noun: string;
  /** Further columns to keep as they are (a target's selector column), matched case-insensitively. */
  extra?: readonly string[];
  /** `source.columns`: the file's own header mapped to the fields (column-map.ts). */
  mapping?: ColumnMapping;
}

/** A header cell: a known field, an extra column kept by name, or neither. */
type Column<F extends string> = F | { extra: string } | undefined;

/**
 * Reads `file` and calls `onRecord` for every well-formed row. Returns the number of data rows
 * seen (well-formed or not), so the caller can tell an empty file from a bad one.
 */
export async function readCsv<F extends string>(options: {
  file: string;
  shape: CsvShape<F>;
  problems: ProblemList;
  onRecord: (record: RawRecord<F>) => void;
}): Promise<{ rows: number; headerOk: boolean }> {
  const { file, shape, problems } = options;
  let header: Array<Column<F>> | undefined;
  let projection: Projection | undefined;
  let headerOk = true;
  let rows = 0;
  let nextLine = 1;
  let stopped = false;
  /** Every row, in file order, as csv-parse reads it. */
  const onRow = (item: CsvRow): void => {
    if (stopped) return;
    // Physical lines, counted from the raw text: csv-parse's own count differs for quoted line breaks.
    const line = nextLine;
    nextLine += newlines(item.raw) + (item.raw.endsWith("\n") ? 0 : 1);
    const record = item.record;
    // A blank line, or a row of separators only (spreadsheets write `,,,` for empty rows).
    if (record.every((v) => v.trim() === "")) return;
    if (header === undefined) {
      projection = shape.mapping
        ? projectHeader({ file, line, header: record, problems, ...shape, mapping: shape.mapping })
        : undefined;
      const names = shape.mapping ? (projection?.names ?? []) : record;
      header = shape.mapping && !projection ? [] : readHeader({ file, line, names, shape, problems });
      headerOk = header.length > 0 && shape.required.every((r) => header!.includes(r));
      if (!headerOk) {
        // Nothing more to check without the columns: stop reading once this chunk is parsed.
        stopped = true;
        setImmediate(() => parser.destroy());
      }
      return;
    }
    rows++;
    if (rowShapeProblem({ file, line, record, header, width: projection?.width, problems })) return;
    const cells = projection ? projection.project(record) : record;
    options.onRecord(toRecord({ file, line, record: cells, header, shape, labels: projection?.labels }));
  };
  const parser = parse({
    bom: true,
    // `raw` (not `info`, which costs twice the parse time) gives each row's text to count lines.
    raw: true,
    // The field count is checked here, row by row, so one bad row does not stop the file.
    relax_column_count: true,
    max_record_size: MAX_RECORD_CHARS,
    // Any mix of CRLF, LF and CR line ends (a file edited on two systems, rows appended by a
    // script): csv-parse would otherwise take the first line's end as the only one.
    record_delimiter: ["\r\n", "\n", "\r"],
  });
  const failure = await parseFile({ file, parser, onRow });
  // A bad header destroys the parser, which fails the pipeline: not a problem (see `stopped`).
  if (failure !== undefined && !stopped) reportStop({ err: failure, file, problems, nextLine });
  if (header === undefined) headerOk = false;
  return { rows, headerOk };
}

type CsvRow = { record: string[]; raw: string };

/** Streams the file through the byte check into `parser`; resolves with what stopped it, if anything. */
async function parseFile(options: {
  file: string;
  parser: ReturnType<typeof parse>;
  onRow: (item: CsvRow) => void;
}): Promise<unknown> {
  const { parser, onRow } = options;
  // 'data' events, not an async iterator: in flowing mode each row is handed over as csv-parse
  // reads it, so the rows before a stopping error are all checked (an iterator drops what it
  // had buffered). Not `on_record` either: it builds an info object per row, 40% slower.
  const consume = (): Promise<void> =>
    new Promise<void>((resolvePromise, reject) => {
      parser.on("data", (item: CsvRow) => onRow(item));
      parser.once("end", resolvePromise);
      parser.once("close", resolvePromise);
      parser.once("error", reject);
    });
  const piped = pipeline(createReadStream(options.file), byteCheckStream(), parser).then(
    () => undefined,
    (err: unknown) => err,
  );
  let failure: unknown;
  try {
    await consume();
  } catch (err) {
    failure = err;
  }
  const pipeFailure = await piped;
  return failure ?? pipeFailure;
}

const columnName = <F extends string>(c: Column<F>): string | undefined =>
  typeof c === "object" ? c.extra : c;

/** A data row with the wrong number of fields or a junk-long cell: reported, true. */
function rowShapeProblem<F extends string>(options: {
  file: string;
  line: number;
  record: string[];
  header: Array<Column<F>>;
  /** The file's own header width, when mapped (source.columns). */
  width: number | undefined;
  problems: ProblemList;
}): boolean {
  const { file, line, record, header, problems } = options;
  const width = options.width ?? header.length;
  if (record.length !== width) {
    problems.error(
      { file, line },
      "field-count",
      `row has ${record.length} fields, the header has ${width}: quote values that contain a comma`,
    );
    return true;
  }
  const long = record.findIndex((v) => v.length > MAX_FIELD_CHARS);
  if (long < 0) return false;
  const name = options.width === undefined ? columnName(header[long]) : undefined;
  problems.error(
    { file, line, field: name ?? `column ${long + 1}` },
    "field-too-long",
    `is ${record[long]!.length} characters long (at most ${MAX_FIELD_CHARS})`,
  );
  return true;
}

function newlines(raw: string): number {
  let n = 0;
  for (let i = raw.indexOf("\n"); i >= 0; i = raw.indexOf("\n", i + 1)) n++;
  return n;
}

function readHeader<F extends string>(options: {
  file: string;
  line: number;
  names: string[];
  shape: CsvShape<F>;
  problems: ProblemList;
}): Array<Column<F>> {
  const { file, line, shape, problems } = options;
  const only = options.names.length === 1 ? options.names[0]!.trim() : "";
  const separator = [";", "\t", "|"].find((c) => only.includes(c));
  if (separator !== undefined) {
    // One column holding the names: a spreadsheet in a locale that separates with ';' wrote it.
    problems.error(
      { file, line, field: visible(only) },
      "csv-separator",
      `the header is one column with ${JSON.stringify(separator)} in it: columns are separated by commas; save the file as comma-separated CSV (or replace the ${JSON.stringify(separator)} separators with commas)`,
    );
    return [];
  }
  const known = new Map(shape.fields.map((f) => [f.toLowerCase(), f] as const));
  const extra = new Map((shape.extra ?? []).map((c) => [c.toLowerCase(), c] as const));
  const seen = new Set<F>();
  const columns = options.names.map((rawName, i): Column<F> => {
    const name = rawName.trim();
    const field = known.get(name.toLowerCase());
    const kept = extra.get(name.toLowerCase());
    if (field === undefined && kept !== undefined) return { extra: kept };
    if (field === undefined) {
      problems.error(
        { file, line, field: visible(name) || `column ${i + 1}` },
        "unknown-column",
        `unknown column; ${didYouMean(name, shape.fields)}the ${shape.noun} columns are ${shape.fields.join(", ")}`,
      );
      return undefined;
    }
    if (seen.has(field))
      problems.error({ file, line, field: name }, "duplicate-column", "appears twice in the header");
    seen.add(field);
    return field;
  });
  for (const r of shape.required)
    if (!seen.has(r))
      problems.error(
        { file, line, field: r },
        "missing-column",
        `the header has no ${r} column; it is required (the first row must name the columns, e.g. ${shape.fields.slice(0, 3).join(",")})`,
      );
  return columns;
}

function toRecord<F extends string>(options: {
  file: string;
  line: number;
  record: string[];
  header: Array<Column<F>>;
  shape: CsvShape<F>;
  labels: Record<string, string> | undefined;
}): RawRecord<F> {
  const { file, line, record, header, shape } = options;
  const text: Partial<Record<F, string>> = {};
  const lists: Partial<Record<F, string[]>> = {};
  let extra: Record<string, string> | undefined;
  header.forEach((field, i) => {
    if (field === undefined) return;
    const value = unneutraliseCell(record[i]!.trim());
    if (typeof field === "object") return void ((extra ??= {})[field.extra] = value);
    if (shape.lists.includes(field))
      lists[field] = value === "" ? [] : value.split(";").map(unneutraliseCell);
    else text[field] = value;
  });
  const where = whereIn(file, line, options.labels);
  // A mapped field's `where` names its HR column, so the record keeps it (not `lineOnly`).
  return { line, text, lists, where, lineOnly: !options.labels, ...(extra ? { extra } : {}) };
}

/** Built outside `toRecord` so the closure, kept for every user, holds a few values and not the row. */
function whereIn(file: string, line: number, labels?: Record<string, string>): (field: string) => Where {
  if (labels === undefined) return (field) => ({ file, line, field });
  return (field) => ({ file, line, field: labels[field] ?? field });
}

function reportStop(options: { err: unknown; file: string; problems: ProblemList; nextLine: number }): void {
  const { err, file, problems, nextLine } = options;
  if (err instanceof ByteProblem) {
    problems.error({ file, line: err.finding.line }, err.finding.rule, err.finding.message);
    return;
  }
  const code = (err as { code?: unknown }).code;
  const lines = (err as { lines?: unknown }).lines;
  const line = typeof lines === "number" ? lines : undefined;
  if (code === "CSV_QUOTE_NOT_CLOSED") {
    problems.error(
      { file, line: nextLine },
      "csv-quote",
      `the row starting on this line has a quoted field that is never closed: check the quotes ("); reading stopped here`,
    );
  } else if (code === "CSV_MAX_RECORD_SIZE") {
    problems.error(
      { file, line: nextLine },
      "field-too-long",
      `the row is longer than ${MAX_RECORD_CHARS} characters (a missing closing quote?); reading stopped here`,
    );
  } else if (code === "INVALID_OPENING_QUOTE" || code === "CSV_INVALID_CLOSING_QUOTE") {
    problems.error(
      { file, ...(line !== undefined ? { line } : {}) },
      "csv-quote",
      `a quote (") inside a field that is not quoted as a whole: quote the field and double inner quotes (""); reading stopped here`,
    );
  } else if (typeof code === "string" && code.startsWith("CSV_")) {
    problems.error(
      { file, ...(line !== undefined ? { line } : {}) },
      "csv-syntax",
      `${(err as Error).message}; reading stopped here`,
    );
  } else throw err; // an I/O error: the caller reports it as file-unreadable
}
