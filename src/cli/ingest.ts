import type { Command } from 'commander';
import { ingestFile } from '../ingest/ingest-file.js';
import { CliError, type CliIo, PROCESS_IO, requireStore, storeOption, withStore } from './cli-io.js';
import { createProgress } from './progress.js';

export function registerIngest(program: Command, io: CliIo = PROCESS_IO): Command {
  return program
    .command('ingest')
    .description('load an NDJSON event feed (docs/feed-format.md) into a store, all or nothing')
    .addOption(storeOption('the store: a SQLite file (created when missing) or a postgres:// URL'))
    .argument('<feed>', "NDJSON file, or '-' for standard input")
    .addHelpText(
      'after',
      '\nThe whole input is one transaction: an invalid line or an event that contradicts a stored one\n' +
        'rejects all of it (up to 20 errors are listed) and the store is left as it was. Events\n' +
        'already stored with identical content are skipped, so a feed can be loaded again safely.',
    )
    .action(async (feed: string, flags: { db?: string }) => {
      const db = requireStore('ingest', flags.db);
      const progress = createProgress(io.stderr);
      const label = feed === '-' ? 'standard input' : feed;
      const result = await withStore(io, db, { access: 'write', create: true }, (store) =>
        ingestFile(store.writer, feed, {
          stdin: io.stdin,
          onProgress: (lines) => progress.update(`ingesting ${label}: ${lines} lines read`),
        }).catch((error: unknown) => {
          if (isMissingFile(error)) throw new CliError(`cannot read ${feed}: no such file`);
          throw error;
        }),
      ).finally(() => progress.done());
      io.stderr.write(`ingested ${label}: ${result.added} events added, ${result.skipped} already stored\n`);
    });
}

function isMissingFile(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT';
}
