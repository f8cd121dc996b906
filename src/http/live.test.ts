import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, expectJson, type Harness } from '../../test/api-harness.js';
import type { FeedEvent } from '../feed/events.js';
import { ingestEvents } from '../ingest/ingest-events.js';

/** The app serves what is ingested while it runs: no restart, no stale answer. */
let api: Harness;
let day: FeedEvent[];
beforeAll(async () => {
  api = await createHarness({ days: 2, until: '20250227' });
  day = api.simulator.simulateDay('20250228');
});
afterAll(() => api?.close());

async function json(url: string) {
  return expectJson(await api.get(url));
}

describe('a live day', () => {
  it('appears in trades, intraday, ticker and messages as it is ingested', async () => {
    expect((await json('/api/trades?market=au_electricity')).date).toBe('20250227');

    await ingestEvents(
      api.store.writer,
      day.filter((event) => event.time < '110000'),
    );
    const morning = await json('/api/trades?market=au_electricity');
    expect(morning.date).toBe('20250228');
    const morningTrades = morning.trades as { time: string; volume: string }[];
    expect(morningTrades.length).toBeGreaterThan(0);
    expect(String(morning.last_trade) < '110000').toBe(true);
    const tickerMorning = await json('/api/ticker?futures=au_electricity');
    expect(tickerMorning.date).toBe('20250228');
    expect(((tickerMorning.data as { time: string }[])[0]?.time ?? '') < '20250228110000').toBe(true);
    const boardMorning = (await json('/api/messages?market=au_electricity&type=message_board'))
      .data as unknown[];
    const intradayMorning = (await json('/api/intraday?futures=au_electricity')).data as {
      volume: string | null;
    }[];
    const lotsMorning = intradayMorning.reduce((sum, row) => sum + Number(row.volume ?? 0), 0);

    await ingestEvents(
      api.store.writer,
      day.filter((event) => event.time >= '110000'),
    );
    const afternoon = await json('/api/trades?market=au_electricity');
    const afternoonTrades = afternoon.trades as { time: string }[];
    expect(afternoonTrades.length).toBeGreaterThan(morningTrades.length);
    expect(String(afternoon.last_trade) >= '110000').toBe(true);
    const tickerAfternoon = await json('/api/ticker?futures=au_electricity&type=settle');
    expect((tickerAfternoon.data as unknown[]).length).toBeGreaterThan(0);
    const boardAfternoon = (await json('/api/messages?market=au_electricity&type=message_board'))
      .data as unknown[];
    expect(boardAfternoon.length).toBeGreaterThan(boardMorning.length);
    const intradayAfternoon = (await json('/api/intraday?futures=au_electricity')).data as {
      volume: string | null;
    }[];
    const lotsAfternoon = intradayAfternoon.reduce((sum, row) => sum + Number(row.volume ?? 0), 0);
    expect(lotsAfternoon).toBeGreaterThan(lotsMorning);
    // The trade log of the new day agrees with the intraday volume.
    const log = (await json('/api/tradelog?futures=au_electricity')).summary as { volume: string };
    expect(Number(log.volume)).toBe(lotsAfternoon);
  });
});
