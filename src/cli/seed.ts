import { type Command, InvalidArgumentError } from 'commander';
import { lastCompletedTradingDay, lastTradingDays } from '../domain/calendar.js';
import { isValidDate } from '../domain/dates.js';
import { simulateHistory } from '../feed/simulator/simulator.js';
import { IngestError } from '../ingest/ingest-error.js';
import { ingestDays } from '../ingest/ingest-events.js';
import { EventConflictError } from '../store/event-conflict-error.js';
import { describeLocation } from '../store/open-store.js';
import { CliError, type CliIo, PROCESS_IO, requireStore, storeOption, withStore } from './cli-io.js';
import { createProgress } from './progress.js';

export interface SeedOptions {
  readonly db: string;
  readonly days: number;
  /** Last trading day of the history (or the trading day before it). */
  readonly until: string;
  readonly seed: number;
}

export interface SeedResult {
  readonly dates: readonly string[];
  readonly added: number;
  readonly skipped: number;
}

/**
 * Seeds a store with a simulated history through the ingest path, one transaction per day.
 * The simulator is deterministic, so the same arguments give the same events: seeding again
 * adds nothing, and an interrupted seed can simply be run again.
 */
export async function seedStore(io: CliIo, options: SeedOptions): Promise<SeedResult> {
  const dates = historyDates(options, lastCompletedTradingDay(io.now()));
  const progress = createProgress(io.stderr);
  let added = 0;
  let skipped = 0;
  await withStore(io, options.db, { access: 'write', create: true }, async (store) => {
    // The next day is simulated while the store commits the one before (ingestDays).
    const days = (function* () {
      for (const { events } of simulateHistory({ seed: options.seed }, dates)) yield events;
    })();
    await ingestDays(store.writer, days, (result, index) => {
      added += result.added;
      skipped += result.skipped;
      progress.update(`seeding ${dates[index]} (${index + 1}/${dates.length} days, ${added} events)`);
    }).catch((error: unknown) => {
      throw otherHistory(error, added) ?? error;
    });
  });
  progress.done();
  return { dates, added, skipped };
}

/**
 * The trading days of the history, refused before any store is opened when they cannot be one: a
 * seeded day is a whole day, its settlement included, so it must be over on the exchange clock
 * (a day still trading comes from a feed: the demo's, or `ingest`); and the dates the feed
 * takes start in 2000.
 */
function historyDates(options: SeedOptions, lastCompleted: string): string[] {
  const dates = lastTradingDays(options.days, options.until);
  if (!isValidDate(dates[0] ?? '')) {
    throw new CliError(
      `${options.days} trading days up to ${options.until} would start in 1999, and the feed's dates run from 2000: ` +
        'ask for fewer --days or a later --until',
    );
  }
  const last = dates.at(-1) ?? options.until;
  if (last > lastCompleted) {
    throw new CliError(
      `--until ${options.until} names a trading day (${last}) that is not over yet: the last completed one is ` +
        `${lastCompleted}. A seeded day is a whole day, its settlement included; a day still trading comes from a feed (demo, ingest)`,
    );
  }
  return dates;
}

/**
 * A day the store holds with other events: seeded before with other arguments (or ingested).
 * Each simulated day follows from the days before it, so a history that starts on another day
 * or with another seed differs everywhere; say so, and how to make a longer one.
 */
function otherHistory(error: unknown, added: number): CliError | undefined {
  const conflict = error instanceof IngestError ? error.cause : undefined;
  if (!(conflict instanceof EventConflictError)) return undefined;
  return new CliError(
    `the store already holds other events for ${conflict.date} (event ${conflict.date}/${conflict.seq} differs): ` +
      'it was seeded with other --days, --until or --seed, or filled otherwise. Seeding again with the same ' +
      'arguments adds nothing; a longer history must start on the same first day with the same seed (each day ' +
      `follows from the ones before it), or go into a new store. ${added} events of earlier days were added.`,
  );
}

export function registerSeed(program: Command, io: CliIo = PROCESS_IO): Command {
  return program
    .command('seed')
    .description('fill a store with a simulated market history (deterministic for a seed)')
    .addOption(storeOption('the store: a SQLite file (created when missing) or a postgres:// URL'))
    .option('--days <n>', 'number of trading days', parseCount, 60)
    .option(
      '--until <yyyyMMdd>',
      'last day of the history (default: the last completed trading day)',
      parseDate,
    )
    .option('--seed <n>', 'simulator seed', parseSeed, 1)
    .addHelpText(
      'after',
      '\nSeeding is idempotent: the same arguments produce the same events, so running it again on a\n' +
        'store that holds them adds nothing (and completes an interrupted seed). A history that\n' +
        'disagrees with stored events (another seed, other days) is refused and nothing is added.',
    )
    .action(async (flags: { db?: string; days: number; until?: string; seed: number }) => {
      const db = requireStore('seed', flags.db);
      const until = flags.until ?? lastCompletedTradingDay(io.now());
      const result = await seedStore(io, { db, days: flags.days, until, seed: flags.seed });
      const first = result.dates[0] ?? until;
      const last = result.dates.at(-1) ?? until;
      io.stderr.write(
        `seeded ${describeLocation(db)}: ${result.dates.length} trading days ${first}..${last} (seed ${flags.seed}), ` +
          `${result.added} events added, ${result.skipped} already stored\n`,
      );
    });
}

function parseCount(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > 10_000) {
    throw new InvalidArgumentError('expected a whole number of days from 1 to 10000');
  }
  return value;
}

function parseSeed(text: string): number {
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value))
    throw new InvalidArgumentError('expected an integer');
  return value;
}

function parseDate(text: string): string {
  if (!isValidDate(text)) throw new InvalidArgumentError('expected a date yyyyMMdd');
  return text;
}
