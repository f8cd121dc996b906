import { describe, expect, it } from 'vitest';
import { stubReader } from '../../test/stub-reader.js';
import type { EndOfDayRow } from '../store/store.js';
import {
  exampleValuesOf,
  exampleValuesSource,
  fillExample,
  fillExamples,
  placeholdersOf,
} from './examples.js';

function endOfDay(code: string, volume: number, openInterest: number | null): EndOfDayRow {
  return {
    code,
    date: '20261120',
    bidSize: null,
    bidCents: null,
    askSize: null,
    askCents: null,
    firstCents: null,
    highCents: null,
    lowCents: null,
    settleCents: null,
    volume,
    openInterest,
    impliedVolatility: null,
  };
}

describe('example placeholders', () => {
  it('are found and filled; an example with a placeholder the store cannot fill is left out', () => {
    expect(placeholdersOf('futures={futures:HNM}&date={pastDay}')).toEqual(['futures:HNM', 'pastDay']);
    expect(
      fillExample('futures={futures:HNM}&date={pastDay}', { 'futures:HNM': 'HNM2027', pastDay: '1' }),
    ).toBe('futures=HNM2027&date=1');
    expect(fillExample('date={pastDay}', {})).toBeUndefined();
    expect(fillExamples({ a: 'type=x', b: 'futures={futures:HNM}', c: '' }, {})).toEqual({
      a: 'type=x',
      c: '',
    });
  });
});

describe('example values of a store', () => {
  const dates = ['20261118', '20261119', '20261120', '20261123'];
  const reader = stubReader({
    latestDate: () => '20261123',
    dates: () => dates,
    endOfDay: ({ selection }) =>
      selection.instrument === 'future'
        ? [endOfDay('HNM2027', 3, 10), endOfDay('HNM2028', 9, 5), endOfDay('HNM2029', 9, 1)]
        : [
            endOfDay('BNH20270010000C', 0, 40),
            endOfDay('BNH20280010000C', 0, 50),
            endOfDay('BNH20280011000P', 0, null),
          ],
    contracts: () => [],
  });

  it('names its latest day, the held days before it, the most traded future and the options year with most interest', async () => {
    expect(await exampleValuesOf(reader, ['pastDay', 'futures:HNM', 'options:BNH'])).toEqual({
      latestDay: '20261123',
      pastDay: '20261120',
      earlierDay: '20261119',
      'futures:HNM': 'HNM2028',
      'options:BNH': 'BNH2028',
    });
  });

  it('leaves out what the store does not list, and is undefined for an empty or failing store', async () => {
    const bare = stubReader({
      latestDate: () => '20261123',
      dates: () => ['20261123'],
      endOfDay: () => [],
      contracts: () => [],
    });
    expect(await exampleValuesOf(bare, ['futures:HNM', 'options:EAH'])).toEqual({
      latestDay: '20261123',
      pastDay: '20261123',
      earlierDay: '20261123',
    });
    expect(await exampleValuesOf(stubReader({ latestDate: () => undefined }), ['pastDay'])).toBeUndefined();
    const failing = exampleValuesSource(stubReader({}), ['pastDay']);
    expect(await failing()).toBeUndefined();
  });

  it('reads the store again only when its latest day moves', async () => {
    let latest = '20261120';
    let reads = 0;
    const source = exampleValuesSource(
      stubReader({
        latestDate: () => latest,
        dates: () => {
          reads++;
          return dates.filter((date) => date <= latest);
        },
      }),
      ['pastDay'],
    );
    expect((await source())?.pastDay).toBe('20261119');
    expect((await source())?.pastDay).toBe('20261119');
    expect(reads).toBe(1);
    latest = '20261123';
    expect((await source())?.pastDay).toBe('20261120');
    expect(reads).toBe(2);
  });
});
