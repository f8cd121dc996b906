import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** The column types the writer loads, by their SQL names (migrations.ts). */
export type CopyType = 'smallint' | 'integer' | 'bigint' | 'text';

/**
 * Collects rows for one table and loads them with one COPY when flushed: a statement per event
 * would cost a round trip each, and COPY is the fastest way in (README.md). Callers flush
 * before anything reads the table, inside the transaction the rows belong to.
 *
 * Rows are encoded in COPY's binary format straight into buffers: no text per value to build
 * in the process and none to parse in the server, which made the text format's encoding a
 * sixth of the ingest's CPU time (docs/benchmarks.md, PostgreSQL). Each value is checked
 * against its column's type (an integer within the type's range, text a string), so a wrong
 * value throws here instead of being stored differently.
 */
export class CopyRows {
  private readonly types: readonly CopyType[];
  private readonly names: string;
  private chunks: Buffer[] = [];
  private buffer = EMPTY;
  private offset = 0;
  private rows = 0;

  constructor(
    private readonly table: string,
    columns: readonly (readonly [name: string, type: CopyType | string])[],
  ) {
    this.names = columns.map(([name]) => name).join(', ');
    this.types = columns.map(([name, type]) => {
      if (!isCopyType(type)) throw new Error(`column ${name} has a type COPY rows do not encode: ${type}`);
      return type;
    });
  }

  get size(): number {
    return this.rows;
  }

  /** One row, its values in the columns' order. */
  push(...values: (string | number | null)[]): void {
    this.pushRow(values);
  }

  /** The same, the row as an array (no array made per call). */
  pushRow(values: readonly (string | number | null)[]): void {
    const types = this.types;
    if (values.length !== types.length) {
      throw new Error(`${this.table}: ${values.length} values for ${types.length} columns`);
    }
    // Room for the row at once: a field count, and at most 12 bytes a field but text, whose
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    let bytes = 2 + 12 * types.length;
    for (const value of values) if (typeof value === 'string') bytes += 3 * value.length;
    this.reserve(bytes);
    this.offset = this.buffer.writeInt16BE(types.length, this.offset);
    for (let index = 0; index < types.length; index += 1)
      this.write(types[index] as CopyType, values[index] ?? null);
    this.rows += 1;
  }

  async flush(client: pg.ClientBase): Promise<void> {
    const rows = this.take();
    if (rows) await copyIn(client, rows);
  }

  /** The rows collected so far, taken out for a COPY sent later (copyIn); none: undefined. */
  take(): CopyData | undefined {
    if (this.rows === 0) return undefined;
    const chunks = [HEADER, ...this.chunks, this.buffer.subarray(0, this.offset), TRAILER];
    this.clear();
    return { statement: `COPY ${this.table} (${this.names}) FROM STDIN (FORMAT binary)`, chunks };
  }

  /** Drops rows not yet written (the transaction they belonged to failed). */
  clear(): void {
    this.chunks = [];
    this.buffer = EMPTY;
    this.offset = 0;
    this.rows = 0;
  }

  /** One value, into the room push reserved. */
  private write(columnType: CopyType, value: string | number | null): void {
    if (value === null) {
      this.offset = this.buffer.writeInt32BE(-1, this.offset);
      return;
    }
    if (columnType === 'text') {
      if (typeof value !== 'string') throw new TypeError(`${this.table}: text expected, got ${value}`);
      const written = this.buffer.write(value, this.offset + 4, 'utf8');
      this.buffer.writeInt32BE(written, this.offset);
      this.offset += 4 + written;
      return;
    }
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      throw new TypeError(`${this.table}: an exact integer expected, got ${value}`);
    }
    const buffer = this.buffer;
    switch (columnType) {
      case 'smallint':
        buffer.writeInt32BE(2, this.offset);
        this.offset = buffer.writeInt16BE(value, this.offset + 4);
        return;
      case 'integer':
        buffer.writeInt32BE(4, this.offset);
        this.offset = buffer.writeInt32BE(value, this.offset + 4);
        return;
      case 'bigint': {
        // two's complement in two halves: exact for every safe integer
        const high = Math.floor(value / 2 ** 32);
        buffer.writeInt32BE(8, this.offset);
        buffer.writeInt32BE(high, this.offset + 4);
        this.offset = buffer.writeUInt32BE(value - high * 2 ** 32, this.offset + 8);
        return;
      }
      default: {
        columnType satisfies never;
      }
    }
  }

  /**
   * Room for `bytes` more in the current buffer; a full one is kept and a new one started,
   * twice as large up to CHUNK_BYTES (a live append of a few events stays small).
   */
  private reserve(bytes: number): void {
    if (this.offset + bytes <= this.buffer.length) return;
    if (this.offset > 0) this.chunks.push(this.buffer.subarray(0, this.offset));
    const size = Math.min(CHUNK_BYTES, Math.max(FIRST_CHUNK_BYTES, this.buffer.length * 2));
    this.buffer = Buffer.allocUnsafe(Math.max(size, bytes));
    this.offset = 0;
  }
}

/** Rows taken out of a CopyRows: the COPY statement and its data. */
export interface CopyData {
  readonly statement: string;
  readonly chunks: readonly Buffer[];
}

export async function copyIn(client: pg.ClientBase, data: CopyData): Promise<void> {
  await pipeline(Readable.from(data.chunks), client.query(copyFrom(data.statement)));
}

const FIRST_CHUNK_BYTES = 4 * 1024;
const CHUNK_BYTES = 256 * 1024;
const EMPTY = Buffer.alloc(0);

/** The binary format's signature, flags (none) and header extension length (0). */
const HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** A field count of -1 ends the data. */
const TRAILER = Buffer.from([0xff, 0xff]);

function isCopyType(type: string): type is CopyType {
  return type === 'smallint' || type === 'integer' || type === 'bigint' || type === 'text';
}
