import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { FeedEvent } from '../feed/events.js';
import { formatFeedEvent } from '../feed/ndjson.js';
import { createSimulator } from '../feed/simulator/simulator.js';
import { MEMORY, openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import type { MarketStore, MarketWriter } from '../store/store.js';
import { collect } from '../store/store-contract.js';
import { IngestError } from './ingest-error.js';
import { ingestDays, ingestEvents } from './ingest-events.js';
import { ingestFile } from './ingest-file.js';

const directory = mkdtempSync(join(tmpdir(), 'gridquote-ingest-'));
let files = 0;

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

function writeFeed(text: string): string {
  const path = join(directory, `feed-${++files}.ndjson`);
  writeFileSync(path, text);
  return path;
}

const D1 = '20250219';
const D2 = '20250220';

function feed(date: string): FeedEvent[] {
  const at = (seq: number, time: string) => ({ date, seq, time });
  return [
    {
      type: 'book',
      ...at(1, '100000'),
      code: 'BNH2026',
      bid: '124.00',
      bid_size: 1,
      ask: '124.50',
      ask_size: 2,
    },
    {
      type: 'trade',
      ...at(2, '101500'),
      code: 'BNH2026',
      price: '124.25',
      volume: 3,
      trade_type: 'N',
      block: false,
    },
    {
      type: 'trade',
      ...at(3, '103000'),
      code: 'GZJ2025',
      price: '14.50',
      volume: 5,
      trade_type: 'B',
      block: true,
    },
    {
      type: 'message',
      ...at(4, '110000'),
      market: 'au_electricity',
      board: 'message_board',
      text: 'RFQ: HNZ6',
    },
    { type: 'settle', ...at(5, '160000'), code: 'BNH2026', settle: '124.30', published_at: 1739941200 },
    { type: 'open_interest', ...at(6, '160500'), code: 'BNH2026', open_interest: 1044 },
  ];
}

const lines = (events: FeedEvent[]) => `${events.map(formatFeedEvent).join('\n')}\n`;

const exported = async (store: MarketStore) => (await collect(store.events.lines())).join('\n');

/** The error an ingest threw; fails the test when it did not throw one. */
async function refusal(run: () => Promise<unknown> | unknown): Promise<IngestError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof IngestError) return error;
    throw error;
  }
  throw new Error('expected the ingest to be refused');
}

