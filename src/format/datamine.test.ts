import { describe, expect, it } from 'vitest';
import type { DatamineResult } from '../query/datamine.js';
import { datamineCsv, datamineJson } from './datamine.js';

const NZ_LAYOUT = {
  futuresClasses: ['baseMonthFutures', 'baseQuarterFutures', 'peakQuarterFutures', 'calFutures'],
  optionClasses: ['averageOptions', 'calOptions'],
  volume: true,
};

const cells = {
  baseMonthFutures: 1n,
  baseQuarterFutures: 2n,
  peakQuarterFutures: 3n,
  calFutures: 4n,
  averageOptions: 5n,
  calOptions: 6n,
  block: 7n,
  efp: 8n,
  totalFutures: 10n,
  totalOptions: 11n,
  total: 21n,
};

const ANSWER: DatamineResult = {
  kind: 'volume',
  layout: NZ_LAYOUT,
  from: '20240301',
  to: '20250228',
  tradingDays: 2,
  measures: [
    {
      name: 'volume',
      regions: [
        { region: 'otahuhu', cells },
        { region: 'benmore', cells },
      ],
    },
    {
      name: 'count',
      regions: [
        { region: 'otahuhu', cells },
        { region: 'benmore', cells },
      ],
    },
  ],
};

describe('datamine writer', () => {
  it('writes JSON fields in the order of docs/api.md (GET /api/datamine)', () => {
    const text = datamineJson(ANSWER);
    expect(Object.keys(JSON.parse(text))).toEqual(['from', 'to', 'tradingDays', 'data']);
    const otahuhu = JSON.parse(text).data.volume.otahuhu;
    expect(Object.keys(otahuhu)).toEqual([
      'baseMonthFutures',
      'baseQuarterFutures',
      'peakQuarterFutures',
      'calFutures',
      'averageOptions',
      'calOptions',
      'block',
      'efp',
      'totalFutures',
      'totalOptions',
      'total',
      'average',
    ]);
    expect(otahuhu.average).toBe('10.50');
    expect(JSON.parse(text).tradingDays).toBe(2);
  });

  it('writes CSV sections in the column order of docs/api.md (GET /api/datamine), separated by a blank line', () => {
    const header =
      'state,baseMonthFutures,baseQuarterFutures,peakQuarterFutures,calFutures,totalFutures,averageOptions,calOptions,totalOptions,total,average,block,efp';
    const row = '1,2,3,4,10,5,6,11,21,10.50,7,8';
    expect(datamineCsv(ANSWER)).toBe(
      `volume\n${header}\notahuhu,${row}\nbenmore,${row}\n\ncount\n${header}\notahuhu,${row}\nbenmore,${row}\n`,
    );
  });

  it('shows an average of "0.00" over no trading days', () => {
    const json = JSON.parse(datamineJson({ ...ANSWER, tradingDays: 0 }));
    expect(json.data.volume.benmore.average).toBe('0.00');
  });
});
