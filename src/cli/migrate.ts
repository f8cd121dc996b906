import type { Command } from 'commander';
import { describeLocation } from '../store/open-store.js';
import type { SchemaReport } from '../store/store.js';
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
      let report: SchemaReport | undefined;
      const onSchema = (made: SchemaReport) => {
        report = made;
      };
      await withStore(
        io,
        db,
        { access: 'write', create: true, purpose: 'for migrating', onSchema },
        () => undefined,
      );
      io.stderr.write(`${describeLocation(db)}: ${schemaLine(report)}\n`);
    });
}

/** What migrating did, in words: created, upgraded, or nothing to do. */
function schemaLine(report: SchemaReport | undefined): string {
  if (report === undefined) return 'schema up to date';
  const { applied, version } = report;
  const first = applied[0];
  if (first === undefined) return `schema up to date (version ${version})`;
  if (first === 1) return `schema created (version ${version})`;
  return `schema upgraded from version ${first - 1} to ${version}`;
}
