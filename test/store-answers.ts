import type { Selection } from '../src/domain/codes.js';
import { MARKET_CODES, type MarketCode } from '../src/domain/markets.js';

/** A reader whose methods answer now or later (the synchronous and asynchronous contracts). */
type AnyReader = {
  [K in string]: (...args: never[]) => unknown;
};

/**
 * Every MarketReader answer over the given dates, for every market, instrument, code prefix
 * (market, initial, exact) and option type, ticker type and window: two stores holding the
 * same events must give equal values here, and equal JSON of them. Day revisions are left out:
 * they are event ids, which depend on the arrival order.
 */
export async function everyAnswer(reader: object, dates: readonly string[]): Promise<unknown[]> {
  const r = reader as AnyReader;
  const call = async (method: string, ...args: unknown[]) =>
    JSON.stringify(await (r[method] as (...a: unknown[]) => unknown)(...args), mapReplacer);
  const out: unknown[] = [];
  out.push(await call('version'), await call('dates'), await call('latestDate'));
  for (const market of MARKET_CODES) {
    out.push(await call('dates', { market }), await call('latestDate', { market }));
    for (const publication of ['settlement', 'open_interest']) {
      out.push(await call('publishedDates', { market, publication }));
    }
  }
  for (const index of ['epi', 'npi'] as const) {
    out.push(await call('dates', { index }), await call('latestDate', { index }));
  }
  const selections: Selection[] = [];
  for (const market of MARKET_CODES) {
    for (const instrument of ['future', 'option'] as const) {
      const base: Selection = { market, instrument };
      selections.push(base);
      const contracts = (await (r.contracts as (s: Selection) => unknown)(base)) as { code: string }[];
      out.push(JSON.stringify(contracts));
      for (const { code } of contracts.slice(0, 4)) {
        selections.push({ ...base, prefix: code.slice(0, 1) }, { ...base, prefix: code.slice(0, 3) });
        selections.push({ ...base, prefix: code });
      }
      if (instrument === 'option')
        selections.push({ ...base, optionType: 'C' }, { ...base, optionType: 'P' });
    }
  }
  for (const date of dates) {
    for (const selection of selections) {
      for (const type of [undefined, 'book', 'trade', 'settle'] as const) {
        out.push(await call('ticker', { date, selection, type, from: '000000', to: '235959' }));
      }
      out.push(await call('ticker', { date, selection, from: '110000', to: '143000' }));
      out.push(await call('tradeLog', { date, selection }), await call('trades', { date, selection }));
      out.push(await call('trades', { date, selection, from: '130000' }));
      out.push(await call('endOfDay', { date, selection }), await call('intraday', { date, selection }));
      out.push(await call('contracts', selection));
    }
    for (const market of MARKET_CODES as readonly MarketCode[]) {
      out.push(await call('tradeLog', { date, selection: { market } }));
      out.push(await call('trades', { date, selection: { market }, from: '120000' }));
      out.push(await call('lastUpdate', { date, market }));
      for (const board of ['message_board', 'registered_trades'] as const) {
        out.push(await call('messages', { date, market, board }));
        out.push(await call('messages', { date, market, board, from: '120000' }));
      }
      out.push(await call('customMarkets', { date, market }));
    }
    for (const index of ['epi', 'npi'] as const) out.push(await call('indexValues', { index, date }));
    out.push(await call('datamineOpenInterest', { market: 'au_electricity', date }));
  }
  const first = dates[0] ?? '20250101';
  const last = dates.at(-1) ?? '20250101';
  for (const market of ['au_electricity', 'nz_electricity'] as const) {
    out.push(await call('datamineVolume', { market, from: first, to: last }));
    out.push(await call('datamineVolume', { market, from: last, to: last }));
  }
  return out;
}

function mapReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`;
  return value instanceof Map ? [...value.entries()] : value;
}
