/**
 * Spreadsheet formula neutralising (CSV injection): a cell that starts with `=`, `+`, `-`, `@`,
 * a tab or a carriage return is written with a leading `'`, so a spreadsheet shows it as text.
 * The reader removes that one `'` again, so an exported file reads back to the same values.
 */

/** A formula start, after any number of `'` (so `'=x` itself is written as `''=x` and reads back). */
const FORMULA_START = /^'*[=+\-@\t\r]/;
const NEUTRALISED = /^'+[=+\-@\t\r]/;

export function neutraliseCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

export function unneutraliseCell(value: string): string {
  return NEUTRALISED.test(value) ? value.slice(1) : value;
}

/** One CSV field: neutralised, and quoted when it holds a separator, a quote, a line break or edge spaces. */
export function csvField(value: string): string {
  const safe = neutraliseCell(value);
  return /[",\r\n]|^\s|\s$/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLine(values: readonly string[]): string {
  return `${values.map(csvField).join(",")}\r\n`;
}
