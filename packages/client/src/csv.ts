export interface ParseCsvOptions {
  /**
   * Accept only the text exactly as the API writes it: `\n` line ends and one after every row.
   * A `\r` outside quotes or a missing final line end throws (the tests check the server with it).
   */
  readonly strict?: boolean;
}

/**
 * Reads the API's CSV (RFC 4180: quoted cells only when needed, `\n` line ends; `\r\n` is
 * accepted too) into rows of cells. The first row is the header; /api/messages separates cells
 * with a tab, and /api/datamine's sections are separated by an empty row (`['']`).
 */
export function parseCsv(
  text: string,
  delimiter = ',',
  { strict = false }: ParseCsvOptions = {},
): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === delimiter) {
      row.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r') {
        if (strict) throw new Error(`CSV has a \\r outside quotes at character ${i}`);
        if (text[i + 1] === '\n') i++;
      }
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += char;
  }
  if (cell !== '' || row.length > 0) {
    if (strict) throw new Error('CSV does not end with a line end');
    row.push(cell);
    rows.push(row);
  }
  return rows;
}
