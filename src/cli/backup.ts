import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { storeKind } from '../store/open-store.js';
import { CliError, type CliIo, PROCESS_IO, requireStore, storeOption, withStore } from './cli-io.js';
import { asideOf, placed, removeAbandonedBuilds, removeSqliteFiles } from './new-file.js';

/**
 * `gridquote backup --db STORE FILE`: a copy of a SQLite store as it was at one moment, taken
 * while servers read it and an ingest writes it. A copy of the file itself is not one: the commits
 * still in its write-ahead log are missing from it, and a checkpoint during the copy tears it. The
 * copy is made aside and linked at FILE once whole, so FILE is either a complete store or absent.
 */
export async function backupStore(io: CliIo, db: string, file: string): Promise<void> {
  if (storeKind(db) !== 'sqlite') {
    throw new CliError(
      'backup copies a SQLite store; back up a PostgreSQL store with pg_dump (docs/operations.md, "Backups and read replicas")',
    );
  }
  if (existsSync(file)) throw new CliError(`${file} exists: backup writes a new file, never over another`);
  if (!existsSync(dirname(resolve(file)))) {
    throw new CliError(`no folder ${dirname(file)} for ${file}; create the folder first`);
  }
  removeAbandonedBuilds(resolve(file), 'backup', (line) => io.stderr.write(`${line}\n`));
  const started = performance.now();
  const building = asideOf(resolve(file), 'backup');
  try {
    await withStore(io, db, { access: 'read', purpose: 'for backup' }, async (store) => {
      if (store.copyTo === undefined) throw new CliError(`${db} cannot be copied by gridquote`);
      await store.copyTo(building);
    });
    if (!placed(building, file)) {
      throw new CliError(`another process created ${file} while the backup ran; nothing was written there`);
    }
  } finally {
    removeSqliteFiles(building);
  }
  // Read back from the copy: what it holds, and that it opens as a store.
  const { version, latest } = await withStore(io, file, { access: 'read' }, async (copy) => ({
    version: await copy.reader.version(),
    latest: await copy.reader.latestDate(),
  }));
  const megabytes = (statSync(file).size / 2 ** 20).toFixed(1);
  const ms = Math.round(performance.now() - started);
  io.stderr.write(
    `backed up ${db} to ${file}: version ${version}, trading days up to ${latest ?? 'none'}, ${megabytes} MiB in ${ms} ms\n`,
  );
}

export function registerBackup(program: Command, io: CliIo = PROCESS_IO): Command {
  return program
    .command('backup')
    .description('copy a SQLite store as it is now to a new file, while it is served and written')
    .addOption(storeOption('the store: a SQLite file'))
    .argument('<file>', 'the new file (it must not exist)')
    .action(async (file: string, flags: { db?: string }) => {
      await backupStore(io, requireStore('backup', flags.db), file);
    });
}
