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
    mwhTenths: 0,
    faceValueMillis: 0,
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
      latestDate: () => '20250228',
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
          mwhTenths: 5,
          faceValueMillis: 500,
          volume: 2,
          count: 2,
        }),
        // A quarter: 1 QE, 0.4 MWh -> 0, $0.499 -> 0.
        group({
          productClass: 'baseQuarterFutures',
          qeThirds: 3,
          mwhTenths: 4,
          faceValueMillis: 499,
          volume: 1,
          count: 1,
        }),
        group({
          productClass: 'calOptions',
          qeThirds: 12,
          mwhTenths: 15,
          faceValueMillis: 1500,
          volume: 1,
          count: 1,
          block: true,
        }),
        group({ productClass: 'averageOptions', volume: 25, count: 1, efp: true, block: true }),
      ]),
      { type: 'au-volume' },
    );
    expect(cells(result, 'quarterlyEquivalentVolume')).toMatchObject({
      baseMonthFutures: 1,
      baseQuarterFutures: 1,
      totalFutures: 2,
      calOptions: 4,
      totalOptions: 4,
      total: 6,
      block: 4,
    });
    expect(cells(result, 'mwh')).toMatchObject({
      baseMonthFutures: 1,
      baseQuarterFutures: 0,
      totalFutures: 1,
      calOptions: 2,
      total: 3,
    });
    expect(cells(result, 'faceValue')).toMatchObject({
      baseMonthFutures: 1,
      baseQuarterFutures: 0,
      calOptions: 2,
      total: 3,
      block: 2,
    });
    expect(cells(result, 'volume')).toMatchObject({ total: 29, block: 26, efp: 25, averageOptions: 25 });
    expect(cells(result, 'count')).toMatchObject({ total: 5, block: 2, efp: 1 });
    // Every region appears, in spec order, even without trades.
    expect(result.measures[0]?.regions.map((row) => row.region)).toEqual(['nsw', 'vic', 'qld', 'sa']);
    expect(cells(result, 'volume', 'sa')).toMatchObject({ total: 0, block: 0, efp: 0 });
  });

  it('leaves out classes and regions the table does not show', async () => {
    const result = await queryDatamine(
      context([
        group({ region: 'wallumbilla', volume: 9 }),
        group({ productClass: 'calFutures', volume: 7 }),
      ]),
      { type: 'au-volume' },
    );
    expect(cells(result, 'volume')?.total).toBe(0);
  });

  it("defaults to the market's latest date and the 365 days before it", async () => {
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
});
