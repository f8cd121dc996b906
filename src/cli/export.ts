import { once } from 'node:events';
import { type Command, InvalidArgumentError } from 'commander';
import { isValidDate } from '../domain/dates.js';
import { type CliIo, PROCESS_IO, requireStore, storeOption, withStore } from './cli-io.js';

/** Lines are written in blocks of about this many characters: fewer writes, bounded memory. */
const BLOCK = 64 * 1024;

/**
 * Writes the stored event stream as canonical NDJSON, by date then seq: the same store gives
 * the same bytes, and ingesting the output into an empty store rebuilds the same views.
 */
export async function exportEvents(io: CliIo, db: string, date?: string): Promise<number> {
  // A reader that goes away (`| head`) ends the export quietly, as for any Unix filter.
  let closed = false;
  const onError = (error: Error) => {
    if (isBrokenPipe(error)) closed = true;
  };
  io.stdout.on('error', onError);
  try {
    return await withStore(io, db, { access: 'read', purpose: 'for export' }, async (store) => {
      let block = '';
      let count = 0;
      for await (const line of store.events.lines(date === undefined ? {} : { date })) {
        block += `${line}\n`;
        count += 1;
        if (block.length >= BLOCK) {
          // back-pressure: a slow pipe never makes the export buffer everything
          if (!io.stdout.write(block)) await once(io.stdout, 'drain');
          block = '';
          if (closed) break;
        }
      }
      if (block.length > 0 && !closed) io.stdout.write(block);
      return count;
    });
  } catch (error) {
    if (error instanceof Error && isBrokenPipe(error)) return 0;
    throw error;
  } finally {
    // after a broken pipe, later write errors may still arrive: keep swallowing them
    if (!closed) io.stdout.off('error', onError);
  }
}

export function registerExport(program: Command, io: CliIo = PROCESS_IO): Command {
  return program
    .command('export')
    .description('write the stored event stream as NDJSON on stdout, ordered by date then seq')
    .addOption(storeOption('the store: a SQLite file or a postgres:// URL'))
    .option('--date <yyyyMMdd>', 'only the events of this date', parseDate)
    .action(async (flags: { db?: string; date?: string }) => {
      await exportEvents(io, requireStore('export', flags.db), flags.date);
    });
}

function isBrokenPipe(error: Error): boolean {
  return 'code' in error && error.code === 'EPIPE';
}

function parseDate(text: string): string {
  if (!isValidDate(text)) throw new InvalidArgumentError('expected a date yyyyMMdd');
  return text;
}