describe('ingest', () => {
  let store: MarketStore;

  beforeEach(() => {
    store?.close();
    store = openSqliteStore(MEMORY);
  });

  it('stores a feed file as canonical lines in date then seq order', async () => {
    const events = [...feed(D2), ...feed(D1)];
    const path = writeFeed(lines(events));
    expect(await ingestFile(store.writer, path)).toEqual({ added: 12, skipped: 0 });
    expect(await exported(store)).toBe([...feed(D1), ...feed(D2)].map(formatFeedEvent).join('\n'));
    expect(await store.reader.dates()).toEqual([D1, D2]);
  });

  it('adds nothing when the same feed is ingested again', async () => {
    const path = writeFeed(lines(feed(D1)));
    await ingestFile(store.writer, path);
    const before = await exported(store);
    const version = await store.reader.version();
    expect(await ingestFile(store.writer, path)).toEqual({ added: 0, skipped: 6 });
    expect(await ingestEvents(store.writer, feed(D1))).toEqual({ added: 0, skipped: 6 });
    expect(await store.reader.version()).toBe(version);
    expect(await exported(store)).toBe(before);
  });

  it('recognises a replay written differently (F suffix, type before strike, short decimals)', async () => {
    await ingestFile(store.writer, writeFeed(lines(feed(D1))));
    const variant = feed(D1).map((event) =>
      event.type === 'trade' && event.code === 'BNH2026'
        ? { ...event, code: 'BNH2026F', price: '124.25' }
        : event,
    );
    const text = lines(variant).replace('"bid":"124.00"', '"bid":"124"');
    expect(await ingestFile(store.writer, writeFeed(text))).toEqual({ added: 0, skipped: 6 });
  });

  const MALFORMED: [string, string, string][] = [
    ['unknown code', '"code":"XXH2026"', 'unknown contract code XXH2026'],
    [
      'impossible date',
      '"date":"20251131"',
      'date must be a calendar date yyyyMMdd (2000-2099), got "20251131"',
    ],
    ['weekend date', '"date":"20250222"', 'date 20250222 is not a trading day (weekend or exchange holiday)'],
    ['bad time', '"time":"246000"', 'time must be HHmmss (000000-235959), got "246000"'],
    ['negative volume', '"volume":-3', 'volume must be an integer from 1 to 10000, got -3'],
    ['non-integer volume', '"volume":2.5', 'volume must be an integer from 1 to 10000, got 2.5'],
    [
      'volume of 1e400',
      '"volume":1e400',
      'volume must be an integer from 1 to 10000, got a number too large to read',
    ],
    [
      'volume past 2^53',
      '"volume":9007199254740993',
      'volume must be an integer from 1 to 10000, got a number beyond 2^53',
    ],
    [
      'price with 3 decimals',
      '"price":"124.255"',
      'price must be a decimal string with at most 2 decimals, got "124.255"',
    ],
    ['unknown field', '"venue":"screen"', 'unknown field "venue" in a trade event'],
    ['missing field', '', 'missing field "volume"'],
  ];

  it.each(MALFORMED)(
    'refuses a feed with a line holding a %s, storing nothing',
    async (_name, patch, reason) => {
      await ingestFile(store.writer, writeFeed(lines(feed(D1))));
      const before = await exported(store);
      const version = await store.reader.version();
      const bad = { ...feed(D2)[1] } as Record<string, unknown>;
      if (patch === '') delete bad.volume;
      let text = JSON.stringify(bad);
      if (patch !== '') {
        const [key] = patch.split(':');
        text = text.includes(`${key}:`)
          ? text.replace(new RegExp(`${key}:("[^"]*"|[^,}]*)`), patch)
          : text.replace(/}$/, `,${patch}}`);
      }
      const events = lines(feed(D2)).split('\n');
      events.splice(4, 0, text);
      const error = await refusal(() => ingestFile(store.writer, writeFeed(events.join('\n'))));
      expect(error.errors).toEqual([{ line: 5, reason }]);
      expect(error.message).toBe(`line 5: ${reason}`);
      expect(await exported(store)).toBe(before);
      expect(await store.reader.version()).toBe(version);
    },
  );

  it('refuses a truncated last line', async () => {
    const text = lines(feed(D1));
    const error = await refusal(() => ingestFile(store.writer, writeFeed(text.slice(0, text.length - 30))));
    expect(error.message).toBe('line 6: invalid JSON (malformed or truncated line)');
    expect(await exported(store)).toBe('');
  });

  it('reports every invalid line up to twenty, in one line', async () => {
    const good = lines(feed(D1)).split('\n');
    const text = [
      good[0],
      '{"type":"trade"',
      good[1],
      'not json',
      ...Array.from({ length: 30 }, () => '{}'),
    ].join('\n');
    const error = await refusal(() => ingestFile(store.writer, writeFeed(text)));
    expect(error.errors).toHaveLength(20);
    expect(error.errors.slice(0, 3)).toEqual([
      { line: 2, reason: 'invalid JSON (malformed or truncated line)' },
      { line: 4, reason: 'invalid JSON (malformed or truncated line)' },
      { line: 5, reason: 'missing field "type"' },
    ]);
    expect(error.message).toMatch(/^20 or more invalid lines, nothing stored: line 2: invalid JSON/);
    expect(error.message).not.toMatch(/\n/);
    expect(await exported(store)).toBe('');
  });

  it('refuses a conflicting duplicate, even many chunks into one batch', async () => {
    await ingestFile(store.writer, writeFeed(lines(feed(D1))));
    const before = await exported(store);
    const changed = feed(D1).map((event) => (event.seq === 3 ? { ...event, volume: 6 } : event));
    const text = lines([...feed(D2), ...changed]);
    const error = await refusal(() => ingestFile(store.writer, writeFeed(text), { chunkSize: 2 }));
    expect(error.message).toBe(
      `line 9: conflicts with event ${D1}/3, stored or on an earlier line of this feed`,
    );
    expect(await exported(store)).toBe(before);
    expect(await store.reader.dates()).toEqual([D1]);
  });

  it('goes on listing invalid lines after a conflict, storing nothing', async () => {
    await ingestFile(store.writer, writeFeed(lines(feed(D1))));
    const before = await exported(store);
    const changed = feed(D1).map((event) => (event.seq === 3 ? { ...event, volume: 6 } : event));
    const text = `${lines([...feed(D2), ...changed])}not json\n{}\n`;
    const error = await refusal(() => ingestFile(store.writer, writeFeed(text), { chunkSize: 2 }));
    expect(error.errors).toEqual([
      { line: 9, reason: `conflicts with event ${D1}/3, stored or on an earlier line of this feed` },
      { line: 13, reason: 'invalid JSON (malformed or truncated line)' },
      { line: 14, reason: 'missing field "type"' },
    ]);
    expect(error.message).toMatch(/^3 invalid lines, nothing stored: line 9: conflicts/);
    expect(await exported(store)).toBe(before);
  });

  it('refuses two lines of one feed naming one event with different content, storing nothing', async () => {
    const changed = feed(D1).map((event) => (event.seq === 3 ? { ...event, volume: 6 } : event));
    const text = lines([...feed(D1), ...changed]);
    const error = await refusal(() => ingestFile(store.writer, writeFeed(text)));
    expect(error.message).toBe(
      `line 9: conflicts with event ${D1}/3, stored or on an earlier line of this feed`,
    );
    expect(await exported(store)).toBe('');
  });

  it('reads standard input, CRLF line ends, blank lines and a byte order mark', async () => {
    const text = `\uFEFF${lines(feed(D1)).replaceAll('\n', '\r\n')}\r\n\r\n`;
    const stdin = Readable.from([Buffer.from(text.slice(0, 50)), Buffer.from(text.slice(50))]);
    expect(await ingestFile(store.writer, '-', { stdin })).toEqual({ added: 6, skipped: 0 });
    expect(await exported(store)).toBe(feed(D1).map(formatFeedEvent).join('\n'));
  });

  it('refuses a line whose bytes are not UTF-8, and one of other blanks than JSON’s, storing nothing', async () => {
    const good = lines(feed(D1)).split('\n');
    const bytes = Buffer.concat([
      Buffer.from(`${good[0]}\n`),
      Buffer.from(good[1]?.replace('"time"', '"ti\u00ffme"') ?? '', 'latin1'),
      Buffer.from(`\n${good.slice(2).join('\n')}\n`),
    ]);
    const error = await refusal(() => ingestFile(store.writer, '-', { stdin: Readable.from([bytes]) }));
    expect(error.message).toBe(
      'line 2: the line is not valid UTF-8 (docs/feed-format.md); stopped reading there',
    );
    const nbsp = `${good[0]}\n\u00a0\n${good.slice(1).join('\n')}\n`;
    const blank = await refusal(() => ingestFile(store.writer, writeFeed(nbsp)));
    expect(blank.message).toMatch(/^line 2: invalid JSON/);
    expect(await exported(store)).toBe('');
  });

  it('keeps multi-byte characters split across chunks', async () => {
    const message: FeedEvent = {
      type: 'message',
      date: D1,
      seq: 1,
      time: '100000',
      market: 'nz_electricity',
      board: 'message_board',
      text: 'Ōtāhuhu RFQ — ✓',
    };
    const bytes = Buffer.from(`${formatFeedEvent(message)}\n`);
    const chunks = Array.from({ length: bytes.length }, (_, index) => bytes.subarray(index, index + 1));
    await ingestFile(store.writer, '-', { stdin: Readable.from(chunks) });
    expect(
      (await store.reader.messages({ date: D1, market: 'nz_electricity', board: 'message_board' }))[0]?.text,
    ).toBe('Ōtāhuhu RFQ — ✓');
  });

  it('refuses a line without a line break beyond 64 KiB at once, without reading the rest', async () => {
    const good = lines(feed(D1)).split('\n');
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let chunksRead = 0;
    // 100 MB without a newline after two good lines, produced lazily: only what is read exists
    async function* input() {
      yield Buffer.from(`${good[0]}\n${good[1]}\n{"type":"message","text":"`);
      for (let index = 0; index < 1600; index += 1) {
        chunksRead += 1;
        yield chunk;
      }
    }
    const error = await refusal(() => ingestFile(store.writer, '-', { stdin: Readable.from(input()) }));
    expect(error.errors).toEqual([
      { line: 3, reason: expect.stringMatching(/^line longer than 65536 bytes/) as unknown as string },
    ]);
    expect(chunksRead).toBeLessThanOrEqual(2);
    expect(await exported(store)).toBe('');
  });

  it('reports an over-long line after the invalid lines before it', async () => {
    const text = `not json\n${'y'.repeat(70_000)}\n${lines(feed(D1))}`;
    const error = await refusal(() => ingestFile(store.writer, writeFeed(text)));
    expect(error.errors.map((entry) => entry.line)).toEqual([1, 2]);
    expect(error.message).toMatch(/line 2: line longer than 65536 bytes/);
  });

  it('accepts a line of exactly 64 KiB as far as its length goes', async () => {
    const text = `${'z'.repeat(64 * 1024)}\r\n${lines(feed(D1))}`;
    const error = await refusal(() => ingestFile(store.writer, writeFeed(text)));
    expect(error.message).toBe('line 1: invalid JSON (malformed or truncated line)');
  });

  it('refuses every amount beyond the exchange limits with its line number, storing nothing', async () => {
    const trade = feed(D1)[1] as FeedEvent;
    const text = [
      JSON.stringify({ ...trade, seq: 10, volume: 2 ** 53 - 1 }),
      JSON.stringify({ ...trade, seq: 11, volume: 1e9 }),
      JSON.stringify({
        type: 'open_interest',
        date: D1,
        seq: 12,
        time: '160000',
        code: 'BNH2026',
        open_interest: 2 ** 53 - 1,
      }),
      `{"type":${'['.repeat(30_000)}${']'.repeat(30_000)}}`,
    ].join('\n');
    const error = await refusal(() => ingestFile(store.writer, writeFeed(text)));
    expect(error.errors.map((entry) => entry.line)).toEqual([1, 2, 3, 4]);
    expect(error.message).not.toMatch(/call stack|not an exact/);
    expect(await exported(store)).toBe('');
  });

  it('fails clearly on a missing file', async () => {
    await expect(ingestFile(store.writer, join(directory, 'nope.ndjson'))).rejects.toThrow(/ENOENT/);
  });

  it('validates in-process events through the same rules', async () => {
    const events = feed(D1);
    const broken = [...events.slice(0, 2), { ...events[2], volume: -3 } as FeedEvent, ...events.slice(3)];
    const error = await refusal(() => ingestEvents(store.writer, broken));
    expect(error.message).toBe('event 3: volume must be an integer from 1 to 10000, got -3');
    expect(await exported(store)).toBe('');
    expect(await ingestEvents(store.writer, events)).toEqual({ added: 6, skipped: 0 });
    const conflict = await refusal(() => ingestEvents(store.writer, [{ ...events[0], seq: 2 } as FeedEvent]));
    expect(conflict.message).toBe(`event 1: conflicts with stored event ${D1}/2`);
  });

  it('stores a long list of in-process events whole or not at all, naming events by their place in it', async () => {
    // longer than one append (ingest-events.ts appends a long list in parts within one batch)
    const book = (seq: number): FeedEvent => ({
      type: 'book',
      date: D1,
      seq,
      time: '100000',
      code: 'BNH2026',
      bid: '124.00',
      bid_size: 1,
      ask: null,
      ask_size: null,
    });
    const events = Array.from({ length: 5000 }, (_, index) => book(index + 1));
    const late = [...events.slice(0, 4500), { ...book(4501), bid_size: 0 }, ...events.slice(4501)];
    const invalid = await refusal(() => ingestEvents(store.writer, late));
    expect(invalid.message).toBe('event 4501: bid_size must be an integer from 1 to 10000, got 0');
    expect(await exported(store)).toBe('');

    expect(await ingestEvents(store.writer, events.slice(0, 3000))).toEqual({ added: 3000, skipped: 0 });
    const changed = [...events.slice(0, 2999), { ...book(3000), bid: '124.01' }, ...events.slice(3000)];
    const conflict = await refusal(() => ingestEvents(store.writer, changed));
    expect(conflict.message).toBe(`event 3000: conflicts with stored event ${D1}/3000`);
    expect((await collect(store.events.lines())).length).toBe(3000);

    expect(await ingestEvents(store.writer, events)).toEqual({ added: 2000, skipped: 3000 });
    expect(await exported(store)).toBe(events.map(formatFeedEvent).join('\n'));
  });
});

