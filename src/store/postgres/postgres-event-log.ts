import type pg from 'pg';
import { dateToInt } from '../rows/ids.js';
import type { EventLog } from '../store.js';
import { checkOut } from './check-out.js';

/** Lines per page: an export holds one page in memory, never the whole stream. */
const PAGE = 5_000;

/**
 * The stored stream in (date, seq) order, read in pages by key (after the last (date, seq)
 * seen) inside one read-only REPEATABLE READ transaction: the export is one snapshot, as
 * SQLite's, even while a writer commits, and it holds one connection of the pool until done.
 */
export function createPostgresEventLog(pool: pg.Pool): EventLog {
  return {
    // One page of one date by its key (date, seq): what the event stream reads (http/stream/).
    async after(query) {
      const result = await pool.query({
        name: 'events-after',
        text: 'SELECT seq, line FROM events WHERE date = $1 AND seq > $2 ORDER BY seq LIMIT $3',
        values: [dateToInt(query.date), query.seq, query.limit],
        rowMode: 'array',
      });
      // seq is a bigint column (text from the driver); the feed keeps it within 1,000,000.
      return (result.rows as [string | number, string][]).map(([seq, line]) => ({ seq: Number(seq), line }));
    },
    async *lines(query) {
      const client = await checkOut(pool);
      let released = false;
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const only = query?.date === undefined ? null : dateToInt(query.date);
        let after: [number, number] = [only ?? -1, -1];
        for (;;) {
          const page = await client.query({
            text: `SELECT date, seq, line FROM events
              WHERE ($1::integer IS NULL OR date = $1) AND (date, seq) > ($2, $3)
              ORDER BY date, seq LIMIT ${PAGE}`,
            values: [only, after[0], after[1]],
            rowMode: 'array',
          });
          const rows = page.rows as [number, number, string][];
          for (const [, , line] of rows) yield line;
          const last = rows.at(-1);
          if (!last || rows.length < PAGE) break;
          after = [last[0], last[1]];
        }
        await client.query('COMMIT');
      } catch (error) {
        client.release(true);
        released = true;
        throw error;
      } finally {
        // An export stopped early (the consumer broke off) ends its transaction here.
        if (!released) {
          await client.query('ROLLBACK').catch(() => undefined);
          client.release();
        }
      }
    },
  };
}
