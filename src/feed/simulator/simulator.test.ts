import { beforeAll, describe, expect, it } from 'vitest';
import { isTradingDay, lastTradingDays } from '../../domain/calendar.js';
import { type FuturesContract, parseContractCode } from '../../domain/contract.js';
import { isValidDate, isValidTime, sydneyUnixSeconds } from '../../domain/dates.js';
import { divideRounded, parseScaled } from '../../domain/decimal.js';
import { deliveryHours } from '../../domain/hours.js';
import { isListed, listedContracts } from '../../domain/listing.js';
import type { FeedEvent, OpenInterestEvent, SettleEvent, TradeEvent } from '../events.js';
import { validateFeedEvent } from '../validate.js';
import { black76Price } from './black76.js';
import { optionYears, RATE } from './pricing.js';
import { createSimulator, simulateHistory } from './simulator.js';
import { isAuStrip, stripQuarters } from './structure.js';

const DATES = lastTradingDays(6, '20250227');
const PRICE = /^\d+\.\d{2}$/;

function centsOf(text: string): number {
  const value = parseScaled(text, 2);
  if (value === undefined) throw new Error(`not a decimal: ${text}`);
  return value;
}

function futureOf(code: string): FuturesContract {
  const contract = parseContractCode(code);
  if (contract?.kind !== 'future') throw new Error(`not a futures code: ${code}`);
  return contract;
}

function ofType<T extends FeedEvent['type']>(events: readonly FeedEvent[], type: T) {
  return events.filter((event): event is Extract<FeedEvent, { type: T }> => event.type === type);
}

/** Keys in a fixed order, so two events compare by content only. */
function sorted(event: object): Array<[string, unknown]> {
  return Object.entries(event).sort(([a], [b]) => (a < b ? -1 : 1));
}

let history: Array<{ date: string; events: FeedEvent[] }> = [];

beforeAll(() => {
  history = [...simulateHistory({ seed: 1 }, DATES)];
});

describe('determinism', () => {
  it('same seed and dates give identical events, byte for byte', () => {
    const again = [...simulateHistory({ seed: 1 }, DATES)];
    expect(JSON.stringify(again)).toBe(JSON.stringify(history));
  });

  it('a different seed gives different events', () => {
    const other = createSimulator({ seed: 2 }).simulateDay(DATES[0] ?? '');
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(history[0]?.events));
  });

  it('a history is determined by the seed and its own dates (a shorter run is a prefix)', () => {
    const short = [...simulateHistory({ seed: 1 }, DATES.slice(0, 3))];
    expect(JSON.stringify(short)).toBe(JSON.stringify(history.slice(0, 3)));
  });

  it('refuses dates that are not increasing trading days', () => {
    const simulator = createSimulator({ seed: 1 });
    simulator.simulateDay('20250226');
    expect(() => simulator.simulateDay('20250226')).toThrow(RangeError);
    expect(() => simulator.simulateDay('20250225')).toThrow(RangeError);
    expect(() => createSimulator({ seed: 1 }).simulateDay('20250301')).toThrow(RangeError);
    expect(() => createSimulator({ seed: 1.5 })).toThrow(RangeError);
  });
});