describe('ingestDays', () => {
  const D3 = '20250221';
  let store: MarketStore;
  /** What happened, in order: a day made by the iterable, a day's append begun, a day's append done. */
  let steps: string[];

  beforeEach(() => {
    store?.close();
    store = openSqliteStore(MEMORY);
    steps = [];
  });

  /** The store's writer, its appends (a short day's transaction) taking a few ms as a server's would. */
  function slowWriter(): MarketWriter {
    const { writer } = store;
    return {
      begin: () => writer.begin(),
      append: async (events) => {
        const date = events[0]?.date;
        steps.push(`append ${date}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        const result = await writer.append(events);
        steps.push(`committed ${date}`);
        return result;
      },
    };
  }

  function* made(
    dates: readonly string[],
    change: (date: string, events: FeedEvent[]) => FeedEvent[] = (_, e) => e,
  ) {
    for (const date of dates) {
      steps.push(`made ${date}`);
      yield change(date, feed(date));
    }
  }

  it('stores the days in order, a transaction each, making the next while the one before commits', async () => {
    const heard: string[] = [];
    await ingestDays(slowWriter(), made([D1, D2, D3]), (result, index) =>
      heard.push(`${index}: ${result.added}`),
    );
    expect(steps).toEqual([
      `made ${D1}`,
      `append ${D1}`,
      `made ${D2}`,
      `committed ${D1}`,
      `append ${D2}`,
      `made ${D3}`,
      `committed ${D2}`,
      `append ${D3}`,
      `committed ${D3}`,
    ]);
    expect(heard).toEqual(['0: 6', '1: 6', '2: 6']);
    expect(await exported(store)).toBe(
      [...feed(D1), ...feed(D2), ...feed(D3)].map(formatFeedEvent).join('\n'),
    );
  });

  it('makes a long day while the one before commits, once all of its rows are sent', async () => {
    // simulated days: longer than one append, so each goes through a write batch
    const simulator = createSimulator({ seed: 3 });
    const { writer } = store;
    const timed: MarketWriter = {
      append: (events) => writer.append(events),
      async begin() {
        const batch = await writer.begin();
        let date: string | undefined;
        return {
          append(events) {
            date ??= events[0]?.date;
            return batch.append(events);
          },
          async commit() {
            steps.push(`commit ${date}`);
            // a server's commit takes a while after everything is sent
            await new Promise((resolve) => setTimeout(resolve, 5));
            const result = await batch.commit();
            steps.push(`committed ${date}`);
            return result;
          },
          rollback: () => batch.rollback(),
        };
      },
    };
    const days = made([D1, D2], (date) => {
      const events = simulator.simulateDay(date);
      expect(events.length).toBeGreaterThan(4096);
      return events;
    });
    await ingestDays(timed, days);
    expect(steps).toEqual([
      `made ${D1}`,
      `commit ${D1}`,
      `made ${D2}`,
      `committed ${D1}`,
      `commit ${D2}`,
      `committed ${D2}`,
    ]);
  });

  it('stops at a refused day: the day before commits, nothing after it is begun', async () => {
    const broken = made([D1, D2, D3], (date, events) =>
      date === D2 ? [events[0] as FeedEvent, { ...events[1], volume: -3 } as FeedEvent] : events,
    );
    const error = await refusal(() => ingestDays(slowWriter(), broken));
    expect(error.message).toBe('event 2: volume must be an integer from 1 to 10000, got -3');
    expect(steps).toEqual([`made ${D1}`, `append ${D1}`, `made ${D2}`, `committed ${D1}`]);
    expect(await exported(store)).toBe(feed(D1).map(formatFeedEvent).join('\n'));
  });

  it('passes on the failure of a day that fails in the store, before anything of the next is written', async () => {
    await ingestEvents(store.writer, feed(D2));
    const conflicting = made([D1, D2, D3], (date, events) =>
      date === D2 ? [{ ...events[0], bid: '124.01' } as FeedEvent, ...events.slice(1)] : events,
    );
    const error = await refusal(() => ingestDays(slowWriter(), conflicting));
    expect(error.message).toBe(`event 1: conflicts with stored event ${D2}/1`);
    expect(steps.filter((step) => step.startsWith('append'))).toEqual([`append ${D1}`, `append ${D2}`]);
    expect(await exported(store)).toBe([...feed(D1), ...feed(D2)].map(formatFeedEvent).join('\n'));
  });
});
