import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Selection } from '../domain/codes.js';
import type { MarketCode } from '../domain/markets.js';
import { EventConflictError } from './event-conflict-error.js';
import type { AppendNotice, ClosePublication, MarketStore, ValidatedEvent } from './store.js';
import {
  book,
  customMarket,
  indexValue,
  message,
  openInterest,
  settle,
  trade,
} from './store-contract-events.js';

/**
 * The store contract: what every adapter (sqlite/ now, postgres/ later) must do, written only
 * against store.ts (every method asynchronous). An adapter's test file calls describeMarketStore
 * with a function opening a fresh, empty store.
 */

const D1 = '20250219';
const D2 = '20250220';
const D3 = '20250221';

const AU_FUTURES: Selection = { instrument: 'future', market: 'au_electricity' };
const AU_OPTIONS: Selection = { instrument: 'option', market: 'au_electricity' };
const BNH_FUTURES: Selection = { ...AU_FUTURES, prefix: 'BNH' };
const WHOLE_DAY = { from: '000000', to: '235959' };

/**
 * A trading day with every event type; the strip and its legs are the reference rows of docs/market-
 * rules.md.
 */
export function dayOne(): ValidatedEvent[] {
  return [
    book(D1, 1, '100000', 'BNH2026', [12400, 1], [12450, 2]),
    trade(D1, 2, '101500', 'HNM2026', 12185, 2, { group: 'g1' }),
    trade(D1, 3, '101500', 'BNU2025', 12282, 2, { tradeType: 'Z', group: 'g1' }),
    trade(D1, 4, '101500', 'BNZ2025', 10956, 2, { tradeType: 'Z', group: 'g1' }),
    trade(D1, 5, '101500', 'BNH2026', 12633, 2, { tradeType: 'Z', group: 'g1' }),
    trade(D1, 6, '103000', 'BNH2026', 12501, 3),
    book(D1, 7, '103000', 'BNH2026', [12500, 3], [12550, 1]),
    trade(D1, 8, '110000', 'BNH2026', 12600, 5),
    trade(D1, 9, '113000', 'BNH2026', 13000, 30, { tradeType: 'B', block: true }),
    trade(D1, 10, '120000', 'BNH2026', 12400, 4),
    trade(D1, 11, '121000', 'BNH2026', 11000, 2, { tradeType: 'E' }),
    book(D1, 12, '150000', 'BNH2026', [12400, 1], null),
    trade(D1, 13, '140000', 'BNH20260012000C', 550, 10),
    trade(D1, 14, '140500', 'BNH20260012000P', 300, 5),
    trade(D1, 15, '141000', 'EAH2026', 15000, 3),
    trade(D1, 16, '142000', 'GZJ2025', 1450, 5, { tradeType: 'B', block: true }),
    message(D1, 17, '100500', 'au_electricity', 'message_board', 'RFQ: HNZ6'),
    message(D1, 18, '101000', 'au_electricity', 'message_board', 'RFQ: BNH6'),
    message(D1, 19, '113000', 'au_electricity', 'registered_trades', 'Block BNH2026 30 @ 130.00'),
    customMarket(D1, 20, '120500', 'au_electricity', 'BNH2026-BNM2026', 500, 10, [
      [12600, 100],
      [12100, -100],
    ]),
    settle(D1, 21, 'BNH2026', 12400),
    settle(D1, 22, 'BNH20260012000C', 560, 2228),
    settle(D1, 23, 'HNM2026', 12185),
    openInterest(D1, 24, 'BNH2026', 1000),
    openInterest(D1, 25, 'BNH20260012000C', 50),
    indexValue(D1, 26, 'epi', 2027, 11000),
    indexValue(D1, 27, 'epi', 2026, 11500),
  ];
}

export function dayTwo(): ValidatedEvent[] {
  return [
    book(D2, 1, '100100', 'BNH2026', [12300, 2], [12350, 4]),
    trade(D2, 2, '101000', 'BNH2026', 12320, 1),
    settle(D2, 3, 'BNH2026', 12330),
    settle(D2, 4, 'BNH20260012000C', 540, 2100),
    openInterest(D2, 5, 'BNH2026', 1044),
    openInterest(D2, 6, 'BNH20260012000C', 60),
    message(D2, 7, '120000', 'au_electricity', 'message_board', 'RFQ: BQU6'),
  ];
}

export function dayThree(): ValidatedEvent[] {
  return [book(D3, 1, '100000', 'BNH2026', [12330, 1], [12340, 1])];
}

/**
 * The suite over one adapter: `open` gives a fresh, empty store for each test (closed after it);
 * `openPair`, where a location can be opened twice (not an in-memory store), two stores of one
 * fresh location, as two processes would have them; `cleanup` runs once after the whole suite
 * (dropping a schema, removing files).
 */
