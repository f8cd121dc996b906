import { describe, expect, it } from 'vitest';
import { stubReader } from '../../test/stub-reader.js';
import type { VolumeGroup } from '../store/store.js';
import type { QueryContext } from './context.js';
import { queryDatamine } from './datamine.js';
import { QueryError } from './errors.js';

function group(partial: Partial<VolumeGroup>): VolumeGroup {
  return {
    region: 'nsw',
    productClass: 'baseMonthFutures',
    block: false,
    efp: false,
    volume: 0,
    qeThirds: 0,
    mwhTenths: 0n,
    faceValueMillis: 0n,
    count: 0,
    ...partial,
  };
}

function context(groups: VolumeGroup[], tradingDays = 3): QueryContext & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    access: 'historical',
    clock: () => new Date(),
    reader: stubReader({
      // 20250303 is still trading: the default range ends at the latest closed day
      latestDate: () => '20250303',
      dates: () => ['20250227', '20250228', '20250303'],
      publishedDates: ({ publication }) =>
        publication === 'settlement' ? ['20250227', '20250228'] : ['20250227'],
      datamineVolume: (query) => {
        calls.push(query);
        return { tradingDays, groups };
      },
    }),
  };
}

function cells(result: Awaited<ReturnType<typeof queryDatamine>>, measure: string, region = 'nsw') {
  return result.measures.find((table) => table.name === measure)?.regions.find((row) => row.region === region)
    ?.cells;
}

describe('datamine tables', () => {
  it('rounds each cell on its own, half up, and totals the displayed cells', async () => {
    const result = await queryDatamine(
      context([
        // 1 + 1 month lots = 2/3 QE -> 1; 0.5 MWh -> 1; $0.5 -> 1.
        group({
          productClass: 'baseMonthFutures',
          qeThirds: 2,
          mwhTenths: 5n,
          faceValueMillis: 500n,
          volume: 2,
          count: 2,
        }),
        // A quarter: 1 QE, 0.4 MWh -> 0, $0.499 -> 0.
        group({
          productClass: 'baseQuarterFutures',
          qeThirds: 3,
          mwhTenths: 4n,
          faceValueMillis: 499n,
          volume: 1,
          count: 1,
        }),
        group({
          productClass: 'calOptions',
          qeThirds: 12,
          mwhTenths: 15n,
          faceValueMillis: 1500n,
          volume: 1,
          count: 1,
          block: true,
        }),
        group({ productClass: 'averageOptions', volume: 25, count: 1, efp: true, block: true }),
      ]),
      { type: 'au-volume' },
    );
    expect(cells(result, 'quarterlyEquivalentVolume')).toMatchObject({
      baseMonthFutures: 1n,
      baseQuarterFutures: 1n,
      totalFutures: 2n,
      calOptions: 4n,
      totalOptions: 4n,
      total: 6n,
      block: 4n,
    });
    expect(cells(result, 'mwh')).toMatchObject({
      baseMonthFutures: 1n,
      baseQuarterFutures: 0n,
      totalFutures: 1n,
      calOptions: 2n,
      total: 3n,
    });
    expect(cells(result, 'faceValue')).toMatchObject({
      baseMonthFutures: 1n,
      baseQuarterFutures: 0n,
      calOptions: 2n,
      total: 3n,
      block: 2n,
    });
    expect(cells(result, 'volume')).toMatchObject({ total: 29n, block: 26n, efp: 25n, averageOptions: 25n });
    expect(cells(result, 'count')).toMatchObject({ total: 5n, block: 2n, efp: 1n });
    // Every region appears, in spec order, even without trades.
    expect(result.measures[0]?.regions.map((row) => row.region)).toEqual(['nsw', 'vic', 'qld', 'sa']);
    expect(cells(result, 'volume', 'sa')).toMatchObject({ total: 0n, block: 0n, efp: 0n });
  });

  it('leaves out classes and regions the table does not show', async () => {
    const result = await queryDatamine(
      context([
        group({ region: 'wallumbilla', volume: 9 }),
        group({ productClass: 'calFutures', volume: 7 }),
      ]),
      { type: 'au-volume' },
    );
    expect(cells(result, 'volume')?.total).toBe(0n);
  });

  it("defaults to the market's latest closed day and the 365 days before it", async () => {
    const ctx = context([]);
    const result = await queryDatamine(ctx, { type: 'nz-volume' });
    expect(ctx.calls).toEqual([{ market: 'nz_electricity', from: '20240229', to: '20250228' }]);
    expect(result).toMatchObject({ kind: 'volume', from: '20240229', to: '20250228' });
  });

  it('refuses a from more than 366 days before the default to', async () => {
    await expect(queryDatamine(context([]), { type: 'au-volume', from: '20240227' })).rejects.toThrow(
      QueryError,
    );
    expect(await queryDatamine(context([]), { type: 'au-volume', from: '20240228' })).toMatchObject({
      from: '20240228',
    });
  });

  it.each([
    ['wholly after the latest day', { from: '20250304', to: '20250310' }, 'from', '20250303'],
    ['wholly before the history', { from: '20250101', to: '20250226' }, 'to', '20250227'],
  ])(
    'refuses a volume range %s with no-data naming the nearest date, not a table of zeros',
    async (_name, range, parameter, nearest) => {
      const ctx = context([]);
      const refusal = await queryDatamine(ctx, { type: 'au-volume', ...range }).catch(
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(QueryError);
      expect(refusal).toMatchObject({ code: 'no-data', extensions: { nearestDate: nearest } });
      expect((refusal as QueryError).issues[0]?.parameter).toBe(parameter);
      expect(ctx.calls).toEqual([]);
    },
  );

  it('answers a range that reaches into the history, or lies inside it without a trading day', async () => {
    for (const range of [
      { from: '20250301', to: '20250302' },
      { from: '20250101', to: '20250227' },
      { from: '20250303', to: '20250310' },
    ]) {
      expect(await queryDatamine(context([]), { type: 'au-volume', ...range })).toMatchObject(range);
    }
  });

  it('takes open interest of the latest day whose open interest is published, and refuses a later one', async () => {
    const ctx = context([]);
    const openInterest: unknown[] = [];
    const reader = stubReader({
      publishedDates: ({ publication }) =>
        publication === 'settlement' ? ['20250227', '20250228'] : ['20250227'],
      // 20250228 has traded and settled, but its open interest is not out yet
      dates: () => ['20250227', '20250228'],
      datamineOpenInterest: (query) => {
        openInterest.push(query);
        return [];
      },
    });
    expect(await queryDatamine({ ...ctx, reader }, { type: 'au-oi' })).toMatchObject({ date: '20250227' });
    expect(openInterest).toEqual([{ market: 'au_electricity', date: '20250227' }]);
    let refused: unknown;
    try {
      await queryDatamine({ ...ctx, reader }, { type: 'au-oi', date: '20250228' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(QueryError);
    expect(refused).toMatchObject({
      code: 'no-data',
      extensions: { nearestDate: '20250227' },
      message: expect.stringContaining('open interest of au_electricity for 20250228 is not published yet'),
    });
    expect(openInterest).toHaveLength(1);
  });
});
