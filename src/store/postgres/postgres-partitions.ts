import type pg from 'pg';

/** The tables partitioned by range of trading date, one partition per month (migrations.ts). */
const PARTITIONED = ['events', 'ticks', 'trades'] as const;

/**
 * Creates the monthly partitions a batch's dates need, inside the batch's transaction (a batch
 * that rolls back leaves none). The partition is created as a table of its own and then
 * attached: ATTACH takes a lock that readers and other writers' inserts do not wait for, where
 * CREATE TABLE ... PARTITION OF would lock the whole table out for the rest of the batch. The
 * months known to exist are remembered; `forget` after a failed transaction.
 */
export class Partitions {
  private known = new Set<number>();

  /** Whether every date's month is known to have its partitions (then ensure has nothing to do). */
  cover(dates: Iterable<number>): boolean {
    for (const date of dates) if (!this.known.has(Math.floor(date / 100))) return false;
    return true;
  }

  async ensure(client: pg.ClientBase, dates: Iterable<number>): Promise<void> {
    const months = new Set<number>();
    for (const date of dates) {
      const month = Math.floor(date / 100);
      if (!this.known.has(month)) months.add(month);
    }
    if (months.size === 0) return;
    const existing = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i
        JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
        WHERE p.oid = 'events'::regclass`,
    );
    const present = new Set(existing.rows.map((row) => row.name));
    for (const month of [...months].sort()) {
      if (!present.has(`events_${month}`)) {
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
      this.known.add(month);
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
