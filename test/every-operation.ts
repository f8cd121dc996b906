import { MARKET_CODES, OPTION_MARKETS } from '../src/domain/markets.js';
import type { MarketReader } from '../src/store/store.js';

/**
 * A request of every operation over the given dates: each market, each code form of futures
 * (market, initial, exact, with instrument letter) and options (down to the strike), several
 * dates, types and windows, the indexes and the data mine. Two servers over the same events
 * must answer each alike, in JSON and in CSV (FORMATS). `reader` names the listed contracts.
 */
export async function everyOperation(
  reader: Pick<MarketReader, 'contracts'>,
  dates: readonly string[],
): Promise<string[]> {
  const list: string[] = [];
  const dated = (path: string) => [path, ...dates.map((date) => `${path}&date=${date}`)];
  for (const market of MARKET_CODES) {
    const futures = await reader.contracts({ instrument: 'future', market });
    const codes = [
      market,
      ...futures.slice(0, 3).flatMap(({ code }) => [code.slice(0, 3), code, `${code}F`]),
    ];
    for (const code of codes) {
      for (const type of ['', '&type=book', '&type=trade', '&type=settle']) {
        list.push(...dated(`/api/ticker?futures=${code}${type}`));
      }
      list.push(`/api/ticker?futures=${code}&from=110000&to=143000`);
      list.push(...dated(`/api/tradelog?futures=${code}`), `/api/trades?futures=${code}`);
      list.push(`/api/trades?futures=${code}&from=130000`);
      list.push(...dated(`/api/data?futures=${code}`), `/api/intraday?futures=${code}`);
    }
    list.push(...dated(`/api/tradelog?market=${market}`), `/api/trades?market=${market}`);
    for (const type of ['message_board', 'registered_trades', 'custom_market']) {
      list.push(...dated(`/api/messages?market=${market}&type=${type}`));
    }
    if (!(OPTION_MARKETS as readonly string[]).includes(market)) continue;
    const options = await reader.contracts({ instrument: 'option', market });
    const optionCodes = [
      market,
      ...options
        .slice(0, 3)
        .flatMap(({ code }) => [
          code.slice(0, 3),
          code.slice(0, 7),
          `${code.slice(0, 7)}C`,
          code.slice(0, 14),
          code,
        ]),
    ];
    for (const code of optionCodes) {
      list.push(...dated(`/api/ticker?options=${code}`), ...dated(`/api/tradelog?options=${code}`));
      list.push(`/api/trades?options=${code}`, ...dated(`/api/data?options=${code}`));
      list.push(`/api/intraday?options=${code}`);
    }
  }
  for (const index of ['epi', 'npi']) list.push(`/api/${index}?`, ...dated(`/api/${index}?`).slice(1));
  const first = dates[0] ?? '';
  const last = dates.at(-1) ?? '';
  list.push('/api/datamine?type=au-volume', '/api/datamine?type=nz-volume', '/api/datamine?type=au-oi');
  list.push(
    `/api/datamine?type=au-volume&from=${first}&to=${last}`,
    `/api/datamine?type=au-oi&date=${first}`,
  );
  list.push(`/api/datamine?type=nz-volume&from=${last}&to=${last}`);
  return list;
}

/** Each request of everyOperation is asked in both. */
export const FORMATS = ['', '&format=csv'] as const;
