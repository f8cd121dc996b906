import type pg from 'pg';

/** The tables partitioned by range of trading date, one partition per month (migrations.ts). */
const PARTITIONED = ['events', 'ticks', 'trades'] as const;

/**
 * Creates the monthly partitions a batch's dates need, inside the batch's transaction (a batch
 * that rolls back leaves none). The partition is created as a table of its own and then
 * attached: ATTACH takes a lock that readers and other writers' inserts do not wait for, where
 * CREATE TABLE ... PARTITION OF would lock the whole table out for the rest of the batch. The
 * writer claims the months as it meets them and queues their creation ahead of their rows, so
 * it need not wait for the server; `forget` after a failed transaction.
 */
export class Partitions {
  private known = new Set<number>();

  /** The months of these dates not claimed since the last forget, now claimed, in order. */
  claim(dates: Iterable<number>): number[] {
    const months = new Set<number>();
    for (const date of dates) {
      const month = Math.floor(date / 100);
      if (!this.known.has(month)) months.add(month);
    }
    for (const month of months) this.known.add(month);
    return [...months].sort();
  }

  /** Creates the partitions of the months claimed that do not exist yet. */
  async create(client: pg.ClientBase, months: readonly number[]): Promise<void> {
    const existing = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i
        JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
        WHERE p.oid = 'events'::regclass`,
    );
    const present = new Set(existing.rows.map((row) => row.name));
    for (const month of months) {
      if (present.has(`events_${month}`)) continue;
      const from = month * 100;
      const to = nextMonth(month) * 100;
      for (const table of PARTITIONED) {
        const partition = `${table}_${month}`;
        await client.query(
          `CREATE TABLE ${partition} (LIKE ${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`,
        );
        await client.query(
          `ALTER TABLE ${table} ATTACH PARTITION ${partition} FOR VALUES FROM (${from}) TO (${to})`,
        );
      }
    }
  }

  forget(): void {
    this.known = new Set();
  }
}

/** yyyyMM of the month after. */
function nextMonth(month: number): number {
  return month % 100 === 12 ? (Math.floor(month / 100) + 1) * 100 + 1 : month + 1;
}
