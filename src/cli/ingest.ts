import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { ingestFile } from '../ingest/ingest-file.js';
import { DEFAULT_ACK_WAIT_MS, DEFAULT_BATCH_SIZE, DEFAULT_DURABLE } from '../ingest/nats/nats-ingest.js';
import { sqlitePath, storeKind } from '../store/open-store.js';
import { MEMORY } from '../store/sqlite/open-sqlite-store.js';
import { CliError, type CliIo, PROCESS_IO, requireStore, storeOption, withStore } from './cli-io.js';
import { runStreamIngest, type StreamIngestFlags } from './ingest-stream.js';
import { asideOf, placed, removeAbandonedBuilds, removeSqliteFiles } from './new-file.js';
import { createProgress } from './progress.js';
import { addStreamFlags, parseNatsUrl, parseWhole } from './stream-flags.js';

export function registerIngest(program: Command, io: CliIo = PROCESS_IO): Command {
  const command = program
    .command('ingest')
    .description(
      'load an NDJSON event feed (docs/feed-format.md) into a store, all or nothing; or consume the feed stream',
    )
    .addOption(storeOption('the store: a SQLite file (created when missing) or a postgres:// URL'))
    .argument('[feed]', "NDJSON file, or '-' for standard input")
    .option(
      '--from <url>',
      'instead of a file: consume the feed stream of this NATS server, nats://host:port or tls://host:port',
      parseNatsUrl,
    )
    .option('--durable <name>', 'with --from: durable consumer name', DEFAULT_DURABLE)
    .option(
      '--batch-size <n>',
      'with --from: most messages per transaction',
      parseWhole('messages', 1, 65_536),
      DEFAULT_BATCH_SIZE,
    )
    .option(
      '--ack-wait-ms <ms>',
      'with --from: unacknowledged messages are redelivered after this (set when the consumer is created)',
      parseWhole('milliseconds', 500, 3_600_000),
      DEFAULT_ACK_WAIT_MS,
    )
    .option(
      '--metrics-port <n>',
      'with --from: serve Prometheus metrics on 127.0.0.1:<n>/metrics (0: any free port)',
      parseWhole('a port', 0, 65_535),
    );
  return addStreamFlags(command)
    .addHelpText(
      'after',
      '\nA file: the whole input is one transaction: an invalid line or an event that contradicts a stored one\n' +
        'rejects all of it (up to 20 errors are listed) and the store is left as it was. Events\n' +
        'already stored with identical content are skipped, so a feed can be loaded again safely.\n' +
        '\n--from: runs until SIGTERM/SIGINT, one transaction per batch, each message acknowledged\n' +
        'after its commit; an invalid message is refused (terminated) with one log line. See\n' +
        'docs/operations.md, "Deployment: beyond one machine".',
    )
    .action(
      async (
        feed: string | undefined,
        flags: Omit<StreamIngestFlags, 'db' | 'from'> & { db?: string; from?: string },
      ) => {
        const db = requireStore('ingest', flags.db);
        if (flags.from !== undefined) {
          if (feed !== undefined) throw new CliError('ingest takes a FEED file or --from, not both');
          await runStreamIngest(io, { ...flags, db, from: flags.from });
          return;
        }
        if (feed === undefined)
          throw new CliError('ingest needs a FEED file, - for standard input, or --from nats://...');
        const progress = createProgress(io.stderr);
        const label = feed === '-' ? 'standard input' : feed;
        const file = sqliteFile(db);
        if (file !== undefined) removeAbandonedBuilds(file, 'ingest', (line) => io.stderr.write(`${line}\n`));
        // A new SQLite file is made aside and put in place once the feed is in (newStoreAside).
        const aside = file === undefined ? undefined : newStoreAside(file);
        const result = await withStore(
          io,
          aside?.building ?? db,
          { access: 'write', create: true },
          (store) =>
            ingestFile(store.writer, feed, {
              stdin: io.stdin,
              onProgress: (lines) => progress.update(`ingesting ${label}: ${lines} lines read`),
            }).catch((error: unknown) => {
              if (isMissingFile(error)) throw new CliError(`cannot read ${feed}: no such file`);
              throw error;
            }),
        )
          .catch((error: unknown) => {
            // All or nothing: a refused feed leaves no empty store behind for serve to start on.
            if (aside !== undefined) removeSqliteFiles(aside.building);
            throw error;
          })
          .finally(() => progress.done());
        if (aside !== undefined) putInPlace(aside);
        io.stderr.write(
          `ingested ${label}: ${result.added} events added, ${result.skipped} already stored\n`,
        );
      },
    );
}

interface StoreAside {
  /** Where the store is built: a file of this process's own, beside the target. */
  readonly building: string;
  readonly target: string;
}

/**
 * The SQLite file this ingest creates (none there yet, in a folder that exists), built under
 * another name: no other process can open it half made, and a refused feed removes only it. Were
 * it built in place, another process could open the new file meanwhile (another ingest, a
 * server) and commit to it, and the refusal would delete what that process had stored.
 */
function newStoreAside(target: string): StoreAside | undefined {
  if (existsSync(target) || !existsSync(dirname(target))) return undefined;
  return { building: asideOf(target, 'ingest'), target };
}

/** The SQLite file a store location names; undefined for PostgreSQL or a store in memory. */
function sqliteFile(location: string): string | undefined {
  if (storeKind(location) !== 'sqlite') return undefined;
  const path = sqlitePath(location);
  return path === MEMORY ? undefined : path;
}

/**
 * The store built aside, put at its name: link() does not replace a file, so a store another
 * process made there meanwhile is kept, and this one given up with a line saying so. The store is
 * closed by then, its write-ahead log merged into the file and gone; a log still there holds
 * commits the file lacks (a full disk failed the merge at close, which SQLite does not report),
 * and the file alone would be a broken store: nothing is put in place then.
 */
function putInPlace({ building, target }: StoreAside): void {
  try {
    if ((statSync(`${building}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) {
      throw new CliError(
        `could not finish ${target}: the new store's write-ahead log could not be merged into it (is the disk full?), so nothing was added; free some space and run the ingest again`,
      );
    }
    if (!placed(building, target)) {
      throw new CliError(
        `another process created ${target} while this ingest ran, so nothing was added to it; the feed is valid: run the ingest again to add it there`,
      );
    }
  } finally {
    removeSqliteFiles(building);
  }
}

function isMissingFile(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT';
}
