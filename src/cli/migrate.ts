import type { Command } from 'commander';
import { describeLocation } from '../store/open-store.js';
import { type CliIo, PROCESS_IO, requireStore, storeOption, withStore } from './cli-io.js';

/**
 * `gridquote migrate`: creates a store's schema, or brings it up to this program's version
 * (docs/operations.md, "Upgrading" and "Running on PostgreSQL"). Opening a store for writing
 * does exactly that; the command opens one and does nothing else, so an operator can upgrade
 * the schema before rolling out servers, which only read and never migrate a PostgreSQL store.
 */
export function registerMigrate(program: Command, io: CliIo = PROCESS_IO): Command {
  return program
    .command('migrate')
    .description("create a store's schema or bring it up to this version of gridquote (one way)")
    .addOption(storeOption('the store: a SQLite file (created when missing) or a postgres:// URL'))
    .action(async (flags: { db?: string }) => {
      const db = requireStore('migrate', flags.db);
      await withStore(io, db, { access: 'write', create: true, purpose: 'for migrating' }, () => undefined);
      io.stderr.write(`${describeLocation(db)}: schema up to date\n`);
    });
}
