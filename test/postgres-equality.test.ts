import { afterAll, describe, expect, it } from 'vitest';
import { lastTradingDays } from '../src/domain/calendar.js';
import { createSimulator } from '../src/feed/simulator/simulator.js';
import { validateFeedEvent } from '../src/feed/validate.js';
import { toValidatedEvent } from '../src/ingest/to-validated-event.js';
import { reportSkipped, TEST_PG_URL, testSchemas } from '../src/store/postgres/test-schemas.js';
import { MEMORY, openSqliteStore } from '../src/store/sqlite/open-sqlite-store.js';
import type { MarketStore, ValidatedEvent } from '../src/store/store.js';
import { everyAnswer } from './store-answers.js';

reportSkipped('SQLite and PostgreSQL answer alike');
const schemas = testSchemas();

afterAll(async () => {
  if (TEST_PG_URL !== undefined) await schemas.dropAll();
});

/** Simulated trading days as validated events, one array per day. */
function simulatedDays(days: number, until: string): { dates: string[]; days: ValidatedEvent[][] } {
  const dates = lastTradingDays(days, until);
  const simulator = createSimulator({ seed: 11 });
  return {
    dates,
    days: dates.map((date) =>
      simulator.simulateDay(date).map((event) => {
        const result = validateFeedEvent(event);
        if (!result.ok) throw new Error(result.reason);
        return toValidatedEvent(result.event, result.contract);
      }),
    ),
  };
}

async function exported(store: MarketStore): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of store.events.lines()) lines.push(line);
  return lines;
}

describe.skipIf(TEST_PG_URL === undefined)('SQLite and PostgreSQL stores', () => {
  it('hold the same simulated history and answer every question alike', async () => {
    const { dates, days } = simulatedDays(3, '20250228');
    const sqlite = openSqliteStore(MEMORY);
    const postgres = await schemas.open();
    try {
      for (const events of days) {
        await sqlite.writer.append(events);
        await postgres.writer.append(events);
      }
      expect(await exported(postgres)).toEqual(await exported(sqlite));
      expect(await everyAnswer(postgres.reader, dates)).toEqual(await everyAnswer(sqlite.reader, dates));
      // same arrival, same event ids: the day revisions agree too
      expect(await postgres.reader.dayRevisions()).toEqual(await sqlite.reader.dayRevisions());
      expect(await postgres.reader.dayRevisions(days[0]?.length)).toEqual(
        await sqlite.reader.dayRevisions(days[0]?.length),
      );
    } finally {
      await sqlite.close();
      await postgres.close();
    }
  });
});
