import type pg from 'pg';

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
  /** The columns holding text, whose room depends on the value. */
  private readonly textColumns: readonly number[];
  /** Room for a row but its text: the field count, and each field's length and fixed-size value. */
  private readonly fixedBytes: number;
  private readonly statement: string;
  private chunks: Buffer[] = [];
  private buffer = EMPTY;
  private offset = 0;
  private rows = 0;

  constructor(
    private readonly table: string,
    columns: readonly (readonly [name: string, type: CopyType | string])[],
  ) {
    this.types = columns.map(([name, type]) => {
      if (!isCopyType(type)) throw new Error(`column ${name} has a type COPY rows do not encode: ${type}`);
      return type;
    });
    this.textColumns = this.types.flatMap((type, index) => (type === 'text' ? [index] : []));
    this.fixedBytes = 2 + this.types.reduce((sum, type) => sum + 4 + VALUE_BYTES[type], 0);
    const names = columns.map(([name]) => name).join(', ');
    this.statement = `COPY ${table} (${names}) FROM STDIN (FORMAT binary)`;
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
    const count = types.length;
    if (values.length !== count) {
      throw new Error(`${this.table}: ${values.length} values for ${count} columns`);
    }
    // Room for the row at once; text's UTF-8 takes at most 3 bytes per UTF-16 unit.
    let bytes = this.fixedBytes;
    for (const column of this.textColumns) {
      const value = values[column];
      if (typeof value === 'string') bytes += 3 * value.length;
    }
    this.reserve(bytes);
    const buffer = this.buffer;
    let offset = this.offset;
    buffer[offset] = count >> 8;
    buffer[offset + 1] = count & 0xff;
    offset += 2;
    for (let column = 0; column < count; column += 1) {
      const value = values[column] ?? null;
      if (value === null) {
        writeInt32(buffer, offset, -1);
        offset += 4;
      } else if (typeof value === 'string') {
        if (types[column] !== 'text')
          throw new TypeError(`${this.table}: an exact integer expected, got ${value}`);
        const written = buffer.write(value, offset + 4, 'utf8');
        writeInt32(buffer, offset, written);
        offset += 4 + written;
      } else {
        offset = this.writeInteger(types[column] as CopyType, value, offset);
      }
    }
    this.offset = offset;
    this.rows += 1;
  }

  async flush(client: pg.ClientBase): Promise<void> {
    const rows = this.take();
    if (rows) await runCopyScript(client, [rows]);
  }

  /** The rows collected so far, taken out for a COPY sent later (runCopyScript); none: undefined. */
  take(): CopyData | undefined {
    if (this.rows === 0) return undefined;
    const chunks = [HEADER, ...this.chunks, this.buffer.subarray(0, this.offset), TRAILER];
    this.clear();
    return { statement: this.statement, chunks };
  }

  /** Drops rows not yet written (the transaction they belonged to failed). */
  clear(): void {
    this.chunks = [];
    this.buffer = EMPTY;
    this.offset = 0;
    this.rows = 0;
  }

  /** An integer value with its length, into the room pushRow reserved; the offset after it. */
  private writeInteger(columnType: CopyType, value: number, offset: number): number {
    if (!Number.isSafeInteger(value)) {
      throw new TypeError(`${this.table}: an exact integer expected, got ${value}`);
    }
    const buffer = this.buffer;
    switch (columnType) {
      case 'smallint':
        if (value < -0x8000 || value > 0x7fff)
          throw new RangeError(`${this.table}: ${value} is not a smallint`);
        writeInt32(buffer, offset, 2);
        buffer[offset + 4] = (value >> 8) & 0xff;
        buffer[offset + 5] = value & 0xff;
        return offset + 6;
      case 'integer':
        if (value < -0x80000000 || value > 0x7fffffff) {
          throw new RangeError(`${this.table}: ${value} is not an integer`);
        }
        writeInt32(buffer, offset, 4);
        writeInt32(buffer, offset + 4, value);
        return offset + 8;
      case 'bigint': {
        // two's complement in two halves: exact for every safe integer
        const high = Math.floor(value / 2 ** 32);
        writeInt32(buffer, offset, 8);
        writeInt32(buffer, offset + 4, high);
        writeInt32(buffer, offset + 8, value - high * 2 ** 32);
        return offset + 12;
      }
      case 'text':
        throw new TypeError(`${this.table}: text expected, got ${value}`);
      default:
        return columnType satisfies never;
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

/**
 * Four bytes, big-endian, of an int32 or uint32 value (callers check the range): plain byte
 * stores, which cost a fraction of Buffer's checked writeInt32BE at millions of values.
 */
function writeInt32(buffer: Buffer, offset: number, value: number): void {
  buffer[offset] = value >>> 24;
  buffer[offset + 1] = (value >>> 16) & 0xff;
  buffer[offset + 2] = (value >>> 8) & 0xff;
  buffer[offset + 3] = value & 0xff;
}

/** Rows taken out of a CopyRows: the COPY statement and its data. */
export interface CopyData {
  readonly statement: string;
  readonly chunks: readonly Buffer[];
}

/** Statements run as one: SQL text, and COPYs whose data follow (runCopyScript). */
export type CopyScript = readonly (string | CopyData)[];

/**
 * Runs the statements as one query, in one round trip: the statements go as one simple query
 * and every COPY's data and end right behind it, without waiting for the server to ask for
 * them (pg-copy-streams waits for each COPY's CopyInResponse and then its ReadyForQuery, two
 * round trips each, which the writer's process cannot answer while it builds the next rows).
 * The server reads the messages in order; if a statement fails, it drops the rest of the query
 * and ignores the data still coming (the protocol's rule), and the promise rejects.
 */
export async function runCopyScript(client: pg.ClientBase, script: CopyScript): Promise<void> {
  const query = new CopyScriptQuery(script);
  client.query(query);
  await query.done;
}

/** node-postgres's Submittable for runCopyScript: it writes the query and its data itself. */
class CopyScriptQuery {
  readonly done: Promise<void>;
  private settle: (error?: Error) => void = () => undefined;

  constructor(private readonly script: CopyScript) {
    this.done = new Promise((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve());
    });
  }

  submit(connection: {
    query(text: string): void;
    stream: NodeJS.WritableStream & { cork(): void; uncork(): void };
  }) {
    const { stream } = connection;
    stream.cork();
    connection.query(
      this.script.map((step) => (typeof step === 'string' ? step : step.statement)).join('; '),
    );
    for (const step of this.script) {
      if (typeof step === 'string') continue;
      for (const chunk of step.chunks) {
        const header = Buffer.allocUnsafe(5);
        header[0] = COPY_DATA;
        writeInt32(header, 1, chunk.length + 4);
        stream.write(header);
        stream.write(chunk);
      }
      stream.write(COPY_DONE);
    }
    stream.uncork();
  }

  /** The data went out with the query. */
  handleCopyInResponse(): void {}

  handleCommandComplete(): void {}

  handleReadyForQuery(): void {
    this.settle();
  }

  handleError(error: Error): void {
    this.settle(error);
  }

  /** node-postgres looks for it (and sets it for a query timeout); the promise reports instead. */
  callback(): void {}
}

const COPY_DATA = 0x64;
/** CopyDone: 'c' and its length, 4. */
const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]);

const VALUE_BYTES: Readonly<Record<CopyType, number>> = { smallint: 2, integer: 4, bigint: 8, text: 0 };
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
