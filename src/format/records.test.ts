import { describe, expect, it } from 'vitest';
import { csvCell, csvTable, csvTextCell, jsonArray, jsonString, recordForm } from './records.js';

interface Row {
  readonly a: string | null;
  readonly text: string;
  readonly flag: boolean;
}

const FORM = recordForm<Row>([
  { name: 'a', cell: (row) => row.a },
  { name: 'text', cell: (row) => row.text, text: true },
  { name: 'flag', cell: (row) => (row.flag ? '1' : '0'), json: (row) => String(row.flag) },
]);

describe('record writers', () => {
  it('quotes a CSV cell only when it holds the delimiter, a quote or a line break', () => {
    expect(csvCell('plain text', ',')).toBe('plain text');
    expect(csvCell('a,b', ',')).toBe('"a,b"');
    expect(csvCell('a,b', '\t')).toBe('a,b');
    expect(csvCell('a\tb', '\t')).toBe('"a\tb"');
    expect(csvCell('say "hi"', ',')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines', ',')).toBe('"two\nlines"');
    expect(csvCell('cr\rhere', ',')).toBe('"cr\rhere"');
  });

  it('writes the header row even without rows, and \\n line ends', () => {
    expect(csvTable(FORM, [])).toBe('a,text,flag\n');
    expect(csvTable(FORM, [{ a: null, text: 'x,y', flag: true }])).toBe('a,text,flag\n,"x,y",1\n');
  });

  it('writes absent values as null or "" in JSON as asked, raw literals unquoted', () => {
    const rows: Row[] = [{ a: null, text: 'q"\\\n', flag: false }];
    expect(JSON.parse(jsonArray(FORM, rows, 'null'))).toEqual([{ a: null, text: 'q"\\\n', flag: false }]);
    expect(JSON.parse(jsonArray(FORM, rows, 'empty'))).toEqual([{ a: '', text: 'q"\\\n', flag: false }]);
    expect(jsonArray(FORM, [], 'null')).toBe('[]');
  });

  it('escapes JSON strings exactly like JSON.stringify', () => {
    for (const text of ['plain', 'quo"te', 'back\\slash', 'tab\t', '\u0001', 'line\u2028sep', 'é ü ✓']) {
      expect(JSON.parse(jsonString(text))).toBe(text);
    }
  });

  it('neutralises free text a spreadsheet would run as a formula: quote prefix, quoted cell', () => {
    expect(csvTextCell('=1+1', ',')).toBe(`"'=1+1"`);
    expect(csvTextCell('+SUM(A1:A9)', ',')).toBe(`"'+SUM(A1:A9)"`);
    expect(csvTextCell('-2+3', ',')).toBe(`"'-2+3"`);
    expect(csvTextCell('@cmd', '\t')).toBe(`"'@cmd"`);
    expect(csvTextCell('\t=x', '\t')).toBe(`"'\t=x"`);
    expect(csvTextCell('\r=x', ',')).toBe(`"'\r=x"`);
    expect(csvTextCell('=HYPERLINK("http://x","y")', ',')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvTextCell('RFQ: HNZ6 = 5', ',')).toBe('RFQ: HNZ6 = 5');
    expect(csvTextCell('a,b', ',')).toBe('"a,b"');
  });

  it('decides by column: a number such as -0.50 is never altered, the same text in a text column is', () => {
    const rows: Row[] = [{ a: '-0.50', text: '-0.50', flag: true }];
    expect(csvTable(FORM, rows)).toBe(`a,text,flag\n-0.50,"'-0.50",1\n`);
    // JSON carries the text as it is: only spreadsheets run formulas
    expect(JSON.parse(jsonArray(FORM, rows, 'null'))).toEqual([{ a: '-0.50', text: '-0.50', flag: true }]);
  });
});
