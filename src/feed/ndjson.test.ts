import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FeedEvent } from './events.js';
import { describeLineError, formatFeedEvent, parseFeedLine } from './ndjson.js';
import { validateFeedEvent } from './validate.js';

const BASE = { date: '20250219', seq: 1, time: '101500' };

const SAMPLES: FeedEvent[] = [
  { type: 'book', ...BASE, code: 'BNH2026', bid: '124.00', bid_size: 1, ask: null, ask_size: null },
  {
    type: 'trade',
    ...BASE,
    code: 'HNM2026',
    price: '121.85',
    volume: 2,
    trade_type: 'N',
    block: false,
    group: 's1',
  },
  { type: 'trade', ...BASE, code: 'GZJ2025', price: '14.50', volume: 5, trade_type: 'B', block: true },
  {
    type: 'settle',
    ...BASE,
    code: 'EAH20260010000C',
    settle: '5.60',
    published_at: 1739941200,
    implied_volatility: '22.28',
  },
  { type: 'open_interest', ...BASE, code: 'BNH2026', open_interest: 1044 },
  { type: 'message', ...BASE, market: 'au_electricity', board: 'message_board', text: 'RFQ: HNZ6' },
  {
    type: 'message',
    ...BASE,
    market: 'nz_electricity',
    board: 'registered_trades',
    text: 'said "hi"\n\ttab \\ back ✓ 😀 \u0001',
  },
  {
    type: 'custom_market',
    ...BASE,
    market: 'au_electricity',
    contract: 'BNH2026-BNM2026',
    net: '-5.00',
    size: 10,
    legs: [
      { price: '126.00', ratio: '1.00' },
      { price: '131.00', ratio: '-1.00' },
    ],
  },
  { type: 'index', ...BASE, index: 'epi', year: 2026, value: '115.25' },
];

function line(fields: Record<string, unknown>): string {
  return JSON.stringify(fields);
}

const TRADE = {
  type: 'trade',
  date: '20250219',
  seq: 17,
  time: '101500',
  code: 'BNH2026',
  price: '84.50',
  volume: 3,
  trade_type: 'N',
  block: false,
};