describe('every event', () => {
  it('passes the feed validator unchanged (canonical codes and decimals)', () => {
    for (const { events } of history) {
      const rejected: string[] = [];
      const changed: string[] = [];
      for (const event of events) {
        const result = validateFeedEvent(event);
        if (!result.ok) rejected.push(`${result.reason}: ${JSON.stringify(event)}`);
        else if (JSON.stringify(sorted(result.event)) !== JSON.stringify(sorted(event)))
          changed.push(JSON.stringify(event));
      }
      expect(rejected).toEqual([]);
      expect(changed).toEqual([]);
    }
  });

  it('carries its date, a valid time in time order and seq 1..n', () => {
    for (const { date, events } of history) {
      expect(isValidDate(date) && isTradingDay(date)).toBe(true);
      let previous = '000000';
      const wrong = events.filter((event, i) => {
        const ok =
          event.date === date && event.seq === i + 1 && isValidTime(event.time) && event.time >= previous;
        previous = event.time;
        return !ok;
      });
      expect(wrong).toEqual([]);
    }
  });

  it('names only contracts listed that day, in canonical form', () => {
    for (const { date, events } of history) {
      const wrong = events.filter(
        (event) =>
          'code' in event &&
          (parseContractCode(event.code)?.code !== event.code || !isListed(event.code, date)),
      );
      expect(wrong).toEqual([]);
    }
  });

  it('writes every price with exactly two decimals', () => {
    for (const { events } of history) {
      const bad: string[] = [];
      for (const event of events) {
        const prices: Array<string | null> = [];
        if (event.type === 'book') prices.push(event.bid, event.ask);
        if (event.type === 'trade') prices.push(event.price);
        if (event.type === 'settle') prices.push(event.settle, event.implied_volatility ?? '1.00');
        if (event.type === 'index') prices.push(event.value);
        if (event.type === 'custom_market') {
          if (!/^-?\d+\.\d{2}$/.test(event.net)) bad.push(event.net);
          for (const leg of event.legs) prices.push(leg.price, leg.ratio.replace(/^-/, ''));
        }
        for (const price of prices) if (price === null || !PRICE.test(price)) bad.push(JSON.stringify(event));
      }
      expect(bad).toEqual([]);
    }
  });

  it('keeps the day to a manageable size (6,000 to 15,000 events)', () => {
    for (const { events } of history) {
      expect(events.length).toBeGreaterThan(6000);
      expect(events.length).toBeLessThan(15_000);
    }
  });
});

