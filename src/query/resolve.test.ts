import { describe, expect, it } from 'vitest';
import { stubReader } from '../../test/stub-reader.js';
import { QueryError } from './errors.js';
import { currentDay, requireDate } from './resolve.js';

const reader = stubReader({
  dates: () => ['20250224', '20250225', '20250226', '20250227', '20250228', '20250303'],
  latestDate: () => undefined,
});

async function nearest(date: string): Promise<string | undefined> {
  try {
    await requireDate(reader, { market: 'au_gas' }, date);
  } catch (error) {
    if (error instanceof QueryError) {
      expect(error.code).toBe('no-data');
      return error.extensions.nearestDate;
    }
    throw error;
  }
  return 'found';
}

describe('date availability', () => {
  it('accepts a date holding data', async () => {
    expect(await nearest('20250226')).toBe('found');
  });

  it('names the nearest available date, the earlier one on a tie', async () => {
    expect(await nearest('20250301')).toBe('20250228');
    expect(await nearest('20250302')).toBe('20250303');
    expect(await nearest('20250101')).toBe('20250224');
    expect(await nearest('20251231')).toBe('20250303');
  });

  it('says when the store holds nothing', async () => {
    await expect(currentDay(reader)).rejects.toThrow('the exchange has no data yet');
    const empty = stubReader({ dates: () => [] });
    await expect(requireDate(empty, { index: 'epi' }, '20250101')).rejects.toThrow(
      'the epi index has no data yet',
    );
  });
});
