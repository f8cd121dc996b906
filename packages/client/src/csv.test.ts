import { describe, expect, it } from 'vitest';
import { parseCsv } from './csv.js';

describe('parseCsv', () => {
  it('reads quoted cells, doubled quotes, line breaks inside quotes and another delimiter', () => {
    expect(parseCsv('a,b\n"x,1","say ""hi"""\n"two\nlines",\n')).toEqual([
      ['a', 'b'],
      ['x,1', 'say "hi"'],
      ['two\nlines', ''],
    ]);
    expect(parseCsv('time\tmessage\n10:00:00\tRFQ: HNZ6, size 5\n', '\t')).toEqual([
      ['time', 'message'],
      ['10:00:00', 'RFQ: HNZ6, size 5'],
    ]);
  });

  it('keeps an empty line as an empty row (the datamine sections)', () => {
    expect(parseCsv('volume\nstate,nsw\n\nmwh\n')).toEqual([['volume'], ['state', 'nsw'], [''], ['mwh']]);
  });

  it('accepts \\r\\n line ends and a missing last line end by default', () => {
    expect(parseCsv('a,b\r\n1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('strict: reads the API form alike and refuses \\r line ends and a missing last line end', () => {
    const text = 'a,b\n"x\r\ny",2\n';
    expect(parseCsv(text, ',', { strict: true })).toEqual(parseCsv(text));
    expect(parseCsv(text, ',', { strict: true })[1]).toEqual(['x\r\ny', '2']);
    expect(() => parseCsv('a,b\r\n1,2\r\n', ',', { strict: true })).toThrow(/\\r outside quotes/);
    expect(() => parseCsv('a,b\n1,2', ',', { strict: true })).toThrow(/does not end with a line end/);
    expect(parseCsv('', ',', { strict: true })).toEqual([]);
  });
});
