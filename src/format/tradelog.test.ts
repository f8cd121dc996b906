import { describe, expect, it } from 'vitest';
import type { TradeRow } from '../store/store.js';
import { tradeLogCsv, tradeLogJson } from './tradelog.js';

/**
 * The published AU electricity rows of docs/market-rules.md (reference rows: 19 Feb 2025, a strip and its
 * legs).
 */
function row(code: string, tradeType: 'N' | 'Z', priceCents: number, hours: number): TradeRow {
  const volume = 2;
  return {
    date: '20250219',
    time: '101500',
    code,
    instrument: 'future',
    tradeType,
    block: false,
    volume,
    priceCents,
    hours,
    // cents x MW tenths = millis.
    faceValueMillis: volume * priceCents * hours * 10,
    mwhTenths: volume * hours * 10,
  };
}

const ROWS = [
  row('HNM2026', 'N', 12185, 8760),
  row('BNU2025', 'Z', 12282, 2208),
  row('BNZ2025', 'Z', 10956, 2208),
  row('BNH2026', 'Z', 12633, 2160),
];

describe('trade log writer', () => {
  it('reproduces the published face values, F suffixes and HH:mm:ss times', () => {
    const csv = tradeLogCsv({
      date: '20250219',
      electricity: true,
      summary: { trades: 4, volume: 8, mwhTenths: 0, faceValueCents: 0n },
      rows: ROWS,
    });
    expect(csv).toBe(
      'date,time,code,trade_type,volume,price,hours,face_value\n' +
        '20250219,10:15:00,HNM2026F,N,2,121.85,8760,2134812.00\n' +
        '20250219,10:15:00,BNU2025F,Z,2,122.82,2208,542373.12\n' +
        '20250219,10:15:00,BNZ2025F,Z,2,109.56,2208,483816.96\n' +
        '20250219,10:15:00,BNH2026F,Z,2,126.33,2160,545745.60\n',
    );
  });

  it('writes the summary as strings and omits hours and face value outside electricity', () => {
    const json = JSON.parse(
      tradeLogJson({
        date: '20250228',
        electricity: false,
        summary: { trades: 1, volume: 5, mwhTenths: 0, faceValueCents: 0n },
        rows: [
          {
            ...row('GZJ2025', 'N', 1450, 0),
            tradeType: 'B',
            block: true,
            volume: 5,
            hours: null,
            faceValueMillis: null,
            mwhTenths: null,
          },
        ],
      }),
    );
    expect(json).toEqual({
      date: '20250228',
      summary: { trades: '1', volume: '5', traded_mwh: '0', face_value: '0.00' },
      data: [
        {
          date: '20250219',
          time: '10:15:00',
          code: 'GZJ2025F',
          trade_type: 'B',
          volume: '5',
          price: '14.50',
        },
      ],
    });
  });

  it('rounds traded MWh half up to whole MWh', () => {
    const json = JSON.parse(
      tradeLogJson({
        date: 'd',
        electricity: true,
        summary: { trades: 0, volume: 0, mwhTenths: 25, faceValueCents: 5n },
        rows: [],
      }),
    );
    expect(json.summary).toEqual({ trades: '0', volume: '0', traded_mwh: '3', face_value: '0.05' });
  });
});
