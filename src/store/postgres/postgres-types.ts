import pg from 'pg';

/**
 * How values cross the wire. node-postgres hands bigint (int8) and numeric as strings, since
 * they may not fit a JS number; the store's types are numbers (store.ts), so each is converted
 * here and checked: a value beyond 2^53 throws instead of being silently rounded.
 */
const INT8_OID = 20;
const NUMERIC_OID = 1700;

function exactNumber(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`database value ${text} is not an exact integer`);
  return value;
}

export const EXACT_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return exactNumber;
    return format === undefined ? pg.types.getTypeParser(oid) : pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};
