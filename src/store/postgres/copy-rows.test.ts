import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { CopyRows, runCopyScript } from './copy-rows.js';
import { EXACT_TYPES } from './postgres-types.js';
import { reportSkipped, TEST_PG_URL, testSchemas } from './test-schemas.js';

reportSkipped('COPY rows tests');
const schemas = testSchemas();

afterAll(async () => {
  if (TEST_PG_URL !== undefined) await schemas.dropAll();
});

describe('COPY rows', () => {
  it('refuses a value its column type cannot hold exactly', () => {
    const rows = new CopyRows('t', [
      ['a', 'smallint'],
      ['b', 'bigint'],
      ['c', 'text'],
    ]);
    expect(() => rows.push(40_000, 1, 'x')).toThrow(RangeError);
    expect(() => rows.push(1, 2 ** 53, 'x')).toThrow(TypeError);
    expect(() => rows.push(1, 1.5, 'x')).toThrow(TypeError);
    expect(() => rows.push(1, 1, 7)).toThrow(TypeError);
    expect(() => rows.push(1, 1)).toThrow(/2 values for 3 columns/);
  });
});

describe.skipIf(TEST_PG_URL === undefined)('COPY rows into PostgreSQL', () => {
  it('stores every value exactly: integer edges, nulls, separators and any text', async () => {
    const schema = schemas.name();
    const client = new pg.Client({ connectionString: TEST_PG_URL, types: EXACT_TYPES });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA ${schema}; SET search_path = ${schema}`);
      await client.query('CREATE TABLE t (n integer, s smallint, i integer, b bigint, x text)');
      const rows = new CopyRows('t', [
        ['n', 'integer'],
        ['s', 'smallint'],
        ['i', 'integer'],
        ['b', 'bigint'],
        ['x', 'text'],
      ]);
      const values: (string | number | null)[][] = [
        [1, -32_768, -2_147_483_648, -(2 ** 53 - 1), 'tab\there, line\nbreak, back\\slash, \\N'],
        [2, 32_767, 2_147_483_647, 2 ** 53 - 1, 'ünïcödé ⚡ 𝄞'],
        [3, 0, 0, -1, ''],
        [4, null, null, -(2 ** 32), null],
        [5, 1, 1, 2 ** 32 + 5, '{"q":"\\"quoted\\""}'],
      ];
      // more than one buffer's worth, so rows cross chunk boundaries
      for (let n = 6; n < 20_000; n += 1) values.push([n, n % 100, n * 7, n * 2 ** 33, `row ${n}`]);
      for (const row of values) rows.push(...row);
      expect(rows.size).toBe(values.length);
      await client.query('BEGIN');
      await rows.flush(client);
      await client.query('COMMIT');
      expect(rows.size).toBe(0);
      const stored = await client.query({ text: 'SELECT n, s, i, b, x FROM t ORDER BY n', rowMode: 'array' });
      expect(stored.rows).toEqual(values);
    } finally {
      await client.end();
    }
  });

  it('runs COPYs and statements as one, and after a failing one leaves the connection usable', async () => {
    const schema = schemas.name();
    const client = new pg.Client({ connectionString: TEST_PG_URL, types: EXACT_TYPES });
    await client.connect();
    const rowsOf = (table: string, values: number[]) => {
      const rows = new CopyRows(table, [['n', 'integer']]);
      for (const value of values) rows.push(value);
      return rows.take() ?? { statement: 'never', chunks: [] };
    };
    const stored = async (table: string) =>
      (await client.query({ text: `SELECT n FROM ${table} ORDER BY n`, rowMode: 'array' })).rows.flat();
    try {
      await client.query(`CREATE SCHEMA ${schema}; SET search_path = ${schema}`);
      await client.query('CREATE TABLE a (n integer PRIMARY KEY); CREATE TABLE b (n integer)');
      await client.query('BEGIN');
      await runCopyScript(client, [
        rowsOf('a', [1, 2, 3]),
        'INSERT INTO b SELECT n * 10 FROM a',
        rowsOf('b', [7]),
      ]);
      await client.query('COMMIT');
      expect(await stored('a')).toEqual([1, 2, 3]);
      expect(await stored('b')).toEqual([7, 10, 20, 30]);

      // The second COPY fails (a duplicate key): the third does not run, its data are dropped
      // by the server, and the statements after the rollback are answered in order.
      await client.query('BEGIN');
      const failing = runCopyScript(client, [rowsOf('b', [8]), rowsOf('a', [4, 1]), rowsOf('b', [9])]);
      await expect(failing).rejects.toThrow(/duplicate key/);
      await client.query('ROLLBACK');
      expect(await stored('a')).toEqual([1, 2, 3]);
      expect(await stored('b')).toEqual([7, 10, 20, 30]);
      await runCopyScript(client, [rowsOf('a', [5])]);
      expect(await stored('a')).toEqual([1, 2, 3, 5]);
    } finally {
      await client.end();
    }
  });
});
