import { beforeAll, describe, expect, it } from 'vitest';
import { lastTradingDays } from '../src/domain/calendar.js';
import type { Selection } from '../src/domain/codes.js';
import { type Contract, futuresCode, parseContractCode } from '../src/domain/contract.js';
import { datamineClass, quarterlyEquivalentThirds } from '../src/domain/datamine.js';
import { deliveryHours } from '../src/domain/hours.js';
import { isElectricity, MARKET_CODES, type MarketCode, OPTION_MARKETS } from '../src/domain/markets.js';
import type { FeedEvent, TradeEvent } from '../src/feed/events.js';
import { parseFeedLine } from '../src/feed/ndjson.js';
import { simulateHistory } from '../src/feed/simulator/simulator.js';
import { ingestEvents } from '../src/ingest/ingest-events.js';
import { ingestLines } from '../src/ingest/ingest-lines.js';
import type { MarketReader, MarketStore } from '../src/store/store.js';
import { collect } from '../src/store/store-contract.js';
import { openTestStore } from './fixtures.js';

/**
 * Invariants over seeded histories: the views derived at ingest agree with each other and with
 * an independent recomputation from the event stream and the domain. Several seeds and end
 * dates (one run spans New Year's Day), a few trading days each.
 */

const HISTORIES = [
  { seed: 1, until: '20250221', days: 3 },
  { seed: 7, until: '20250630', days: 2 },
  { seed: 42, until: '20260105', days: 3 },
];

const WHOLE_DAY = { from: '000000', to: '235959' };

interface Seeded {
  readonly store: MarketStore;
  readonly dates: readonly string[];
  /** The stored stream, read back from the export: what the views must agree with. */
  readonly events: readonly FeedEvent[];
}

async function seed(history: (typeof HISTORIES)[number]): Promise<Seeded> {
  const store = await openTestStore();
  const dates = lastTradingDays(history.days, history.until);
  for (const { events } of simulateHistory({ seed: history.seed }, dates)) {
    await ingestEvents(store.writer, events);
  }
  const events = (await collect(store.events.lines())).map((line, index) => {
    const parsed = parseFeedLine(line, index + 1);
    if (!parsed.ok) throw new Error(`stored line does not parse: ${line}`);
    return parsed.event;
  });
  return { store, dates, events };
}

function contract(code: string): Contract {
  const parsed = parseContractCode(code);
  if (!parsed) throw new Error(`unknown code in the views: ${code}`);
  return parsed;
}

function selections(market: MarketCode): Selection[] {
  const futures: Selection = { instrument: 'future', market };
  return OPTION_MARKETS.includes(market) ? [futures, { instrument: 'option', market }] : [futures];
}

function cents(text: string): number {
  return Math.round(Number(text) * 100);
}

function sumBy<T>(
  items: readonly T[],
  key: (item: T) => string,
  value: (item: T) => number,
): Map<string, number> {
  const sums = new Map<string, number>();
  for (const item of items) sums.set(key(item), (sums.get(key(item)) ?? 0) + value(item));
  return sums;
}