export function describeMarketStore(
  name: string,
  open: () => MarketStore | Promise<MarketStore>,
  options: {
    readonly openPair?: () => Promise<readonly [MarketStore, MarketStore]>;
    readonly cleanup?: () => void | Promise<void>;
  } = {},
): void {
  describe(`market store contract: ${name}`, () => {
    afterAll(async () => {
      await options.cleanup?.();
    });

    let store: MarketStore;

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      await store.close();
    });

    const exported = () => collect(store.events.lines());

    describe('writing', () => {
      it('starts empty', async () => {
        expect(await store.reader.version()).toBe(0);
        expect(await store.reader.dates()).toEqual([]);
        expect(await store.reader.latestDate()).toBeUndefined();
        expect(await exported()).toEqual([]);
      });

      it('appends a batch, and the version counts the stored events', async () => {
        const events = dayOne();
        expect(await store.writer.append(events)).toEqual({ added: events.length, skipped: 0 });
        expect(await store.reader.version()).toBe(events.length);
        expect(await store.writer.append(dayTwo())).toEqual({ added: 7, skipped: 0 });
        expect(await store.reader.version()).toBe(events.length + 7);
      });

      it('adds nothing when a batch is replayed', async () => {
        await store.writer.append(dayOne());
        const before = await exported();
        const version = await store.reader.version();
        expect(await store.writer.append(dayOne())).toEqual({ added: 0, skipped: dayOne().length });
        expect(await store.reader.version()).toBe(version);
        expect(await exported()).toEqual(before);
        expect((await store.reader.endOfDay({ date: D1, selection: BNH_FUTURES }))[0]?.volume).toBe(46);
      });

      it('refuses a conflicting event and stores nothing of its batch', async () => {
        await store.writer.append(dayOne());
        const before = await exported();
        const fresh = trade(D1, 99, '150500', 'BNH2026', 12400, 1);
        const changed = trade(D1, 6, '103000', 'BNH2026', 12502, 3);
        let caught: unknown;
        try {
          await store.writer.append([fresh, changed]);
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(EventConflictError);
        expect(caught).toMatchObject({ index: 1, date: D1, seq: 6 });
        expect(await exported()).toEqual(before);
        expect((await store.reader.endOfDay({ date: D1, selection: BNH_FUTURES }))[0]?.volume).toBe(46);
        // the store stays usable after a refusal
        expect(await store.writer.append([fresh])).toEqual({ added: 1, skipped: 0 });
      });

      it('treats duplicates inside one batch like replays', async () => {
        const event = trade(D1, 1, '100000', 'BNH2026', 12400, 1);
        expect(await store.writer.append([event, event])).toEqual({ added: 1, skipped: 1 });
        const other = trade(D1, 1, '100000', 'BNH2026', 12401, 1);
        await expect(store.writer.append([other])).rejects.toThrow(EventConflictError);
      });

      it('recognises replays and conflicts across sparse seq numbers', async () => {
        const events = [
          trade(D1, 1, '100000', 'BNH2026', 12400, 1),
          trade(D1, 5_000_000, '100001', 'BNH2026', 12401, 1),
          trade(D2, 7, '100000', 'BNH2026', 12402, 1),
        ];
        expect(await store.writer.append(events)).toEqual({ added: 3, skipped: 0 });
        expect(await store.writer.append([...events].reverse())).toEqual({ added: 0, skipped: 3 });
        const changed = trade(D1, 5_000_000, '100001', 'BNH2026', 12403, 1);
        await expect(store.writer.append([events[0] as ValidatedEvent, changed])).rejects.toThrow(
          EventConflictError,
        );
        expect(await store.reader.version()).toBe(3);
      });

      it('exports the stream by date then seq, whatever the arrival order', async () => {
        await store.writer.append([...dayTwo()].reverse());
        await store.writer.append(dayOne());
        const lines = await exported();
        const expected = [...dayOne(), ...dayTwo()].map((event) => event.line);
        expect(lines).toEqual(expected);
        expect(await collect(store.events.lines({ date: D2 }))).toEqual(dayTwo().map((event) => event.line));
      });

      it('pages one date after a seq, in seq order, whatever the arrival order', async () => {
        await store.writer.append([...dayTwo()].reverse());
        await store.writer.append(dayOne());
        const two = dayTwo().map((event) => ({ seq: event.seq, line: event.line }));
        expect(await store.events.after({ date: D2, seq: 0, limit: 1_000 })).toEqual(two);
        const first = two[0]?.seq ?? 0;
        expect(await store.events.after({ date: D2, seq: first, limit: 2 })).toEqual(two.slice(1, 3));
        const last = two.at(-1)?.seq ?? 0;
        expect(await store.events.after({ date: D2, seq: last, limit: 10 })).toEqual([]);
        expect(await store.events.after({ date: '20991231', seq: 0, limit: 10 })).toEqual([]);
      });

      it('derives the same views in any arrival order', async () => {
        await store.writer.append([...dayOne()].reverse());
        await store.writer.append([...dayTwo()].reverse());
        const other = await open();
        try {
          await other.writer.append(dayOne());
          await other.writer.append(dayTwo());
          expect(await snapshot(other)).toEqual(await snapshot(store));
        } finally {
          await other.close();
        }
      });

      it('lists every settle in the ticker and the latest in the views, whatever the arrival order', async () => {
        // corrections: a later seq supersedes, whatever its time
        const corrections = [
          settle(D1, 30, 'BNH2026', 12410, null, '161500'),
          settle(D1, 31, 'BNH2026', 12420, null, '155900'),
          settle(D1, 32, 'BNH20260012000C', 565, 2230, '160100'),
        ];
        const events = [...dayOne(), ...corrections, ...dayTwo()];
        const settles = async (s: MarketStore, selection: Selection) =>
          (await s.reader.ticker({ date: D1, selection, type: 'settle', ...WHOLE_DAY })).map(
            (row) => `${row.time}:${row.code}:${row.settleCents}:${row.impliedVolatility}`,
          );
        await store.writer.append(events);
        expect(await settles(store, AU_FUTURES)).toEqual([
          '161500:BNH2026:12410:null',
          '160000:HNM2026:12185:null',
          '160000:BNH2026:12400:null',
          '155900:BNH2026:12420:null',
        ]);
        expect(await settles(store, { ...AU_OPTIONS, prefix: 'BNH2026' })).toEqual([
          '160100:BNH20260012000C:565:2230',
          '160000:BNH20260012000C:560:2228',
        ]);
        const window = await store.reader.ticker({
          date: D1,
          selection: AU_FUTURES,
          from: '155900',
          to: '160000',
        });
        expect(window.map((row) => `${row.time}:${row.type}:${row.code}`)).toEqual([
          '160000:settle:HNM2026',
          '160000:settle:BNH2026',
          '155900:settle:BNH2026',
        ]);
        expect((await store.reader.endOfDay({ date: D1, selection: BNH_FUTURES }))[0]?.settleCents).toBe(
          12420,
        );
        expect((await store.reader.endOfDay({ date: D1, selection: AU_OPTIONS }))[0]).toMatchObject({
          settleCents: 565,
          impliedVolatility: 2230,
        });
        const arrivals: ((s: MarketStore) => Promise<unknown>)[] = [
          (s) => s.writer.append([...events].reverse()),
          async (s) => {
            for (const event of [...events].reverse()) await s.writer.append([event]);
          },
          async (s) => {
            const batch = await s.writer.begin();
            for (const event of events) await batch.append([event]);
            await batch.commit();
          },
        ];
        for (const arrive of arrivals) {
          const other = await open();
          try {
            await arrive(other);
            expect(await snapshot(other)).toEqual(await snapshot(store));
            expect(await settles(other, AU_OPTIONS)).toEqual(await settles(store, AU_OPTIONS));
          } finally {
            await other.close();
          }
        }
      });

      it('commits a multi-append batch at once, or rolls all of it back', async () => {
        const batch = await store.writer.begin();
        await batch.append(dayOne());
        await batch.append(dayTwo());
        await batch.rollback();
        expect(await store.reader.version()).toBe(0);
        expect(await exported()).toEqual([]);

        const second = await store.writer.begin();
        await second.append(dayOne());
        await second.append(dayOne());
        expect(await second.commit()).toEqual({ added: dayOne().length, skipped: dayOne().length });
        expect(await exported()).toHaveLength(dayOne().length);
        expect((await store.reader.endOfDay({ date: D1, selection: BNH_FUTURES }))[0]?.volume).toBe(46);
      });

      it('keeps a batch usable after a refused append inside it', async () => {
        const batch = await store.writer.begin();
        await batch.append(dayOne());
        await expect(
          batch.append([trade(D1, 99, '150500', 'BNH2026', 1, 1), trade(D1, 6, '103000', 'BNH2026', 1, 1)]),
        ).rejects.toThrow(EventConflictError);
        await batch.append(dayTwo());
        expect(await batch.commit()).toEqual({ added: dayOne().length + 7, skipped: 0 });
        const other = await open();
        try {
          await other.writer.append([...dayOne(), ...dayTwo()]);
          expect(await snapshot(store)).toEqual(await snapshot(other));
        } finally {
          await other.close();
        }
      });

      it('knows the stored events of a date a batch meets only after its first append', async () => {
        await store.writer.append(dayTwo());
        const batch = await store.writer.begin();
        await batch.append(dayOne());
        await expect(batch.append([trade(D2, 2, '101000', 'BNH2026', 12321, 1)])).rejects.toThrow(
          EventConflictError,
        );
        expect(await batch.append([...dayTwo(), trade(D2, 8, '130000', 'BNH2026', 12340, 2)])).toEqual({
          added: 1,
          skipped: dayTwo().length,
        });
        expect(await batch.commit()).toEqual({ added: dayOne().length + 1, skipped: dayTwo().length });
        expect(await store.reader.version()).toBe(dayTwo().length + dayOne().length + 1);
      });

      it('notifies listeners after each commit that added events', async () => {
        const notices: AppendNotice[] = [];
        const stop = store.onAppend((notice) => notices.push(notice));
        await store.writer.append(dayOne());
        await store.writer.append(dayOne());
        const batch = await store.writer.begin();
        await batch.append(dayTwo());
        await batch.append(dayThree());
        expect(notices).toHaveLength(1);
        await batch.commit();
        stop();
        await store.writer.append([trade(D3, 2, '110000', 'BNH2026', 12335, 1)]);
        expect(notices).toEqual([
          { version: 27, added: 27, dates: [D1], revisions: new Map([[D1, 27]]) },
          {
            version: 35,
            added: 8,
            dates: [D2, D3],
            revisions: new Map([
              [D2, 34],
              [D3, 35],
            ]),
          },
        ]);
      });

      it('gives each day a revision, its highest event id, which a late event for the day raises', async () => {
        expect(await store.reader.dayRevisions()).toEqual(new Map());
        await store.writer.append(dayOne());
        await store.writer.append([...dayTwo(), ...dayThree()]);
        const revisions = new Map([
          [D1, 27],
          [D2, 34],
          [D3, 35],
        ]);
        expect(await store.reader.dayRevisions()).toEqual(revisions);
        expect(await store.reader.dayRevisions(35)).toEqual(new Map());
        const notices: AppendNotice[] = [];
        const stop = store.onAppend((notice) => notices.push(notice));
        await store.writer.append(dayTwo());
        await store.writer.append([trade(D1, 99, '150500', 'BNH2026', 12400, 1)]);
        stop();
        expect(notices).toEqual([{ version: 36, added: 1, dates: [D1], revisions: new Map([[D1, 36]]) }]);
        expect(await store.reader.dayRevisions(35)).toEqual(new Map([[D1, 36]]));
        expect(await store.reader.dayRevisions()).toEqual(new Map([...revisions, [D1, 36]]));
      });
    });

    describe('reading', () => {
      beforeEach(async () => {
        await store.writer.append(dayOne());
        await store.writer.append(dayTwo());
        await store.writer.append(dayThree());
      });

      it('lists dates per market, per index and overall', async () => {
        expect(await store.reader.dates()).toEqual([D1, D2, D3]);
        expect(await store.reader.dates({ market: 'au_gas' })).toEqual([D1]);
        expect(await store.reader.dates({ market: 'au_environmental' })).toEqual([]);
        expect(await store.reader.dates({ index: 'epi' })).toEqual([D1]);
        expect(await store.reader.latestDate()).toBe(D3);
        expect(await store.reader.latestDate({ market: 'nz_electricity' })).toBe(D1);
        expect(await store.reader.latestDate({ index: 'npi' })).toBeUndefined();
      });

      it('lists the contracts seen, by code, with prefix and option type', async () => {
        expect((await store.reader.contracts({ ...AU_FUTURES, prefix: 'BN' })).map((c) => c.code)).toEqual([
          'BNH2026',
          'BNU2025',
          'BNZ2025',
        ]);
        expect(await store.reader.contracts(AU_OPTIONS)).toEqual([
          { code: 'BNH20260012000C', instrument: 'option', market: 'au_electricity', optionType: 'C' },
          { code: 'BNH20260012000P', instrument: 'option', market: 'au_electricity', optionType: 'P' },
        ]);
        expect(await store.reader.contracts({ ...AU_OPTIONS, optionType: 'P' })).toHaveLength(1);
        expect(await store.reader.contracts({ instrument: 'future', market: 'au_gas' })).toEqual([
          { code: 'GZJ2025', instrument: 'future', market: 'au_gas' },
        ]);
      });

      it('serves the ticker newest first, with type, window and code filters', async () => {
        const all = await store.reader.ticker({ date: D1, selection: AU_FUTURES, ...WHOLE_DAY });
        expect(all.map((row) => `${row.time}:${row.type}:${row.code}`)).toEqual([
          '160000:settle:HNM2026',
          '160000:settle:BNH2026',
          '150000:book:BNH2026',
          '121000:trade:BNH2026',
          '120000:trade:BNH2026',
          '113000:trade:BNH2026',
          '110000:trade:BNH2026',
          '103000:book:BNH2026',
          '103000:trade:BNH2026',
          '101500:trade:BNH2026',
          '101500:trade:BNZ2025',
          '101500:trade:BNU2025',
          '101500:trade:HNM2026',
          '100000:book:BNH2026',
        ]);
        expect(all[2]).toEqual({
          date: D1,
          time: '150000',
          code: 'BNH2026',
          type: 'book',
          bidCents: 12400,
          bidSize: 1,
          askCents: null,
          askSize: null,
          priceCents: null,
          volume: null,
          settleCents: null,
          publishedAt: null,
          impliedVolatility: null,
        });
        const window = await store.reader.ticker({
          date: D1,
          selection: AU_FUTURES,
          type: 'trade',
          from: '101500',
          to: '110000',
        });
        expect(window.map((row) => row.priceCents)).toEqual([12600, 12501, 12633, 10956, 12282, 12185]);
        const exact = await store.reader.ticker({
          date: D1,
          selection: { ...AU_FUTURES, prefix: 'BNH2026' },
          ...WHOLE_DAY,
        });
        expect(new Set(exact.map((row) => row.code))).toEqual(new Set(['BNH2026']));
        expect(exact).toHaveLength(10);
        const calls = await store.reader.ticker({
          date: D1,
          selection: { ...AU_OPTIONS, optionType: 'C' },
          ...WHOLE_DAY,
        });
        expect(
          calls.map((row) => [row.type, row.priceCents ?? row.settleCents, row.impliedVolatility]),
        ).toEqual([
          ['settle', 560, 2228],
          ['trade', 550, null],
        ]);
        expect(await store.reader.ticker({ date: D3, selection: AU_OPTIONS, ...WHOLE_DAY })).toEqual([]);
      });

      it('keeps the trade log in time order with hours, face value and MWh', async () => {
        const log = await store.reader.tradeLog({ date: D1, selection: { market: 'au_electricity' } });
        expect(log.map((row) => row.code)).toEqual([
          'HNM2026',
          'BNU2025',
          'BNZ2025',
          'BNH2026',
          'BNH2026',
          'BNH2026',
          'BNH2026',
          'BNH2026',
          'BNH2026',
          'BNH20260012000C',
          'BNH20260012000P',
        ]);
        // docs/market-rules.md, reference rows: the published rows of 19 Feb 2025
        expect(
          log.slice(0, 4).map((row) => [row.tradeType, row.hours, row.faceValueMillis, row.mwhTenths]),
        ).toEqual([
          ['N', 8760, 2_134_812_000, 175_200],
          ['Z', 2208, 542_373_120, 44_160],
          ['Z', 2208, 483_816_960, 44_160],
          ['Z', 2160, 545_745_600, 43_200],
        ]);
        expect(log[6]).toEqual({
          date: D1,
          time: '113000',
          code: 'BNH2026',
          instrument: 'future',
          tradeType: 'B',
          block: true,
          volume: 30,
          priceCents: 13000,
          hours: 2160,
          faceValueMillis: 30 * 13000 * 2160 * 10,
          mwhTenths: 30 * 2160 * 10,
        });
        const gas = await store.reader.tradeLog({ date: D1, selection: { market: 'au_gas' } });
        expect(gas).toEqual([
          {
            date: D1,
            time: '142000',
            code: 'GZJ2025',
            instrument: 'future',
            tradeType: 'B',
            block: true,
            volume: 5,
            priceCents: 1450,
            hours: null,
            faceValueMillis: null,
            mwhTenths: null,
          },
        ]);
        const nz = await store.reader.tradeLog({ date: D1, selection: { market: 'nz_electricity' } });
        expect(nz[0]).toMatchObject({
          code: 'EAH2026',
          hours: 2160,
          faceValueMillis: 3 * 15000 * 2160,
          mwhTenths: 6480,
        });
        const options = await store.reader.tradeLog({
          date: D1,
          selection: { ...AU_OPTIONS, prefix: 'BNH2026' },
        });
        expect(options.map((row) => row.code)).toEqual(['BNH20260012000C', 'BNH20260012000P']);
      });

      it('serves intraday trades newest first from a time on', async () => {
        const rows = await store.reader.trades({ date: D1, selection: BNH_FUTURES, from: '110000' });
        expect(rows.map((row) => row.priceCents)).toEqual([11000, 12400, 13000, 12600]);
        const market = await store.reader.trades({ date: D1, selection: { market: 'au_electricity' } });
        expect(market).toHaveLength(11);
        expect(market[0]?.code).toBe('BNH20260012000P');
        expect(await store.reader.trades({ date: D1, selection: AU_OPTIONS, from: '140001' })).toHaveLength(
          1,
        );
      });

      it('reports the time of the latest event of a market', async () => {
        expect(await store.reader.lastUpdate({ date: D1, market: 'au_electricity' })).toBe('160500');
        expect(await store.reader.lastUpdate({ date: D1, market: 'nz_electricity' })).toBe('141000');
        expect(await store.reader.lastUpdate({ date: D2, market: 'au_gas' })).toBeUndefined();
      });

      it('serves messages and custom markets newest first', async () => {
        const board = await store.reader.messages({
          date: D1,
          market: 'au_electricity',
          board: 'message_board',
        });
        expect(board).toEqual([
          { time: '101000', text: 'RFQ: BNH6' },
          { time: '100500', text: 'RFQ: HNZ6' },
        ]);
        expect(
          await store.reader.messages({
            date: D1,
            market: 'au_electricity',
            board: 'message_board',
            from: '101000',
          }),
        ).toEqual([{ time: '101000', text: 'RFQ: BNH6' }]);
        expect(
          await store.reader.messages({ date: D1, market: 'au_electricity', board: 'registered_trades' }),
        ).toEqual([{ time: '113000', text: 'Block BNH2026 30 @ 130.00' }]);
        expect(await store.reader.messages({ date: D1, market: 'au_gas', board: 'message_board' })).toEqual(
          [],
        );
        expect(await store.reader.customMarkets({ date: D1, market: 'au_electricity' })).toEqual([
          {
            time: '120500',
            contract: 'BNH2026-BNM2026',
            netCents: 500,
            size: 10,
            legs: [
              { priceCents: 12600, ratioHundredths: 100 },
              { priceCents: 12100, ratioHundredths: -100 },
            ],
          },
        ]);
        expect(
          await store.reader.customMarkets({ date: D1, market: 'au_electricity', from: '120501' }),
        ).toEqual([]);
      });

      it('summarises each contract at the end of the day, prices from on-screen trades only', async () => {
        const [bnh] = await store.reader.endOfDay({ date: D1, selection: BNH_FUTURES });
        expect(bnh).toEqual({
          code: 'BNH2026',
          date: D1,
          bidSize: 1,
          bidCents: 12400,
          askSize: null,
          askCents: null,
          firstCents: 12501,
          highCents: 12600,
          lowCents: 12400,
          settleCents: 12400,
          volume: 46,
          openInterest: 1000,
          impliedVolatility: null,
        });
        const futures = await store.reader.endOfDay({ date: D1, selection: AU_FUTURES });
        expect(futures.map((row) => row.code)).toEqual(['BNH2026', 'BNU2025', 'BNZ2025', 'HNM2026']);
        // strip legs count in volume but set no prices
        expect(futures[1]).toMatchObject({ volume: 2, firstCents: null, highCents: null, lowCents: null });
        // no open interest was published for HNM2026: unknown, not 0
        expect(futures[3]).toMatchObject({
          volume: 2,
          firstCents: 12185,
          settleCents: 12185,
          openInterest: null,
        });
        const options = await store.reader.endOfDay({ date: D1, selection: AU_OPTIONS });
        expect(
          options.map((row) => [row.code, row.optionType, row.impliedVolatility, row.openInterest]),
        ).toEqual([
          ['BNH20260012000C', 'C', 2228, 50],
          ['BNH20260012000P', 'P', null, null],
        ]);
        expect(
          await store.reader.endOfDay({ date: D1, selection: { ...AU_OPTIONS, optionType: 'P' } }),
        ).toHaveLength(1);
      });

      it('builds intraday rows from today and the previous dates', async () => {
        expect(await store.reader.intraday({ date: D3, selection: BNH_FUTURES })).toEqual([
          {
            code: 'BNH2026',
            bidSize: 1,
            bidCents: 12330,
            askSize: 1,
            askCents: 12340,
            highCents: null,
            lowCents: null,
            lastCents: null,
            volume: null,
            openInterest: 1044,
            openInterestChange: 44,
            settleCents: 12330,
            impliedVolatility: null,
          },
        ]);
        const options = await store.reader.intraday({ date: D3, selection: AU_OPTIONS });
        expect(options).toEqual([
          expect.objectContaining({
            code: 'BNH20260012000C',
            optionType: 'C',
            settleCents: 540,
            impliedVolatility: 2100,
            openInterest: 60,
            openInterestChange: 10,
          }),
        ]);
        const second = await store.reader.intraday({ date: D2, selection: AU_FUTURES });
        expect(second.map((row) => row.code)).toEqual(['BNH2026', 'BNU2025', 'BNZ2025', 'HNM2026']);
        expect(second[0]).toMatchObject({
          bidCents: 12300,
          lastCents: 12320,
          highCents: 12320,
          lowCents: 12320,
          volume: 1,
          settleCents: 12400,
          openInterest: 1000,
          openInterestChange: null,
        });
        expect(second[3]).toMatchObject({
          code: 'HNM2026',
          volume: null,
          settleCents: 12185,
          lastCents: null,
          openInterest: null,
          openInterestChange: null,
        });
        const first = await store.reader.intraday({ date: D1, selection: BNH_FUTURES });
        expect(first[0]).toMatchObject({
          lastCents: 12400,
          volume: 46,
          settleCents: null,
          openInterest: null,
        });
      });

      it('builds intraday rows from the previous closes as corrected by late events', async () => {
        const [before] = await store.reader.intraday({ date: D3, selection: BNH_FUTURES });
        expect(before).toMatchObject({ settleCents: 12330, openInterest: 1044, openInterestChange: 44 });
        // a corrected settle of the previous day, and a corrected open interest of the day before it
        await store.writer.append([settle(D2, 99, 'BNH2026', 12345), openInterest(D1, 99, 'BNH2026', 990)]);
        const [after] = await store.reader.intraday({ date: D3, selection: BNH_FUTURES });
        expect(after).toMatchObject({ settleCents: 12345, openInterest: 1044, openInterestChange: 54 });
      });

      it('lists the days whose settlement and whose open interest are published, per market', async () => {
        const published = (market: MarketCode, publication: ClosePublication) =>
          store.reader.publishedDates({ market, publication });
        // D3 is still trading: in dates(), not published
        expect(await published('au_electricity', 'settlement')).toEqual([D1, D2]);
        expect(await published('au_electricity', 'open_interest')).toEqual([D1, D2]);
        // a market that traded but never settled has nothing published
        expect(await published('au_gas', 'settlement')).toEqual([]);
        expect(await published('nz_electricity', 'open_interest')).toEqual([]);
        expect(await published('au_environmental', 'settlement')).toEqual([]);
        // the close comes in two publications: settlements first, open interest after
        await store.writer.append([settle(D3, 2, 'BNH2026', 12335)]);
        expect(await published('au_electricity', 'settlement')).toEqual([D1, D2, D3]);
        expect(await published('au_electricity', 'open_interest')).toEqual([D1, D2]);
        expect((await store.reader.endOfDay({ date: D3, selection: BNH_FUTURES }))[0]).toMatchObject({
          settleCents: 12335,
          openInterest: null,
        });
        await store.writer.append([openInterest(D3, 3, 'BNH2026', 1050)]);
        expect(await published('au_electricity', 'open_interest')).toEqual([D1, D2, D3]);
        expect(await published('au_gas', 'open_interest')).toEqual([]);
      });

      it('shows what a live day has not published as unknown, never as 0', async () => {
        // D3 until 11:00: a book, trades of a listed contract and of one new today; no close yet
        await store.writer.append([
          trade(D3, 2, '103000', 'BNH2026', 12350, 2),
          trade(D3, 3, '104500', 'BNM2026', 11800, 4),
          book(D3, 4, '110000', 'BNM2026', [11790, 1], null),
        ]);
        expect(await store.reader.endOfDay({ date: D3, selection: { ...AU_FUTURES, prefix: 'BN' } })).toEqual(
          [
            expect.objectContaining({
              code: 'BNH2026',
              volume: 2,
              lowCents: 12350,
              settleCents: null,
              openInterest: null,
            }),
            expect.objectContaining({ code: 'BNM2026', volume: 4, settleCents: null, openInterest: null }),
          ],
        );
        expect(await store.reader.datamineOpenInterest({ market: 'au_electricity', date: D3 })).toEqual([]);
        const intraday = await store.reader.intraday({
          date: D3,
          selection: { ...AU_FUTURES, prefix: 'BN' },
        });
        expect(intraday.map((row) => row.code)).toEqual(['BNH2026', 'BNM2026']);
        // the previous close (D2) where it was published; null for a contract new today
        expect(intraday[0]).toMatchObject({
          lastCents: 12350,
          volume: 2,
          settleCents: 12330,
          openInterest: 1044,
          openInterestChange: 44,
        });
        expect(intraday[1]).toMatchObject({
          lastCents: 11800,
          volume: 4,
          settleCents: null,
          openInterest: null,
          openInterestChange: null,
        });
      });

      it('serves index values by year', async () => {
        expect(await store.reader.indexValues({ index: 'epi', date: D1 })).toEqual([
          { date: D1, year: 2026, valueCents: 11500 },
          { date: D1, year: 2027, valueCents: 11000 },
        ]);
        expect(await store.reader.indexValues({ index: 'npi', date: D1 })).toEqual([]);
      });

      it('sums datamine volume per region, class, block and efp', async () => {
        const au = await store.reader.datamineVolume({ market: 'au_electricity', from: D1, to: D3 });
        expect(au.tradingDays).toBe(3);
        const bnhMwh = (3 + 5 + 4) * 2160 * 10;
        expect(au.groups).toEqual([
          {
            region: 'nsw',
            productClass: 'averageOptions',
            block: false,
            efp: false,
            volume: 15,
            qeThirds: 45,
            mwhTenths: BigInt(15 * 2160 * 10),
            faceValueMillis: BigInt(10 * 550 * 2160 * 10 + 5 * 300 * 2160 * 10),
            count: 2,
          },
          {
            region: 'nsw',
            productClass: 'baseQuarterFutures',
            block: false,
            efp: false,
            // the strip's legs and the quarter's own trades; the strip row itself is not counted
            volume: 2 + 2 + 2 + 3 + 5 + 4 + 1,
            qeThirds: 19 * 3,
            mwhTenths: BigInt(44_160 + 44_160 + 43_200 + bnhMwh + 2160 * 10),
            faceValueMillis: BigInt(
              542_373_120 +
                483_816_960 +
                545_745_600 +
                (3 * 12501 + 5 * 12600 + 4 * 12400 + 12320) * 2160 * 10,
            ),
            count: 7,
          },
          {
            region: 'nsw',
            productClass: 'baseQuarterFutures',
            block: false,
            efp: true,
            volume: 2,
            qeThirds: 6,
            mwhTenths: BigInt(2 * 2160 * 10),
            faceValueMillis: BigInt(2 * 11000 * 2160 * 10),
            count: 1,
          },
          {
            region: 'nsw',
            productClass: 'baseQuarterFutures',
            block: true,
            efp: false,
            volume: 30,
            qeThirds: 90,
            mwhTenths: BigInt(30 * 2160 * 10),
            faceValueMillis: BigInt(30 * 13000 * 2160 * 10),
            count: 1,
          },
        ]);
        const oneDay = await store.reader.datamineVolume({ market: 'au_electricity', from: D2, to: D2 });
        expect(oneDay.tradingDays).toBe(1);
        expect(oneDay.groups.map((group) => group.volume)).toEqual([1]);
        const nz = await store.reader.datamineVolume({ market: 'nz_electricity', from: D1, to: D3 });
        expect(nz).toEqual({
          tradingDays: 1,
          groups: [
            {
              region: 'otahuhu',
              productClass: 'baseQuarterFutures',
              block: false,
              efp: false,
              volume: 3,
              qeThirds: 9,
              mwhTenths: BigInt(6480),
              faceValueMillis: BigInt(3 * 15000 * 2160),
              count: 1,
            },
          ],
        });
      });

      it('sums open interest at the close of a date per region and class', async () => {
        expect(await store.reader.datamineOpenInterest({ market: 'au_electricity', date: D1 })).toEqual([
          {
            region: 'nsw',
            productClass: 'averageOptions',
            openInterest: 50,
            qeThirds: 150,
            mwhTenths: BigInt(50 * 2160 * 10),
            faceValueMillis: BigInt(50 * 560 * 2160 * 10),
          },
          {
            region: 'nsw',
            productClass: 'baseQuarterFutures',
            openInterest: 1000,
            qeThirds: 3000,
            mwhTenths: BigInt(1000 * 2160 * 10),
            faceValueMillis: BigInt(1000 * 12400 * 2160 * 10),
          },
        ]);
        expect(await store.reader.datamineOpenInterest({ market: 'au_electricity', date: D3 })).toEqual([]);
      });

      it("values open interest without the day's settlement at the contract's latest settlement before it", async () => {
        await store.writer.append([settle(D1, 28, 'BNZ2025', 11000)]);
        await store.writer.append([
          // settled on D2 and D1; on D3 only the option has a settlement
          openInterest(D3, 2, 'BNH2026', 1100),
          openInterest(D3, 3, 'BNZ2025', 5),
          // never settled: its lots and MWh count, its face value has no price to count at
          openInterest(D3, 4, 'BNU2025', 7),
          settle(D3, 5, 'BNH20260012000C', 600, 2000),
          openInterest(D3, 6, 'BNH20260012000C', 70),
        ]);
        expect(await store.reader.datamineOpenInterest({ market: 'au_electricity', date: D3 })).toEqual([
          {
            region: 'nsw',
            productClass: 'averageOptions',
            openInterest: 70,
            qeThirds: 210,
            mwhTenths: BigInt(70 * 2160 * 10),
            faceValueMillis: BigInt(70 * 600 * 2160 * 10),
          },
          {
            region: 'nsw',
            productClass: 'baseQuarterFutures',
            openInterest: 1100 + 5 + 7,
            qeThirds: (1100 + 5 + 7) * 3,
            mwhTenths: BigInt((1100 * 2160 + 5 * 2208 + 7 * 2208) * 10),
            faceValueMillis: BigInt((1100 * 12330 * 2160 + 5 * 11000 * 2208) * 10),
          },
        ]);
      });
    });

    describe('amounts at the feed limits', () => {
      // The largest trade and open interest the feed accepts (docs/feed-format.md, "Limits"):
      // 10,000 lots at 100,000.00, 1,000,000 lots of open interest. A day of 5,000 such trades
      // of one quarter passes 2^63 millis of face value, in two appends (so both the in-memory
      // sums and the stored rows carry it).
      const LOTS = 10_000;
      const CENTS = 10_000_000;
      const faceOfOne = BigInt(LOTS) * BigInt(CENTS) * 2208n * 10n;

      it('keeps datamine volume sums exact beyond 2^53 and 2^63', async () => {
        const trades = (first: number, count: number, cents: number) =>
          Array.from({ length: count }, (_, index) =>
            trade(D1, first + index, '110000', 'BNZ2028', cents, LOTS),
          );
        await store.writer.append(trades(1, 2500, CENTS));
        await store.writer.append([...trades(2501, 2500, CENTS), ...trades(5001, 10, -CENTS)]);
        await store.writer.append(trades(1, 1, CENTS)); // a replay adds nothing
        const { groups } = await store.reader.datamineVolume({ market: 'au_electricity', from: D1, to: D1 });
        const [group, ...others] = groups;
        expect(others).toEqual([]);
        expect(group).toMatchObject({
          volume: 5010 * LOTS,
          qeThirds: 5010 * LOTS * 3,
          mwhTenths: 5010n * BigInt(LOTS) * 2208n * 10n,
          faceValueMillis: 4990n * faceOfOne,
          count: 5010,
        });
        const log = await store.reader.tradeLog({ date: D1, selection: { market: 'au_electricity' } });
        expect(log).toHaveLength(5010);
        expect(log[0]?.faceValueMillis).toBe(Number(faceOfOne));
      });

      it('keeps datamine open interest sums exact beyond 2^53', async () => {
        const codes = ['BNH2026', 'BNM2026', 'BNU2026', 'BNZ2026'];
        await store.writer.append(
          codes.flatMap((code, index) => [
            settle(D1, 2 * index + 1, code, CENTS),
            openInterest(D1, 2 * index + 2, code, 1_000_000),
          ]),
        );
        const [group] = await store.reader.datamineOpenInterest({ market: 'au_electricity', date: D1 });
        const hours = 2160n + 2184n + 2208n + 2208n;
        expect(group).toEqual({
          region: 'nsw',
          productClass: 'baseQuarterFutures',
          openInterest: 4_000_000,
          qeThirds: 12_000_000,
          mwhTenths: 1_000_000n * hours * 10n,
          faceValueMillis: 1_000_000n * BigInt(CENTS) * hours * 10n,
        });
      });
    });

    describe('exchange claim', () => {
      it('is held by one claim at a time, and free again once released', async () => {
        const claim = await store.claimExchange();
        expect(claim).toBeDefined();
        expect(await store.claimExchange()).toBeUndefined();
        await claim?.release();
        await claim?.release(); // twice is harmless
        const again = await store.claimExchange();
        expect(again).toBeDefined();
        await again?.release();
      });

      // Only where a location opens twice: an in-memory store has no other store of it to refuse.
      const { openPair } = options;
      if (openPair !== undefined) {
        it('is held against every other store of the location until released or closed, and only there', async () => {
          const [first, second] = await openPair();
          let secondOpen = true;
          try {
            const claim = await first.claimExchange();
            expect(claim).toBeDefined();
            expect(await second.claimExchange()).toBeUndefined();
            // a store of another location has an exchange of its own
            const elsewhere = await store.claimExchange();
            expect(elsewhere).toBeDefined();
            await elsewhere?.release();
            await claim?.release();
            expect(await second.claimExchange()).toBeDefined();
            expect(await first.claimExchange()).toBeUndefined();
            // closing a store ends its claim (as the end of its process does)
            await second.close();
            secondOpen = false;
            expect(await first.claimExchange()).toBeDefined();
          } finally {
            if (secondOpen) await second.close();
            await first.close();
          }
        });
      }
    });

    describe('api keys', () => {
      const key = {
        id: 'gq_abc',
        name: 'research',
        level: 'historical' as const,
        secretHash: 'f'.repeat(64),
        createdAt: '2025-02-19T00:00:00.000Z',
        expiresOn: '20251231',
        revokedAt: null,
        perSecond: null,
        perMinute: 120,
      };

      it('stores, finds, lists and revokes keys', async () => {
        await store.keys.insertKey(key);
        await store.keys.insertKey({
          ...key,
          id: 'gq_def',
          level: 'end_of_day',
          createdAt: '2025-02-20T00:00:00.000Z',
        });
        expect(await store.keys.findKey('gq_abc')).toEqual(key);
        expect(await store.keys.findKey('gq_zzz')).toBeUndefined();
        expect((await store.keys.listKeys()).map((record) => record.id)).toEqual(['gq_abc', 'gq_def']);
        expect(await store.keys.revokeKey('gq_abc', '2025-03-01T00:00:00.000Z')).toBe(true);
        expect(await store.keys.revokeKey('gq_abc', '2025-04-01T00:00:00.000Z')).toBe(true);
        expect((await store.keys.findKey('gq_abc'))?.revokedAt).toBe('2025-03-01T00:00:00.000Z');
        expect(await store.keys.revokeKey('gq_zzz', '2025-03-01T00:00:00.000Z')).toBe(false);
        await expect(store.keys.insertKey(key)).rejects.toThrow();
      });

      it('answers a found key at once from memory, and a key revoked since as a new record', async () => {
        await store.keys.insertKey(key);
        expect(store.keys.rememberedKey).toBeTypeOf('function');
        expect(store.keys.rememberedKey?.('gq_zzz')).toBeUndefined();
        const found = await store.keys.findKey('gq_abc');
        const atOnce = store.keys.rememberedKey?.('gq_abc');
        expect(atOnce).not.toBeInstanceOf(Promise);
        expect(atOnce).toBe(found);

        await store.keys.revokeKey('gq_abc', '2025-03-01T00:00:00.000Z');
        expect(store.keys.rememberedKey?.('gq_abc')).not.toBe(found);
        const again = await store.keys.findKey('gq_abc');
        expect(again?.revokedAt).toBe('2025-03-01T00:00:00.000Z');
        expect(store.keys.rememberedKey?.('gq_abc')).toBe(again);
      });
    });
  });
}

/** Most answers about the three contract days, to compare two stores. */
export async function snapshot(store: MarketStore) {
  const { reader } = store;
  const days = [];
  for (const date of [D1, D2, D3]) {
    days.push({
      eod: [
        await reader.endOfDay({ date, selection: AU_FUTURES }),
        await reader.endOfDay({ date, selection: AU_OPTIONS }),
      ],
      intraday: [
        await reader.intraday({ date, selection: AU_FUTURES }),
        await reader.intraday({ date, selection: AU_OPTIONS }),
      ],
      ticker: await reader.ticker({ date, selection: AU_FUTURES, ...WHOLE_DAY }),
      log: await reader.tradeLog({ date, selection: { market: 'au_electricity' } }),
      messages: await reader.messages({ date, market: 'au_electricity', board: 'message_board' }),
      lastUpdate: await reader.lastUpdate({ date, market: 'au_electricity' }),
      index: await reader.indexValues({ index: 'epi', date }),
      oi: await reader.datamineOpenInterest({ market: 'au_electricity', date }),
      volume: await reader.datamineVolume({ market: 'au_electricity', from: date, to: date }),
    });
  }
  return days;
}

/** Every line of an event log, in its order. */
export async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const line of lines) all.push(line);
  return all;
}