describe('NDJSON feed lines', () => {
  it('writes each type with a fixed key order, whatever order the object has', () => {
    expect(formatFeedEvent(SAMPLES[0] as FeedEvent)).toBe(
      '{"type":"book","date":"20250219","seq":1,"time":"101500","code":"BNH2026","bid":"124.00","bid_size":1,' +
        '"ask":null,"ask_size":null}',
    );
    const shuffled = {
      block: false,
      volume: 3,
      price: '84.50',
      code: 'BNH2026',
      ...BASE,
      trade_type: 'N',
      type: 'trade',
    };
    expect(formatFeedEvent(shuffled as FeedEvent)).toBe(
      '{"type":"trade","date":"20250219","seq":1,"time":"101500","code":"BNH2026","price":"84.50","volume":3,' +
        '"trade_type":"N","block":false}',
    );
    expect(formatFeedEvent(SAMPLES[3] as FeedEvent)).toBe(
      '{"type":"settle","date":"20250219","seq":1,"time":"101500","code":"EAH20260010000C","settle":"5.60",' +
        '"published_at":1739941200,"implied_volatility":"22.28"}',
    );
  });

  it('reads back every type exactly as written', () => {
    for (const event of SAMPLES) {
      expect(JSON.parse(formatFeedEvent(event))).toEqual(JSON.parse(JSON.stringify(event)));
      const parsed = parseFeedLine(formatFeedEvent(event), 1);
      expect(parsed).toMatchObject({ ok: true, event });
      if (parsed.ok) expect(formatFeedEvent(parsed.event)).toBe(formatFeedEvent(event));
    }
  });

  it('canonicalises codes and decimals', () => {
    const option = parseFeedLine(line({ ...TRADE, code: 'BNM2025C0016000', price: '3.5' }), 1);
    expect(option).toMatchObject({ ok: true, event: { code: 'BNM20250016000C', price: '3.50' } });
    const suffixed = parseFeedLine(line({ ...TRADE, code: 'GNU2025F', price: '-0.00' }), 1);
    expect(suffixed).toMatchObject({ ok: true, event: { code: 'GNU2025', price: '0.00' } });
    if (suffixed.ok) expect(suffixed.contract?.code).toBe('GNU2025');
  });

  it('keeps any valid trade byte-stable through a round trip', () => {
    const codes = ['BNH2026', 'HNZ2026', 'EAH20260010000C', 'GZJ2025', 'CLZ2026', 'EDF2026'];
    fc.assert(
      fc.property(
        fc.constantFrom(...codes),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom('N', 'Z', 'B', 'E'),
        fc.boolean(),
        (code, priceCents, volume, seq, tradeType, block) => {
          const price = `${Math.floor(priceCents / 100)}.${String(priceCents % 100).padStart(2, '0')}`;
          const text = line({ ...TRADE, code, price, volume, seq, trade_type: tradeType, block });
          const parsed = parseFeedLine(text, 1);
          expect(parsed.ok).toBe(true);
          if (parsed.ok) expect(formatFeedEvent(parsed.event)).toBe(text);
        },
      ),
    );
  });

  it('writes any message text as JSON would, escapes included', () => {
    fc.assert(
      // any text a store can keep: NUL is refused (the table of refusals below)
      fc.property(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).filter((text) => !text.includes('\0')),
        (text) => {
          const event: FeedEvent = {
            type: 'message',
            ...BASE,
            market: 'au_gas',
            board: 'message_board',
            text,
          };
          const line = formatFeedEvent(event);
          expect(line).toBe(
            `{"type":"message","date":"20250219","seq":1,"time":"101500","market":"au_gas","board":"message_board","text":${JSON.stringify(text)}}`,
          );
          expect(parseFeedLine(line, 1)).toMatchObject({ ok: true, event: { text } });
        },
      ),
    );
  });

  it('validates in-process objects by the same rules, an undefined optional being absent', () => {
    expect(validateFeedEvent({ ...TRADE, group: undefined })).toMatchObject({ ok: true });
    expect(validateFeedEvent({ ...TRADE, volume: 0 })).toEqual({
      ok: false,
      reason: 'volume must be an integer from 1 to 10000, got 0',
    });
  });

  const REFUSED: [string, string, string | RegExp][] = [
    ['unknown root', line({ ...TRADE, code: 'XXH2026' }), 'unknown contract code XXH2026'],
    ['month letter not listed', line({ ...TRADE, code: 'BNF2026' }), 'unknown contract code BNF2026'],
    ['off-grid strike', line({ ...TRADE, code: 'BNH20260010050C' }), 'unknown contract code BNH20260010050C'],
    ['options on a product without', line({ ...TRADE, code: 'GNH20260010000C' }), /unknown contract code/],
    [
      'impossible date',
      line({ ...TRADE, date: '20251131' }),
      'date must be a calendar date yyyyMMdd (2000-2099), got "20251131"',
    ],
    [
      'weekend',
      line({ ...TRADE, date: '20250222' }),
      'date 20250222 is not a trading day (weekend or exchange holiday)',
    ],
    ['holiday', line({ ...TRADE, date: '20251225' }), /20251225 is not a trading day/],
    ['bad time', line({ ...TRADE, time: '246000' }), 'time must be HHmmss (000000-235959), got "246000"'],
    ['short time', line({ ...TRADE, time: '10150' }), /time must be HHmmss/],
    ['seq 0', line({ ...TRADE, seq: 0 }), 'seq must be an integer from 1 to 1000000, got 0'],
    ['seq as text', line({ ...TRADE, seq: '17' }), 'seq must be an integer from 1 to 1000000, got "17"'],
    ['negative volume', line({ ...TRADE, volume: -3 }), 'volume must be an integer from 1 to 10000, got -3'],
    [
      'fractional volume',
      line({ ...TRADE, volume: 1.5 }),
      'volume must be an integer from 1 to 10000, got 1.5',
    ],
    [
      '3 decimals',
      line({ ...TRADE, price: '84.505' }),
      'price must be a decimal string with at most 2 decimals, got "84.505"',
    ],
    ['price as a number', line({ ...TRADE, price: 84.5 }), /price must be a decimal string/],
    ['exponent', line({ ...TRADE, price: '1e3' }), /price must be a decimal string/],
    [
      'negative premium',
      line({ ...TRADE, code: 'BNH20260012000C', price: '-1.00' }),
      /price of an option must not be negative/,
    ],
    ['trade type', line({ ...TRADE, trade_type: 'X' }), 'trade_type must be one of N Z B E, got "X"'],
    ['block as text', line({ ...TRADE, block: 'yes' }), 'block must be true or false, got "yes"'],
    ['empty group', line({ ...TRADE, group: '' }), /group must be a non-empty string/],
    // JSON can carry both; no store can keep them as they came (validate.ts NOT_STORABLE_TEXT)
    [
      'NUL in message text',
      line({ type: 'message', ...BASE, market: 'au_gas', board: 'message_board', text: 'nul\u0000byte' }),
      'text must be Unicode text without NUL characters or unpaired surrogates',
    ],
    [
      'unpaired surrogate in a custom market',
      line({
        type: 'custom_market',
        ...BASE,
        market: 'au_gas',
        contract: 'lone \ud800 half',
        net: '1.00',
        size: 1,
        legs: [{ price: '1.00', ratio: '1.00' }],
      }),
      'contract must be Unicode text without NUL characters or unpaired surrogates',
    ],
    ['unknown field', line({ ...TRADE, venue: 'screen' }), 'unknown field "venue" in a trade event'],
    ['missing field', line({ ...TRADE, volume: undefined }), 'missing field "volume"'],
    ['unknown type', line({ ...TRADE, type: 'quote' }), 'unknown event type "quote"'],
    ['no type', line({ ...TRADE, type: undefined }), 'missing field "type"'],
    ['truncated', line(TRADE).slice(0, 40), 'invalid JSON (malformed or truncated line)'],
    ['not an object', '[1,2]', 'expected a JSON object, got an array'],
    ['null', 'null', 'expected a JSON object, got null'],
    [
      'half a book side',
      line({
        type: 'book',
        ...BASE,
        code: 'BNH2026',
        bid: '1.00',
        bid_size: null,
        ask: null,
        ask_size: null,
      }),
      'bid and bid_size must both be set or both be null',
    ],
    [
      'book size 0',
      line({ type: 'book', ...BASE, code: 'BNH2026', bid: '1.00', bid_size: 0, ask: null, ask_size: null }),
      'bid_size must be an integer from 1 to 10000, got 0',
    ],
    [
      'book side left out',
      line({ type: 'book', ...BASE, code: 'BNH2026', bid: '1.00', bid_size: 1 }),
      'missing field "ask"',
    ],
    [
      'zero volatility',
      line({
        type: 'settle',
        ...BASE,
        code: 'EAH20260010000C',
        settle: '1.00',
        published_at: 1,
        implied_volatility: '0',
      }),
      'implied_volatility must be greater than 0, got "0"',
    ],
    [
      'volatility of a future',
      line({
        type: 'settle',
        ...BASE,
        code: 'EAH2026',
        settle: '1.00',
        published_at: 1,
        implied_volatility: '20',
      }),
      'implied_volatility applies to options only',
    ],
    [
      'negative open interest',
      line({ type: 'open_interest', ...BASE, code: 'EAH2026', open_interest: -1 }),
      'open_interest must be an integer from 0 to 1000000, got -1',
    ],
    [
      'bad board',
      line({ type: 'message', ...BASE, market: 'au_electricity', board: 'chat', text: 'x' }),
      'board must be message_board or registered_trades, got "chat"',
    ],
    [
      'bad market',
      line({ type: 'message', ...BASE, market: 'au_power', board: 'message_board', text: 'x' }),
      'market must be a market code, got "au_power"',
    ],
    [
      'no legs',
      line({ type: 'custom_market', ...BASE, market: 'au_gas', contract: 'x', net: '1', size: 1, legs: [] }),
      'legs must be an array of 1 to 6 legs',
    ],
    [
      'seven legs',
      line({
        type: 'custom_market',
        ...BASE,
        market: 'au_gas',
        contract: 'x',
        net: '1',
        size: 1,
        legs: Array.from({ length: 7 }, () => ({ price: '1', ratio: '1' })),
      }),
      'legs must be an array of 1 to 6 legs',
    ],
    [
      'leg price',
      line({
        type: 'custom_market',
        ...BASE,
        market: 'au_gas',
        contract: 'x',
        net: '1',
        size: 1,
        legs: [{ price: '1.001', ratio: '1' }],
      }),
      /legs\[0\]\.price must be a decimal string/,
    ],
    [
      'index name',
      line({ type: 'index', ...BASE, index: 'xpi', year: 2026, value: '1' }),
      'index must be epi or npi, got "xpi"',
    ],
    [
      'index year',
      line({ type: 'index', ...BASE, index: 'epi', year: 1999, value: '1' }),
      /year must be an integer from 2000 to 2099/,
    ],
    // the exchange's limits (domain/limits.ts): the amounts that once broke queries
    [
      'volume of 2^53-1',
      line({ ...TRADE, volume: 9007199254740991 }),
      /^volume must be an integer from 1 to 10000/,
    ],
    [
      'a trade of 1e9 lots',
      line({ ...TRADE, volume: 1e9 }),
      'volume must be an integer from 1 to 10000, got 1000000000',
    ],
    [
      'a trade of 10,001 lots',
      line({ ...TRADE, volume: 10_001 }),
      /^volume must be an integer from 1 to 10000/,
    ],
    [
      'open interest of 2^53-1',
      line({ type: 'open_interest', ...BASE, code: 'BNH2026', open_interest: 9007199254740991 }),
      /^open_interest must be an integer from 0 to 1000000/,
    ],
    ['seq beyond a day', line({ ...TRADE, seq: 1_000_001 }), /^seq must be an integer from 1 to 1000000/],
    [
      'price above the bound',
      line({ ...TRADE, price: '100000.01' }),
      'price must be between -100000.00 and 100000.00, got "100000.01"',
    ],
    ['price below the bound', line({ ...TRADE, price: '-100000.01' }), /^price must be between/],
    [
      'published_at after 2100',
      line({ type: 'settle', ...BASE, code: 'BNH2026', settle: '1.00', published_at: 4_102_444_801 }),
      /^published_at must be an integer from 1 to 4102444800/,
    ],
    [
      'custom market size',
      line({
        type: 'custom_market',
        ...BASE,
        market: 'au_gas',
        contract: 'x',
        net: '1',
        size: 10_001,
        legs: [{ price: '1', ratio: '1' }],
      }),
      /^size must be an integer from 0 to 10000/,
    ],
    [
      'a deeply nested type',
      `{"type":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
      'unknown event type an array',
    ],
    [
      'a deeply nested field',
      line({ ...TRADE, volume: 1 }).replace(
        '"volume":1',
        `"volume":${'['.repeat(20_000)}${']'.repeat(20_000)}`,
      ),
      'volume must be an integer from 1 to 10000, got an array',
    ],
  ];

  it('accepts every amount at its bound', () => {
    const at = (event: Record<string, unknown>) => parseFeedLine(line(event), 1).ok;
    expect(at({ ...TRADE, volume: 10_000, price: '100000.00', seq: 1_000_000 })).toBe(true);
    expect(at({ ...TRADE, price: '-100000.00' })).toBe(true);
    expect(at({ type: 'open_interest', ...BASE, code: 'BNH2026', open_interest: 1_000_000 })).toBe(true);
  });

  it.each(REFUSED)('refuses %s with a specific reason', (_name, text, reason) => {
    const parsed = parseFeedLine(text, 17);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.line).toBe(17);
    if (typeof reason === 'string') expect(parsed.reason).toBe(reason);
    else expect(parsed.reason).toMatch(reason);
    expect(describeLineError(parsed)).toMatch(/^line 17: /);
  });
});