describe.each(HISTORIES)('invariants of seed $seed until $until', (history) => {
  let seeded: Seeded;
  let reader: MarketReader;
  const tradesOf = (date: string) =>
    seeded.events.filter((event): event is TradeEvent => event.type === 'trade' && event.date === date);

  beforeAll(async () => {
    seeded = await seed(history);
    reader = seeded.store.reader;
    return () => seeded.store.close();
  });

  it('holds data for every seeded day, with trades in the electricity markets', async () => {
    expect(await reader.dates()).toEqual(seeded.dates);
    for (const date of seeded.dates) {
      expect(
        (await reader.tradeLog({ date, selection: { market: 'au_electricity' } })).length,
      ).toBeGreaterThan(0);
    }
  });

  it('agrees on volume: trade log = end of day = the day’s trade events, per contract', async () => {
    for (const date of seeded.dates) {
      const fromEvents = sumBy(
        tradesOf(date),
        (trade) => trade.code,
        (trade) => trade.volume,
      );
      const fromLog = new Map<string, number>();
      const fromEod = new Map<string, number>();
      for (const market of MARKET_CODES) {
        for (const row of await reader.tradeLog({ date, selection: { market } })) {
          fromLog.set(row.code, (fromLog.get(row.code) ?? 0) + row.volume);
        }
        for (const selection of selections(market)) {
          for (const row of await reader.endOfDay({ date, selection })) {
            if (row.volume > 0) fromEod.set(row.code, row.volume);
          }
        }
      }
      expect(fromLog).toEqual(fromEvents);
      expect(fromEod).toEqual(fromEvents);
      // newest-first intraday trades hold the same rows as the time-ordered log
      const log = await reader.tradeLog({ date, selection: { market: 'au_electricity' } });
      expect(await reader.trades({ date, selection: { market: 'au_electricity' } })).toEqual(
        [...log].reverse(),
      );
    }
  });

  it('computes hours and face value as volume x price x hours x MW', async () => {
    for (const date of seeded.dates) {
      for (const market of MARKET_CODES) {
        for (const row of await reader.tradeLog({ date, selection: { market } })) {
          const parsed = contract(row.code);
          if (!isElectricity(market)) {
            expect([row.hours, row.faceValueMillis, row.mwhTenths]).toEqual([null, null, null]);
            continue;
          }
          const hours = deliveryHours(parsed);
          const mw = parsed.product.mwTenths;
          expect(row.hours).toBe(hours);
          expect(row.faceValueMillis).toBe(row.volume * row.priceCents * hours * mw);
          expect(row.mwhTenths).toBe(row.volume * hours * mw);
        }
      }
    }
  });

  it('sets first, high, low and last from on-screen trades only, in order', async () => {
    for (const date of seeded.dates) {
      const onScreen = tradesOf(date).filter((trade) => trade.trade_type === 'N' && !trade.block);
      const byCode = new Map<string, TradeEvent[]>();
      for (const trade of onScreen) byCode.set(trade.code, [...(byCode.get(trade.code) ?? []), trade]);
      for (const market of MARKET_CODES) {
        for (const selection of selections(market)) {
          const intraday = new Map(
            (await reader.intraday({ date, selection })).map((row) => [row.code, row]),
          );
          for (const row of await reader.endOfDay({ date, selection })) {
            const trades = byCode.get(row.code) ?? [];
            const last = intraday.get(row.code)?.lastCents ?? null;
            if (trades.length === 0) {
              expect([row.firstCents, row.highCents, row.lowCents, last]).toEqual([null, null, null, null]);
              continue;
            }
            const prices = trades.map((trade) => cents(trade.price));
            expect(row.firstCents).toBe(prices[0]);
            expect(last).toBe(prices.at(-1));
            expect(row.highCents).toBe(Math.max(...prices));
            expect(row.lowCents).toBe(Math.min(...prices));
            const { firstCents, highCents, lowCents } = row;
            if (firstCents === null || highCents === null || lowCents === null || last === null) {
              throw new Error(`${row.code}: prices missing`);
            }
            expect(lowCents <= last && last <= highCents).toBe(true);
            expect(lowCents <= firstCents && firstCents <= highCents).toBe(true);
          }
        }
      }
    }
  });

  it("settles each strip at the hours-weighted mean of its quarters' settles, within a cent", async () => {
    let checked = 0;
    for (const date of seeded.dates) {
      for (const market of ['au_electricity', 'nz_electricity'] as const) {
        const rows = await reader.endOfDay({ date, selection: { instrument: 'future', market } });
        const settles = new Map(rows.map((row) => [row.code, row.settleCents]));
        for (const row of rows) {
          const strip = contract(row.code);
          if (strip.kind !== 'future' || strip.product.period !== 'year' || row.settleCents === null)
            continue;
          const quarterRoot =
            market === 'au_electricity'
              ? `B${strip.product.root[1]}`
              : { EB: 'EA', EF: 'EE' }[strip.product.root];
          if (quarterRoot === undefined) continue;
          const quarters = [9, 6, 3, 0].map((back) => {
            const index = strip.year * 12 + strip.month - 1 - back;
            const code = futuresCode(quarterRoot, (index % 12) + 1, Math.floor(index / 12));
            return { code, hours: deliveryHours(contract(code)), settle: settles.get(code) };
          });
          if (quarters.some((quarter) => quarter.settle === undefined || quarter.settle === null)) continue;
          const hours = quarters.reduce((sum, quarter) => sum + quarter.hours, 0);
          const weighted =
            quarters.reduce((sum, quarter) => sum + (quarter.settle ?? 0) * quarter.hours, 0) / hours;
          expect(Math.abs(row.settleCents - weighted), row.code).toBeLessThanOrEqual(1);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('sums datamine volume per region from its classes, matching a recomputation from the trade log', async () => {
    const first = seeded.dates[0] ?? '';
    const last = seeded.dates.at(-1) ?? '';
    for (const market of ['au_electricity', 'nz_electricity'] as const) {
      const { tradingDays, groups } = await reader.datamineVolume({ market, from: first, to: last });
      expect(tradingDays).toBe(seeded.dates.length);
      // every measure as a bigint: MWh and face value are bigints (the feed's limits allow sums past 2^53)
      const expected = new Map<string, bigint[]>();
      for (const date of seeded.dates) {
        for (const row of await reader.tradeLog({ date, selection: { market } })) {
          const parsed = contract(row.code);
          const productClass = datamineClass(parsed);
          if (productClass === undefined) continue;
          const key = `${parsed.product.region}|${productClass}|${row.block}|${row.tradeType === 'E'}`;
          const sums = expected.get(key) ?? [0n, 0n, 0n, 0n, 0n];
          const add = [
            row.volume,
            row.volume * quarterlyEquivalentThirds(parsed),
            row.mwhTenths ?? 0,
            row.faceValueMillis ?? 0,
            1,
          ].map(BigInt);
          expected.set(
            key,
            sums.map((value, index) => value + (add[index] ?? 0n)),
          );
        }
      }
      const actual = new Map(
        groups.map((group) => [
          `${group.region}|${group.productClass}|${group.block}|${group.efp}`,
          [group.volume, group.qeThirds, group.mwhTenths, group.faceValueMillis, group.count].map(BigInt),
        ]),
      );
      expect(actual).toEqual(expected);
      // a region's volume is the sum of its classes' volumes, and equals its trades' volume
      const perRegion = sumBy(
        groups,
        (group) => group.region,
        (group) => group.volume,
      );
      const perRegionFromLog = new Map<string, number>();
      for (const date of seeded.dates) {
        for (const row of await reader.tradeLog({ date, selection: { market } })) {
          const parsed = contract(row.code);
          if (datamineClass(parsed) === undefined) continue;
          const region = parsed.product.region;
          perRegionFromLog.set(region, (perRegionFromLog.get(region) ?? 0) + row.volume);
        }
      }
      expect(perRegion).toEqual(perRegionFromLog);
    }
  });

  it('never holds negative open interest, and datamine open interest sums the contracts', async () => {
    for (const date of seeded.dates) {
      let total = 0;
      for (const market of MARKET_CODES) {
        for (const selection of selections(market)) {
          for (const row of await reader.endOfDay({ date, selection })) {
            // every seeded day has closed: each contract's open interest is published, 0 included
            const openInterest = row.openInterest ?? Number.NaN;
            expect(openInterest).toBeGreaterThanOrEqual(0);
            if (market === 'au_electricity' && datamineClass(contract(row.code)) !== undefined) {
              total += openInterest;
            }
          }
          for (const row of await reader.intraday({ date, selection })) {
            expect(row.openInterest ?? 0).toBeGreaterThanOrEqual(0);
          }
        }
      }
      const groups = await reader.datamineOpenInterest({ market: 'au_electricity', date });
      expect(groups.reduce((sum, group) => sum + group.openInterest, 0)).toBe(total);
    }
  });

  it('rebuilds identical views from its own export (seed -> export -> ingest)', async () => {
    const copy = await openTestStore();
    try {
      const lines = await collect(seeded.store.events.lines());
      // the NDJSON path a file takes, in groups as a stream would deliver them
      async function* groups() {
        for (let start = 0; start < lines.length; start += 1000) yield lines.slice(start, start + 1000);
      }
      await ingestLines(copy.writer, groups(), { chunkSize: 4096 });
      expect(await collect(copy.events.lines())).toEqual(lines);
      expect(await views(copy.reader, seeded.dates)).toEqual(await views(reader, seeded.dates));
    } finally {
      await copy.close();
    }
  });
});

/** Every view of every date and market, for comparing two stores. */
async function views(reader: MarketReader, dates: readonly string[]) {
  const each = <T, R>(items: readonly T[], read: (item: T) => Promise<R>) => Promise.all(items.map(read));
  const first = dates[0] ?? '';
  const last = dates.at(-1) ?? '';
  return {
    dates: await reader.dates(),
    version: await reader.version(),
    datamine: await each(['au_electricity', 'nz_electricity'] as const, (market) =>
      reader.datamineVolume({ market, from: first, to: last }),
    ),
    days: await each(dates, async (date) => ({
      oi: await reader.datamineOpenInterest({ market: 'au_electricity', date }),
      index: [
        await reader.indexValues({ index: 'epi', date }),
        await reader.indexValues({ index: 'npi', date }),
      ],
      markets: await each(MARKET_CODES, async (market) => ({
        contracts: await each(selections(market), (selection) => reader.contracts(selection)),
        eod: await each(selections(market), (selection) => reader.endOfDay({ date, selection })),
        intraday: await each(selections(market), (selection) => reader.intraday({ date, selection })),
        ticker: await each(selections(market), (selection) =>
          reader.ticker({ date, selection, ...WHOLE_DAY }),
        ),
        log: await reader.tradeLog({ date, selection: { market } }),
        board: await reader.messages({ date, market, board: 'message_board' }),
        registered: await reader.messages({ date, market, board: 'registered_trades' }),
        custom: await reader.customMarkets({ date, market }),
        lastUpdate: await reader.lastUpdate({ date, market }),
      })),
    })),
  };
}
