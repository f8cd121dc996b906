import { describe, expect, it } from 'vitest';
import { QueryError } from '../query/errors.js';
import {
  dateParam,
  enumParam,
  futuresParam,
  type OperationSpec,
  parseQueryString,
  readParams,
  timeParam,
} from './params.js';

const PARAMS = {
  futures: futuresParam,
  type: enumParam(['a', 'b'] as const),
  date: dateParam,
  from: timeParam,
  to: timeParam,
};
const SPEC: OperationSpec<typeof PARAMS> = {
  params: PARAMS,
  required: ['futures'],
  disregard: { when: 'date', names: ['from', 'to'] },
};

function issues(url: string, access: 'historical' | 'end_of_day' = 'historical') {
  try {
    readParams(SPEC, url, access);
  } catch (error) {
    if (error instanceof QueryError) return error.issues;
    throw error;
  }
  return [];
}

describe('query string parsing', () => {
  it('decodes names and values, keeps repeats and reports bad encodings', () => {
    const { values, issues: problems } = parseQueryString('a=1&a=2&b=x%20y+z&c&&d=%ZZ&%E0=1');
    expect(values.get('a')).toEqual(['1', '2']);
    expect(values.get('b')).toEqual(['x y z']);
    expect(values.get('c')).toEqual(['']);
    expect(problems.map((issue) => issue.parameter)).toEqual(['d', '%E0']);
  });
});

describe('parameter rules', () => {
  it('reads valid parameters into typed values', () => {
    const read = readParams(SPEC, '/x?futures=BNH&type=a&from=100000', 'historical');
    expect(read.values.type).toBe('a');
    expect(read.values.from).toBe('100000');
    expect(read.values.futures?.parsed.ok).toBe(true);
    expect(read.ignored).toEqual([]);
    expect(read.format).toBeUndefined();
  });

  it('names unknown parameters with a hint, and repeated ones', () => {
    const found = issues('/x?futures=BNH&dat=20250228&type=a&type=b');
    expect(found).toEqual([
      { parameter: 'dat', message: expect.stringContaining('did you mean date?') },
      { parameter: 'type', message: 'sent 2 times; send it once' },
    ]);
  });

  it('reports every bad parameter at once', () => {
    const found = issues('/x?type=c&date=20251131&format=xml');
    expect(found.map((issue) => issue.parameter).sort()).toEqual(['date', 'format', 'futures', 'type']);
  });

  it('reports the first 20 bad parameters of a query holding hundreds, and says how many more', () => {
    const query = Array.from({ length: 300 }, (_, index) => `p${index}=1`).join('&');
    let refusal: QueryError | undefined;
    try {
      readParams(SPEC, `/x?futures=BNH&${query}`, 'historical');
    } catch (error) {
      refusal = error as QueryError;
    }
    expect(refusal?.issues).toHaveLength(20);
    expect(refusal?.issues[0]).toMatchObject({ parameter: 'p0' });
    expect(refusal?.detail).toMatch(/^invalid parameters: p0, p1, .*, p19 and 280 more$/);
  });

  it('says a sent but unreadable value once, not also that the parameter is missing', () => {
    expect(issues('/x?futures=%ZZ')).toEqual([
      { parameter: 'futures', message: 'malformed percent-encoding in the value' },
    ]);
    const exclusive: OperationSpec<typeof PARAMS> = { params: PARAMS, exactlyOne: [['futures', 'type']] };
    expect(() => readParams(exclusive, '/x?type=%E0%A4%A', 'historical')).toThrow(
      expect.objectContaining({
        issues: [{ parameter: 'type', message: 'malformed percent-encoding in the value' }],
      }),
    );
    // Still missing when it was not sent at all.
    expect(issues('/x?type=%ZZ').map((issue) => issue.parameter)).toEqual(['type', 'futures']);
  });

  it('takes format=csv|json', () => {
    expect(readParams(SPEC, '/x?futures=BNH&format=csv', 'historical').format).toBe('csv');
  });

  it('ignores date-like parameters under end_of_day without validating them', () => {
    const read = readParams(SPEC, '/x?futures=BNH&date=garbage&from=100000', 'end_of_day');
    expect(read.ignored).toEqual(['date']);
    expect(read.values.date).toBeUndefined();
    expect(read.values.from).toBe('100000');
  });

  it('disregards from and to when date is honoured', () => {
    const read = readParams(SPEC, '/x?futures=BNH&date=20250228&from=bad', 'historical');
    expect(read.ignored).toEqual(['from']);
    expect(read.values.date).toBe('20250228');
  });

  it('rejects real-calendar violations and out-of-range times', () => {
    expect(issues('/x?futures=BNH&date=20250229').map((i) => i.parameter)).toEqual(['date']);
    expect(issues('/x?futures=BNH&from=240000').map((i) => i.parameter)).toEqual(['from']);
    expect(issues('/x?futures=BNH&from=1000').map((i) => i.parameter)).toEqual(['from']);
    expect(issues('/x?futures=')).toHaveLength(1);
  });
});
