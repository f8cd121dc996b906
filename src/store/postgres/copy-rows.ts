import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { copyValue } from './postgres-types.js';

/**
 * Collects rows for one table and loads them with one COPY when flushed: a statement per event
 * would cost a round trip each, and COPY is the fastest way in (README.md). Callers flush
 * before anything reads the table, inside the transaction the rows belong to.
 */
export class CopyRows {
  private lines: string[] = [];

  constructor(
    private readonly table: string,
    private readonly columns: readonly string[],
  ) {}

  get size(): number {
    return this.lines.length;
  }

  /**
   * One row, its values in the columns' order. Built by concatenation, without an array per
   * row: at tens of thousands of rows a batch the per-value map and join showed in the profile
   * (docs/benchmarks.md, PostgreSQL).
   */
  push(...values: (string | number | null)[]): void {
    let line = copyValue(values[0] ?? null);
    for (let index = 1; index < values.length; index += 1) line += `\t${copyValue(values[index] ?? null)}`;
    this.lines.push(`${line}\n`);
  }

  async flush(client: pg.ClientBase): Promise<void> {
    if (this.lines.length === 0) return;
    const lines = this.lines;
    this.lines = [];
    const target = client.query(copyFrom(`COPY ${this.table} (${this.columns.join(', ')}) FROM STDIN`));
    await pipeline(Readable.from(chunks(lines)), target);
  }

  /** Drops rows not yet written (the transaction they belonged to failed). */
  clear(): void {
    this.lines = [];
  }
}

/** About 1000 lines a write: few stream writes, and no string of the whole load at once. */
function* chunks(lines: readonly string[]): Generator<string> {
  for (let start = 0; start < lines.length; start += 1000) yield lines.slice(start, start + 1000).join('');
}
