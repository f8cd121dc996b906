import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { EVENT_COLUMNS } from '../rows/event-rows.js';
import { CopyRows } from './copy-rows.js';

/**
 * The floor any PostgreSQL event log is measured against (src/bench): the same lines COPYed
 * into a bare (date, seq, id, type, line) table keyed like the event log, in a schema of its
 * own that drop() removes. Here because only store adapters talk to a database.
 */
export async function bareCopyTable(url: string) {
  const schema = `gq_bench_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`SET search_path = ${schema}`);
  let id = 0;
  const rowsOf = (events: readonly { date: string; seq: number; type: string; line: string }[]) => {
    const rows = new CopyRows('events', EVENT_COLUMNS);
    for (const event of events) rows.push(Number(event.date), event.seq, ++id, event.type, event.line);
    return rows;
  };
  return {
    /** A new, empty table (each measured load starts from one, as each store does). */
    async empty(): Promise<void> {
      id = 0;
      await client.query('DROP TABLE IF EXISTS events');
      await client.query(
        'CREATE TABLE events (date integer, seq bigint, id bigint, type text, line text, PRIMARY KEY (date, seq))',
      );
    },
    /** One transaction and one COPY for the group (a trading day, or a whole file). */
    async load(group: readonly { date: string; seq: number; type: string; line: string }[]): Promise<void> {
      const rows = rowsOf(group);
      await client.query('BEGIN');
      await rows.flush(client);
      await client.query('COMMIT');
    },
    async drop(): Promise<void> {
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}
