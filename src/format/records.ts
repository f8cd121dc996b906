/**
 * One column list per record form drives both writers, so the JSON and the CSV of a request
 * carry the same values by construction. Rows are serialised straight into a string in one
 * pass: no intermediate object per row.
 */

export interface Column<R> {
  /** Spec field name: JSON key and CSV header. */
  readonly name: string;
  /** The cell text; null when the value does not apply or is absent. */
  readonly cell: (row: R) => string | null;
  /**
   * Free text that may need JSON escaping, CSV quoting and formula neutralising (csvTextCell);
   * other cells are known-safe. Decided by column, never by content: a number such as -0.50
   * is never a text cell, so it is never altered.
   */
  readonly text?: boolean;
  /** A raw JSON literal instead of a string (trades' boolean `block`). */
  readonly json?: (row: R) => string;
}

/** How an absent value appears in JSON: `null` (intraday) or an empty string (everywhere else). */
export type JsonNulls = 'null' | 'empty';

export interface RecordForm<R> {
  readonly columns: readonly Column<R>[];
  /** `"name":` per column, computed once. */
  readonly keys: readonly string[];
  /** The CSV header line per delimiter, computed once. */
  readonly header: (delimiter: string) => string;
}

export function recordForm<R>(columns: readonly Column<R>[]): RecordForm<R> {
  const keys = columns.map((column) => `${JSON.stringify(column.name)}:`);
  const headers = new Map<string, string>();
  return {
    columns,
    keys,
    header(delimiter) {
      let line = headers.get(delimiter);
      if (line === undefined) {
        line = columns.map((column) => csvCell(column.name, delimiter)).join(delimiter);
        headers.set(delimiter, line);
      }
      return line;
    },
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON must escape.
const NEEDS_JSON_ESCAPE = /["\\\u0000-\u001f\u2028\u2029]/;

/** A JSON string literal; the fast path skips JSON.stringify for plain text. */
export function jsonString(value: string): string {
  return NEEDS_JSON_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

export function jsonRecord<R>(form: RecordForm<R>, row: R, nulls: JsonNulls): string {
  const { columns, keys } = form;
  let out = '{';
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i] as Column<R>;
    if (i > 0) out += ',';
    out += keys[i];
    if (column.json) {
      out += column.json(row);
      continue;
    }
    const value = column.cell(row);
    if (value === null) out += nulls === 'null' ? 'null' : '""';
    else out += column.text ? jsonString(value) : `"${value}"`;
  }
  return `${out}}`;
}

export function jsonArray<R>(form: RecordForm<R>, rows: readonly R[], nulls: JsonNulls): string {
  let out = '[';
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) out += ',';
    out += jsonRecord(form, rows[i] as R, nulls);
  }
  return `${out}]`;
}

/** RFC 4180 quoting, only when the cell holds the delimiter, a quote or a line break. */
export function csvCell(value: string, delimiter: string): string {
  if (value.includes(delimiter) || value.includes('"') || value.includes('\n') || value.includes('\r')) {
    return `"${value.replaceAll('"', '""')}"`;
  }
  return value;
}

/**
 * What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection"): =, +, -, @, and
 * tab and carriage return, which some spreadsheets strip before looking.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A free-text cell (a message, a custom market's name): text that a spreadsheet would take for
 * a formula gets a leading single quote, which makes it plain text there, and the cell is
 * quoted (OWASP's advice); anything else is a csvCell. docs/api.md ("CSV") tells API users.
 */
export function csvTextCell(value: string, delimiter: string): string {
  if (!FORMULA_START.test(value)) return csvCell(value, delimiter);
  return `"'${value.replaceAll('"', '""')}"`;
}

export function csvRow<R>(form: RecordForm<R>, row: R, delimiter: string): string {
  const { columns } = form;
  let out = '';
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i] as Column<R>;
    if (i > 0) out += delimiter;
    const value = column.cell(row);
    if (value !== null) out += column.text ? csvTextCell(value, delimiter) : value;
  }
  return out;
}

/** Header row (always, also for no rows), then one line per row, each ending in `\n`. */
export function csvTable<R>(form: RecordForm<R>, rows: readonly R[], delimiter = ','): string {
  let out = `${form.header(delimiter)}\n`;
  for (const row of rows) out += `${csvRow(form, row, delimiter)}\n`;
  return out;
}
