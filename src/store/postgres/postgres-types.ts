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

const NEEDS_ESCAPE = /[\\\t\n\r]/;

/** One value in COPY's text format: \N for null, backslash escapes for the separators. */
export function copyValue(value: string | number | null): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  // Most text (codes, canonical lines) has nothing to escape: a test is cheaper than a replace.
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(/[\\\t\n\r]/g, (char) =>
    char === '\\' ? '\\\\' : char === '\t' ? '\\t' : char === '\n' ? '\\n' : '\\r',
  );
}
