import { testStoreKind } from '../src/config.js';
import { lastTradingDays } from '../src/domain/calendar.js';
import { createSimulator, type Simulator } from '../src/feed/simulator/simulator.js';
import { ingestEvents, validateEvents } from '../src/ingest/ingest-events.js';
import { testSchemas } from '../src/store/postgres/test-schemas.js';
import { MEMORY, openSqliteStore } from '../src/store/sqlite/open-sqlite-store.js';
import type { MarketStore } from '../src/store/store.js';

export interface SeededStoreOptions {
  readonly seed?: number;
  /** Trading days to simulate. */
  readonly days?: number;
  /** Last day of the history (a non-trading day ends it at the trading day before). */
  readonly until?: string;
  /** A SQLite file; in memory by default. */
  readonly path?: string;
}

export interface SeededStore {
  readonly store: MarketStore;
  /** The simulated trading days, ascending. */
  readonly dates: readonly string[];
  /** The simulator that made them; it can go on with later days (live tests). */
  readonly simulator: Simulator;
}

/**
 * An empty store of the kind the suites run over (testStoreKind): SQLite in memory, or a
 * PostgreSQL store in a fresh schema that its close() drops.
 */
export async function openTestStore(): Promise<MarketStore> {
  if (testStoreKind() === 'sqlite') return openSqliteStore(MEMORY);
  const schemas = testSchemas();
  const store = await schemas.open();
  return {
    ...store,
    async close() {
      await store.close();
      await schemas.dropAll();
    },
  };
}

/**
 * seededStore over the suites' store kind (openTestStore), or over the SQLite file `path`;
 * asynchronous, each day awaited.
 */
export async function seededTestStore(options: SeededStoreOptions = {}): Promise<SeededStore> {
  if (options.path !== undefined || testStoreKind() === 'sqlite') return seededStore(options);
  const { seed = 7, days = 3, until = '20250228' } = options;
  const store = await openTestStore();
  const dates = lastTradingDays(days, until);
  const simulator = createSimulator({ seed });
  for (const date of dates) await ingestEvents(store.writer, simulator.simulateDay(date));
  return { store, dates, simulator };
}

/**
 * A real store filled with simulated trading days through the ingest's validation and one
 * append a day. Synchronous for the tests' convenience: the SQLite adapter stores an append
 * when it is called (its promise only reports), and a refusal would surface as an unhandled
 * rejection, which fails the run. (ingestEvents appends a long day in parts within a write
 * batch, each part awaited, so it is not synchronous.)
 */
export function seededStore(options: SeededStoreOptions = {}): SeededStore {
  const { seed = 7, days = 3, until = '20250228', path = MEMORY } = options;
  const store = openSqliteStore(path);
  const dates = lastTradingDays(days, until);
  const simulator = createSimulator({ seed });
  for (const date of dates) void store.writer.append(validateEvents(simulator.simulateDay(date)));
  return { store, dates, simulator };
}