describe('books and trades', () => {
  it('books are two-sided with bid < ask and sizes 1..50', () => {
    for (const { events } of history) {
      const books = ofType(events, 'book');
      expect(books.length).toBeGreaterThan(2000);
      const sizeOk = (size: number | null) =>
        size !== null && Number.isInteger(size) && size >= 1 && size <= 50;
      const wrong = books.filter(
        (book) =>
          book.bid === null ||
          book.ask === null ||
          centsOf(book.bid) >= centsOf(book.ask) ||
          !sizeOk(book.bid_size) ||
          !sizeOk(book.ask_size),
      );
      expect(wrong).toEqual([]);
    }
  });

  it('trades: session hours, whole volumes, block flag only on B, late ones only off screen', () => {
    for (const { events } of history) {
      for (const trade of ofType(events, 'trade')) {
        expect(Number.isInteger(trade.volume) && trade.volume >= 1).toBe(true);
        expect(trade.block).toBe(trade.trade_type === 'B');
        expect(trade.time >= '100000' && trade.time <= '165959').toBe(true);
        if (trade.trade_type === 'N' || trade.trade_type === 'Z') expect(trade.time < '160000').toBe(true);
        expect(centsOf(trade.price)).toBeGreaterThan(0);
      }
    }
  });

  it('AU strips trade as one N row plus four Z legs at hours-weighted prices', () => {
    let groups = 0;
    for (const { events } of history) {
      const trades = ofType(events, 'trade');
      const byGroup = new Map<string, TradeEvent[]>();
      for (const trade of trades) {
        if (trade.trade_type === 'Z') expect(trade.group).toBeTruthy();
        if (trade.group === undefined) continue;
        byGroup.set(trade.group, [...(byGroup.get(trade.group) ?? []), trade]);
      }
      for (const rows of byGroup.values()) {
        groups += 1;
        const [strip, ...legs] = rows;
        if (!strip) throw new Error('empty group');
        const contract = futureOf(strip.code);
        expect(isAuStrip(contract)).toBe(true);
        expect(strip.trade_type).toBe('N');
        expect(legs.map((leg) => leg.code)).toEqual(stripQuarters(contract).map((quarter) => quarter.code));
        let weighted = 0;
        let hours = 0;
        for (const leg of legs) {
          expect(leg.trade_type).toBe('Z');
          expect(leg.volume).toBe(strip.volume);
          expect(leg.time).toBe(strip.time);
          const legHours = deliveryHours(futureOf(leg.code));
          weighted += legHours * centsOf(leg.price);
          hours += legHours;
        }
        expect(Math.abs(weighted / hours - centsOf(strip.price))).toBeLessThanOrEqual(1);
      }
      // AU strips never trade without legs.
      for (const trade of trades) {
        const contract = parseContractCode(trade.code);
        if (contract?.kind === 'future' && isAuStrip(contract)) expect(trade.group).toBeDefined();
      }
    }
    expect(groups).toBeGreaterThan(50);
  });

  it('AU electricity blocks are >= 25 lots and each is followed by a registered-trades message', () => {
    let blocks = 0;
    for (const { events } of history) {
      events.forEach((event, i) => {
        if (event.type !== 'trade' || event.trade_type !== 'B') return;
        blocks += 1;
        const market = parseContractCode(event.code)?.product.market;
        if (market === 'au_electricity') expect(event.volume).toBeGreaterThanOrEqual(25);
        const next = events[i + 1];
        expect(next?.type).toBe('message');
        if (next?.type !== 'message') return;
        expect(next.board).toBe('registered_trades');
        expect(next.time).toBe(event.time);
        expect(next.text).toBe(`Block: ${event.code} ${event.volume} lots @ ${event.price}`);
      });
    }
    expect(blocks).toBeGreaterThan(5);
  });

  it('AU electricity trades and lots are of the order of a real day', () => {
    let trades = 0;
    let lots = 0;
    for (const { events } of history.slice(1)) {
      for (const trade of ofType(events, 'trade')) {
        if (parseContractCode(trade.code)?.product.market !== 'au_electricity') continue;
        trades += 1;
        lots += trade.volume;
      }
    }
    const days = history.length - 1;
    expect(trades / days).toBeGreaterThan(200);
    expect(trades / days).toBeLessThan(700);
    expect(lots / days).toBeGreaterThan(700);
    expect(lots / days).toBeLessThan(3000);
  });

  it('other markets: NZ a few dozen trades, gas a handful, certificates 10-20 (5-day averages)', () => {
    const counts = new Map<string, number>();
    for (const { events } of history) {
      for (const trade of ofType(events, 'trade')) {
        const market = parseContractCode(trade.code)?.product.market ?? '';
        counts.set(market, (counts.get(market) ?? 0) + 1);
      }
    }
    const perDay = (market: string) => (counts.get(market) ?? 0) / history.length;
    expect(perDay('nz_electricity')).toBeGreaterThan(12);
    expect(perDay('nz_electricity')).toBeLessThan(60);
    expect(perDay('au_gas')).toBeGreaterThan(0.5);
    expect(perDay('au_gas')).toBeLessThan(10);
    const certificates = perDay('au_environmental') + perDay('nz_environmental');
    expect(certificates).toBeGreaterThan(8);
    expect(certificates).toBeLessThan(25);
  });
});

