import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { EVENT_COLUMNS } from '../rows/event-rows.js';
import { CopyRows } from './copy-rows.js';

/**
 * The floor any PostgreSQL event log is measured against (src/bench): the same lines COPYed
 * into a bare (date, seq, id, type, line) table keyed like the event log, in a schema of its
 * own that drop() removes. Here because only store adapters talk to a database.
 *
 * Each table is loaded on a connection of its own, opened with it, as a store just opened
 * loads on its own new connections. A server backend pays a page fault for each page of the
 * shared buffers it touches first; one kept from an earlier round had mostly paid already: in
 * the bench's order, its loads took 100-450 faults and 150-220 ms of server CPU where a new
 * connection's took 2,000-11,000 faults and 250-360 ms (docs/benchmarks.md, PostgreSQL).
 */
export async function bareCopyTable(url: string) {
  const schema = `gq_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  let client: pg.Client | undefined;
  let id = 0;
  const rowsOf = (events: readonly { date: string; seq: number; type: string; line: string }[]) => {
    const rows = new CopyRows('events', EVENT_COLUMNS);
    for (const event of events) rows.push(Number(event.date), event.seq, ++id, event.type, event.line);
    return rows;
  };
  return {
    /** A new, empty table on a new connection (each measured load starts from one, as each store does). */
    async empty(): Promise<void> {
      await client?.end();
      client = undefined;
      id = 0;
      const next = new pg.Client({ connectionString: url });
      await next.connect();
      client = next;
      await next.query(`SET search_path = ${schema}`);
      await next.query('DROP TABLE IF EXISTS events');
      await next.query(
        'CREATE TABLE events (date integer, seq bigint, id bigint, type text, line text, PRIMARY KEY (date, seq))',
      );
    },
    /** One transaction and one COPY for the group (a trading day, or a whole file). */
    async load(group: readonly { date: string; seq: number; type: string; line: string }[]): Promise<void> {
      if (client === undefined) throw new Error('bareCopyTable: load() before empty()');
      const rows = rowsOf(group);
      await client.query('BEGIN');
      await rows.flush(client);
      await client.query('COMMIT');
    },
    async drop(): Promise<void> {
      await client?.end();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}