describe('the close', () => {
  it('settles every listed contract once at 16:00:00, options with implied volatility', () => {
    for (const { date, events } of history) {
      const settles = ofType(events, 'settle');
      expect(settles.map((settle) => settle.code)).toEqual(
        listedContracts(date).map((contract) => contract.code),
      );
      const publishedAt = sydneyUnixSeconds(date, '160000');
      const wrong = settles.filter(
        (settle) =>
          settle.time !== '160000' ||
          settle.published_at !== publishedAt ||
          (settle.implied_volatility !== undefined) !== (parseContractCode(settle.code)?.kind === 'option') ||
          centsOf(settle.settle) < 1,
      );
      expect(wrong).toEqual([]);
    }
  });

  it('strip settles are the hours-weighted mean of the same day quarter settles', () => {
    let checked = 0;
    for (const { events } of history) {
      const settles = new Map(
        ofType(events, 'settle').map((settle) => [settle.code, centsOf(settle.settle)]),
      );
      for (const [code, cents] of settles) {
        const contract = parseContractCode(code);
        if (
          contract?.kind !== 'future' ||
          contract.product.period !== 'year' ||
          contract.product.mwTenths === 0
        ) {
          continue;
        }
        const quarters = stripQuarters(contract);
        if (!quarters.every((quarter) => settles.has(quarter.code))) continue;
        const hours = quarters.map((quarter) => deliveryHours(quarter));
        const weighted = quarters.reduce(
          (sum, quarter, i) => sum + (hours[i] ?? 0) * (settles.get(quarter.code) ?? 0),
          0,
        );
        const total = hours.reduce((sum, value) => sum + value, 0);
        expect(Math.abs(weighted / total - cents)).toBeLessThanOrEqual(1);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('settles lie near the last on-screen trade of the day', () => {
    for (const { events } of history) {
      const last = new Map<string, number>();
      for (const trade of ofType(events, 'trade')) {
        if (trade.trade_type === 'N' && parseContractCode(trade.code)?.kind === 'future') {
          last.set(trade.code, centsOf(trade.price));
        }
      }
      for (const settle of ofType(events, 'settle')) {
        const traded = last.get(settle.code);
        if (traded === undefined) continue;
        const cents = centsOf(settle.settle);
        // Caps are cheap and jumpy; everything else settles within a few percent of its last trade.
        const tolerance = settle.code[0] === 'G' && settle.code[1] !== 'Z' ? 0.12 : 0.04;
        expect(Math.abs(traded - cents) / cents, settle.code).toBeLessThan(tolerance);
      }
    }
  });

  it('option settles respect put-call parity on the underlying settle (Black-76, within rounding)', () => {
    const [first] = history;
    if (!first) throw new Error('no history');
    const settles = new Map(ofType(first.events, 'settle').map((settle) => [settle.code, settle]));
    let checked = 0;
    for (const [code, call] of settles) {
      const contract = parseContractCode(code);
      if (contract?.kind !== 'option' || contract.optionType !== 'C') continue;
      const put = settles.get(`${code.slice(0, -1)}P`);
      const underlying = settles.get(contract.underlying);
      if (!put || !underlying) throw new Error(`missing put or underlying of ${code}`);
      const callCents = centsOf(call.settle);
      const putCents = centsOf(put.settle);
      expect(call.implied_volatility).toBe(put.implied_volatility);
      if (callCents <= 1 || putCents <= 1) continue;
      const years = optionYears(contract, first.date);
      const parity = Math.exp(-RATE * years) * (centsOf(underlying.settle) - contract.strikeCents);
      expect(Math.abs(callCents - putCents - parity)).toBeLessThanOrEqual(1.01);
      // And the call settle is the Black-76 premium at the published volatility.
      const premium = black76Price({
        forward: centsOf(underlying.settle) / 100,
        strike: contract.strikeCents / 100,
        years,
        volatility: centsOf(call.implied_volatility ?? '0') / 10_000,
        rate: RATE,
        optionType: 'C',
      });
      expect(Math.abs(premium * 100 - callCents)).toBeLessThanOrEqual(1);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(500);
  });

  it('implied volatilities are AU ~20-40 % near the money and higher in the wings', () => {
    const [first] = history;
    const settles = ofType(first?.events ?? [], 'settle');
    const underlying = new Map(settles.map((settle) => [settle.code, centsOf(settle.settle)]));
    for (const settle of settles) {
      const contract = parseContractCode(settle.code);
      if (contract?.kind !== 'option' || contract.product.market !== 'au_electricity') continue;
      const forward = underlying.get(contract.underlying) ?? 0;
      const volatility = centsOf(settle.implied_volatility ?? '0') / 100;
      if (Math.abs(Math.log(contract.strikeCents / forward)) < 0.03) {
        expect(volatility).toBeGreaterThan(15);
        expect(volatility).toBeLessThan(50);
      }
    }
  });

  it('one open interest per listed contract after the settles, never negative, AU strips 0', () => {
    for (const { date, events } of history) {
      const openInterest = ofType(events, 'open_interest');
      expect(openInterest.map((event) => event.code)).toEqual(
        listedContracts(date).map((contract) => contract.code),
      );
      const firstOpenInterest = events.findIndex((event) => event.type === 'open_interest');
      const lastSettle = events.findLastIndex((event) => event.type === 'settle');
      expect(firstOpenInterest).toBeGreaterThan(lastSettle);
      const wrong = openInterest.filter((event) => {
        const contract = parseContractCode(event.code);
        const auStrip = contract?.kind === 'future' && isAuStrip(contract);
        return (
          event.time !== '160000' ||
          !Number.isInteger(event.open_interest) ||
          event.open_interest < 0 ||
          (auStrip && event.open_interest !== 0)
        );
      });
      expect(wrong).toEqual([]);
    }
  });

  it('open interest is realistic: active quarters in the hundreds to thousands', () => {
    const last = history.at(-1);
    const quarters = ofType(last?.events ?? [], 'open_interest').filter((event) =>
      /^B[NQV][HMUZ]2025$/.test(event.code),
    );
    const values = quarters.map((event) => event.open_interest);
    expect(Math.max(...values)).toBeGreaterThan(500);
    expect(Math.max(...values)).toBeLessThan(20_000);
    expect(Math.min(...values)).toBeGreaterThan(10);
  });

  it('open interest changes by no more than the volume traded (late trades count the next day)', () => {
    let moved = 0;
    for (let day = 1; day < history.length; day++) {
      const before = history[day - 1];
      const today = history[day];
      if (!before || !today) continue;
      const volume = new Map<string, number>();
      const add = (trade: TradeEvent) => {
        const code = trade.code;
        if (trade.trade_type === 'N' && trade.group !== undefined) return; // the AU strip row itself
        volume.set(code, (volume.get(code) ?? 0) + trade.volume);
      };
      for (const trade of ofType(before.events, 'trade')) if (trade.time > '160000') add(trade);
      for (const trade of ofType(today.events, 'trade')) if (trade.time < '160000') add(trade);
      const previous = new Map(
        ofType(before.events, 'open_interest').map((event) => [event.code, event.open_interest]),
      );
      for (const event of ofType(today.events, 'open_interest') as OpenInterestEvent[]) {
        const change = Math.abs(event.open_interest - (previous.get(event.code) ?? 0));
        expect(change, event.code).toBeLessThanOrEqual(volume.get(event.code) ?? 0);
        if (change > 0) moved += 1;
      }
    }
    expect(moved).toBeGreaterThan(50);
  });

  it('index values are the mean of the calendar strip settles (epi AU regions, npi NZ nodes)', () => {
    for (const { date, events } of history) {
      const settles = new Map(
        ofType(events, 'settle').map((settle: SettleEvent) => [settle.code, centsOf(settle.settle)]),
      );
      const indices = ofType(events, 'index');
      const year = Number(date.slice(0, 4));
      for (const [index, roots] of [
        ['epi', ['HN', 'HQ', 'HV', 'HS']],
        ['npi', ['EB', 'EF']],
      ] as const) {
        const rows = indices.filter((row) => row.index === index);
        expect(rows.length).toBeGreaterThan(0);
        for (const row of rows) {
          expect(row.year).toBeGreaterThan(year);
          const strips = roots.map((root) => settles.get(`${root}Z${row.year}`));
          const sum = strips.reduce<number>((total, value) => total + (value ?? Number.NaN), 0);
          expect(centsOf(row.value)).toBe(divideRounded(sum, roots.length));
        }
        const expectedYears = [...settles.keys()]
          .filter(
            (code) =>
              code.length === 7 &&
              code.startsWith(`${roots[0]}Z`) &&
              roots.every((root) => settles.has(`${root}Z${code.slice(3)}`)),
          )
          .map((code) => Number(code.slice(3)));
        expect(rows.map((row) => row.year).sort()).toEqual(expectedYears.sort());
      }
    }
  });
});

const PEAK_TO_BASE: Readonly<Record<string, string>> = {
  PN: 'BN',
  PQ: 'BQ',
  PV: 'BV',
  PS: 'BS',
  EC: 'EA',
  EG: 'EE',
};

describe('curves', () => {
  it('AU base quarters around 80-130, peak above base, caps about 5-30, gas about 14.50', () => {
    const settles = new Map(
      ofType(history[0]?.events ?? [], 'settle').map((s) => [s.code, centsOf(s.settle) / 100]),
    );
    for (const [code, price] of settles) {
      const contract = parseContractCode(code);
      if (contract?.kind !== 'future') continue;
      switch (contract.product.futuresClass) {
        case 'baseQuarterFutures':
          if (contract.product.market === 'au_electricity') {
            expect(price, code).toBeGreaterThan(60);
            expect(price, code).toBeLessThan(170);
          }
          break;
        case 'peakQuarterFutures': {
          const baseRoot = PEAK_TO_BASE[contract.product.root] ?? '';
          const base = settles.get(`${baseRoot}${code.slice(2)}`);
          expect(base, code).toBeDefined();
          expect(price, code).toBeGreaterThan(base ?? 0);
          break;
        }
        case 'caps':
          expect(price, code).toBeGreaterThan(2);
          expect(price, code).toBeLessThan(45);
          break;
        case 'gasFutures':
          expect(price, code).toBeGreaterThan(9);
          expect(price, code).toBeLessThan(22);
          break;
        default:
          break;
      }
    }
  });

  it('AU seasonality: summer and winter quarters dearer than the shoulders', () => {
    const settles = ofType(history[0]?.events ?? [], 'settle');
    const mean = (letters: string) => {
      const prices = settles
        .filter((s) => /^B[NQVS][HMUZ]\d{4}$/.test(s.code) && letters.includes(s.code[2] ?? ''))
        .map((s) => centsOf(s.settle));
      return prices.reduce((sum, value) => sum + value, 0) / prices.length;
    };
    expect(mean('HU')).toBeGreaterThan(mean('MZ') * 1.05);
  });

  it('the curve moves from day to day and regions move together', () => {
    const regions = ['HNZ2026', 'HQZ2026', 'HVZ2026', 'HSZ2026'];
    const series = regions.map((code) =>
      history.map(({ events }) =>
        centsOf(ofType(events, 'settle').find((s) => s.code === code)?.settle ?? '0'),
      ),
    );
    for (const prices of series) expect(new Set(prices).size).toBeGreaterThan(3);
  });
});

describe('messages and custom markets', () => {
  it('message board carries RFQs in the older notation and block notices', () => {
    for (const { events } of history) {
      const board = ofType(events, 'message').filter((message) => message.board === 'message_board');
      expect(board.length).toBeGreaterThan(2);
      expect(board.length).toBeLessThan(60);
      for (const message of board) {
        expect(message.text).toMatch(
          /^(RFQ: [A-Z]{2}[FGHJKMNQUVXZ]\d(\/[A-Z]{2}[FGHJKMNQUVXZ]\d)?|Block trade: [A-Z]{2}[FGHJKMNQUVXZ]\d \d+ lots)$/,
        );
      }
    }
  });

  it('custom markets: 1 to 6 legs, net = sum of ratio x price exactly, integer size', () => {
    let count = 0;
    for (const { events } of history) {
      for (const custom of ofType(events, 'custom_market')) {
        count += 1;
        expect(['au_electricity', 'nz_electricity']).toContain(custom.market);
        expect(custom.legs.length).toBeGreaterThanOrEqual(1);
        expect(custom.legs.length).toBeLessThanOrEqual(6);
        expect(Number.isInteger(custom.size) && custom.size >= 1).toBe(true);
        const net = custom.legs.reduce(
          (sum, leg) => sum + (centsOf(leg.ratio) / 100) * centsOf(leg.price),
          0,
        );
        expect(centsOf(custom.net)).toBe(net);
      }
    }
    expect(count).toBeGreaterThan(5);
  });
});
