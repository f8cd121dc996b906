import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { parseCsv } from '@gridquote/client';
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/http/api-keys.js';
import { buildApp, ROUTES } from '../src/http/app.js';
import type { MarketStore } from '../src/store/store.js';
import { DEFAULT_NOW } from './api-harness.js';
import { seededStore } from './fixtures.js';

/**
 * Property-based fuzzing of every operation over a seeded store: random, malformed, oversized,
 * unicode and injection-like parameters, repeated and unknown names, random methods, Accept,
 * Accept-Encoding and keys. Whatever the request, the answer is a well-formed 2xx/304 or a 4xx
 * problem (never a 5xx), and the stored data is unchanged afterwards.
 */

const RUNS_PER_PATH = 300;

/** Each operation's parameter names, from the list the app registers. */
const PATHS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  ROUTES.map((route) => [route.path, Object.keys(route.spec.params)]),
);

/** Values that reach past validation into the queries, so those are fuzzed too. */
const PLAUSIBLE = [
  'au_electricity',
  'nz_electricity',
  'au_gas',
  'au_environmental',
  'nz_environmental',
  'BNH',
  'BNH2026',
  'BNH2026F',
  'HNZ2026',
  'HNM2026',
  'GZJ2025F',
  'EAH',
  'EAH2026C',
  'EAH20260010000C',
  'HNZ20260012000',
  'BNM2025C0016000',
  'BNH20260013000P',
  'CN',
  'ZZH2026',
  'BNH2099',
  'BNH20269999999C',
  '20250226',
  '20250227',
  '20250228',
  '20250301',
  '20240229',
  '20251131',
  '19991231',
  '99999999',
  '2025022',
  '000000',
  '100000',
  '155000',
  '235959',
  '240000',
  '1500',
  'book',
  'trade',
  'settle',
  'message_board',
  'registered_trades',
  'custom_market',
  'au-volume',
  'au-oi',
  'nz-volume',
  'json',
  'csv',
  'CSV',
  'xml',
  '',
];

const INJECTION = [
  "' OR 1=1 --",
  "'; DROP TABLE events; --",
  '" OR ""="',
  '1; DELETE FROM api_keys',
  '../../etc/passwd',
  '..%2f..%2f',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, meant literally
  '${process.exit(1)}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '%s%s%s%n',
  '\u0000',
  'BNH\u00002026',
  '\u200f\u202eBNH2026',
  '\ud800',
  '\udfff',
  'BNH\ud83d',
  '\ufeffau_gas',
  'au_gas\r\nX-Injected: 1',
  'ＢＮＨ２０２６',
  '1e3',
  '-1',
  '0x10',
  'NaN',
  'null',
  '[]',
  '__proto__',
  'constructor',
  'toString',
];

/** Already percent-encoded: malformed or surprising escapes the URL carries as sent. */
const RAW_ESCAPES = [
  '%',
  '%G1',
  '%E2%80',
  '%00',
  '%ED%A0%80',
  '%ED%BF%BF',
  '%C0%AF',
  '%E2%80%8F',
  '%EF%BB%BF',
  '%2500',
  '+',
  '%20',
  '%26',
  '%3D',
  '%23',
];

const NAMES = [
  'futures',
  'options',
  'market',
  'type',
  'date',
  'from',
  'to',
  'format',
  'dat',
  'Date',
  'FORMAT',
  'x',
  '',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'date[]',
  'a'.repeat(100),
];

/** Encodes a value as a client would, also lone surrogates (as WTF-8, which is not UTF-8). */
function encode(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

const valueArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...PLAUSIBLE).map(encode) },
  { weight: 2, arbitrary: fc.constantFrom(...INJECTION).map(encode) },
  { weight: 2, arbitrary: fc.constantFrom(...RAW_ESCAPES) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }).map(encode) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }).map(encode) },
  {
    weight: 1,
    // Oversized: past the value limit, and sometimes past the URL limit (414).
    arbitrary: fc
      .tuple(fc.constantFrom(...PLAUSIBLE, 'A', '%00'), fc.integer({ min: 10, max: 1_500 }))
      .map(([part, times]) => (part === '' ? 'x' : encode(part)).repeat(times)),
  },
  {
    weight: 1,
    // A plausible value with one character changed, inserted or removed.
    arbitrary: fc
      .tuple(fc.constantFrom(...PLAUSIBLE), fc.nat(20), fc.string({ unit: 'binary-ascii', maxLength: 2 }))
      .map(([text, at, insert]) => encode(text.slice(0, at) + insert + text.slice(at + 1))),
  },
);

function randomQueryArb(names: readonly string[]): fc.Arbitrary<string> {
  const nameArb = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...names, 'format') },
    { weight: 2, arbitrary: fc.constantFrom(...NAMES).map(encode) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_ESCAPES) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }).map(encode) },
  );
  const pair = fc.oneof(
    { weight: 8, arbitrary: fc.tuple(nameArb, valueArb).map(([name, value]) => `${name}=${value}`) },
    { weight: 1, arbitrary: nameArb },
    { weight: 1, arbitrary: fc.constantFrom('=', '&', '==', 'a=b=c', '&&') },
  );
  return fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join('&'));
}

const FUTURES = ['au_electricity', 'nz_electricity', 'au_gas', 'au_environmental', 'nz_environmental'];
const FUTURES_CODES = [
  ...FUTURES,
  'BNH',
  'BNH2026',
  'BNH2026F',
  'HNZ2026',
  'HNM2026',
  'EDF2026',
  'GZJ2025F',
  'CN',
];
const OPTIONS_CODES = [
  'au_electricity',
  'nz_electricity',
  'BNH',
  'BNH2026',
  'BNH2026C',
  'EAH2026P',
  'HNZ20260012000',
  'BNH20260013000C',
  'BNM2025C0016000',
];
const DATES = ['20250226', '20250227', '20250228'];
const TIMES = ['000000', '100000', '120000', '150000', '235959'];

type Pair = readonly [string, string];
const one = (name: string, values: readonly string[]) =>
  fc.constantFrom(...values).map((value): Pair[] => [[name, value]]);
const maybe = (name: string, values: readonly string[]) =>
  fc.option(one(name, values), { nil: [] as Pair[] });
const oneOf = (...groups: readonly (readonly [string, readonly string[]])[]) =>
  fc.oneof(...groups.map(([name, values]) => one(name, values)));
const all = (...parts: fc.Arbitrary<Pair[]>[]) => fc.tuple(...parts).map((lists) => lists.flat());

/** A valid query of each operation (docs/api.md): the base the mutations start from. */
const VALID: Readonly<Record<string, fc.Arbitrary<Pair[]>>> = {
  '/api/ticker': all(
    oneOf(['futures', FUTURES_CODES], ['options', OPTIONS_CODES]),
    maybe('type', ['book', 'trade', 'settle']),
    fc.oneof(maybe('date', DATES), all(maybe('from', TIMES), maybe('to', TIMES))),
  ),
  '/api/epi': maybe('date', DATES),
  '/api/npi': maybe('date', DATES),
  '/api/tradelog': all(
    oneOf(['market', FUTURES], ['futures', FUTURES_CODES], ['options', OPTIONS_CODES]),
    maybe('date', DATES),
  ),
  '/api/messages': all(
    one('market', FUTURES),
    one('type', ['message_board', 'registered_trades', 'custom_market']),
    maybe('from', TIMES),
  ),
  '/api/trades': all(
    oneOf(['market', FUTURES], ['futures', FUTURES_CODES], ['options', OPTIONS_CODES]),
    maybe('from', TIMES),
  ),
  '/api/data': all(oneOf(['futures', FUTURES_CODES], ['options', OPTIONS_CODES]), maybe('date', DATES)),
  '/api/intraday': oneOf(['futures', FUTURES_CODES], ['options', OPTIONS_CODES]),
  '/api/datamine': fc.oneof(
    all(
      one('type', ['au-volume', 'nz-volume']),
      maybe('from', DATES),
      maybe('to', DATES),
      maybe('layout', ['sections', 'long']),
    ),
    all(one('type', ['au-oi']), maybe('date', DATES), maybe('layout', ['sections', 'long'])),
  ),
};

/** One change to a valid query: a hostile value, an extra (unknown or repeated) name, a loss. */
type Mutation =
  | { readonly kind: 'value'; readonly at: number; readonly value: string }
  | { readonly kind: 'add'; readonly name: string; readonly value: string }
  | { readonly kind: 'drop'; readonly at: number };

function mutationArb(names: readonly string[]): fc.Arbitrary<Mutation> {
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant('value' as const), at: fc.nat(5), value: valueArb }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('add' as const),
        name: fc.constantFrom(...names, ...NAMES),
        value: valueArb,
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), at: fc.nat(5) }) },
  );
}

function mutatedQueryArb(path: string): fc.Arbitrary<string> {
  const names = PATHS[path] ?? [];
  const format = fc.option(fc.constantFrom('json', 'csv'), { nil: undefined });
  return fc
    .tuple(
      VALID[path] ?? fc.constant([]),
      format,
      fc.oneof(fc.constant([]), fc.array(mutationArb(names), { minLength: 1, maxLength: 2 })),
    )
    .map(([base, chosen, mutations]) => {
      const pairs: [string, string][] = base.map(([name, value]) => [name, encode(value)]);
      if (chosen !== undefined) pairs.push(['format', chosen]);
      for (const mutation of mutations) {
        if (mutation.kind === 'add') pairs.push([encode(mutation.name), mutation.value]);
        else if (pairs.length > 0) {
          const at = mutation.at % pairs.length;
          const pair = pairs[at];
          if (mutation.kind === 'drop') pairs.splice(at, 1);
          else if (pair) pair[1] = mutation.value;
        }
      }
      return pairs.map(([name, value]) => `${name}=${value}`).join('&');
    });
}

function queryArb(path: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: mutatedQueryArb(path) },
    { weight: 1, arbitrary: randomQueryArb(PATHS[path] ?? []) },
  );
}

const PRINTABLE = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
});

/** Absent half the time, or as often as `weight` says against one present value. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, absentWeight = 1): fc.Arbitrary<T | undefined> {
  return fc.oneof(
    { weight: absentWeight, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: arbitrary },
  );
}

const acceptArb = sometimes(
  fc.oneof(
    fc.constantFrom(
      'application/json',
      'text/csv',
      'text/csv;q=0.9, application/json;q=0.1',
      'text/*',
      '*/*',
      '*/*;q=0',
      'application/*',
      'application/xml',
      'text/html',
      'text/csv;q=abc',
      'text/csv;q=2',
      'application/json;q=0, text/csv;q=0',
      ';;;,,,',
      'text/csv; charset=utf-16',
      '',
    ),
    PRINTABLE,
  ),
);

const encodingArb = sometimes(
  fc.oneof(
    fc.constantFrom(
      'gzip',
      'br',
      'deflate',
      'gzip, br',
      'br;q=0, gzip;q=0.5',
      '*',
      'identity;q=0',
      'zstd',
      '',
    ),
    PRINTABLE,
  ),
);

type KeyChoice = 'historical' | 'end_of_day' | 'none' | 'garbage' | 'basic' | 'tampered';

const requestArb = (path: string) =>
  fc.record({
    method: fc.oneof(
      { weight: 12, arbitrary: fc.constant('GET') },
      {
        weight: 2,
        arbitrary: fc.constantFrom('HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND'),
      },
    ),
    path: fc.oneof(
      { weight: 12, arbitrary: fc.constant(path) },
      { weight: 1, arbitrary: fc.constant(`${path}/`) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(path.toUpperCase(), `${path}%00`, `${path}/..%2f`, `${path};x=1`),
      },
    ),
    query: fc.option(queryArb(path), { nil: undefined, freq: 10 }),
    key: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom<KeyChoice>('historical', 'end_of_day') },
      { weight: 2, arbitrary: fc.constantFrom<KeyChoice>('none', 'garbage', 'basic', 'tampered') },
    ),
    accept: acceptArb,
    acceptEncoding: encodingArb,
    ifNoneMatch: sometimes(fc.oneof(fc.constant('*'), fc.constant('W/"x"'), PRINTABLE), 8),
  });

let store: MarketStore;
let app: FastifyInstance;
let keys: Record<'historical' | 'end_of_day', string>;
let before: { version: number; events: string; keys: string };

async function snapshot(): Promise<typeof before> {
  const hash = createHash('sha256');
  for await (const line of store.events.lines()) hash.update(`${line}\n`);
  return {
    version: await store.reader.version(),
    events: hash.digest('hex'),
    keys: JSON.stringify(await store.keys.listKeys()),
  };
}

beforeAll(async () => {
  ({ store } = seededStore());
  keys = { historical: '', end_of_day: '' };
  for (const level of ['historical', 'end_of_day'] as const) {
    // Unlimited: a fuzz run is a burst, and 429 would hide everything behind the limiter.
    const created = createApiKey({ level, now: DEFAULT_NOW, perSecond: 0, perMinute: 0 });
    await store.keys.insertKey(created.record);
    keys[level] = created.key;
  }
  app = buildApp({ reader: store.reader, keys: store.keys, clock: () => DEFAULT_NOW });
  before = await snapshot();
});
afterAll(async () => {
  await app.close();
  await store.close();
});

function authorization(choice: KeyChoice): string | undefined {
  switch (choice) {
    case 'historical':
    case 'end_of_day':
      return `Bearer ${keys[choice]}`;
    case 'none':
      return undefined;
    case 'garbage':
      return 'Bearer gq_zzzz_not-a-key';
    case 'basic':
      return 'Basic dXNlcjpwYXNz';
    case 'tampered':
      return `Bearer ${keys.historical.slice(0, -3)}AAA`;
  }
}

function decoded(response: LightMyRequestResponse): string {
  const raw = response.rawPayload;
  switch (response.headers['content-encoding']) {
    case 'gzip':
      return gunzipSync(raw).toString('utf8');
    case 'br':
      return brotliDecompressSync(raw).toString('utf8');
    case 'deflate':
      return inflateSync(raw).toString('utf8');
    case undefined:
      return raw.toString('utf8');
    default:
      throw new Error(`unexpected content-encoding ${String(response.headers['content-encoding'])}`);
  }
}

function expectWellFormed(path: string, method: string, response: LightMyRequestResponse): void {
  const status = response.statusCode;
  const type = String(response.headers['content-type'] ?? '');
  expect(status, `${status} ${response.body}`).toBeLessThan(500);
  expect(status >= 200 && status < 300 ? 'ok' : status === 304 ? 'ok' : status >= 400 ? 'ok' : 'bad').toBe(
    'ok',
  );
  const body = method === 'HEAD' ? '' : decoded(response);
  if (status >= 400) {
    expect(type).toBe('application/problem+json; charset=utf-8');
    if (method === 'HEAD') return;
    const problem = JSON.parse(body) as Record<string, unknown>;
    expect(problem.type).toMatch(/^tag:gridquote,2025:problems\/[a-z-]+$/);
    expect(typeof problem.title).toBe('string');
    expect(problem.status).toBe(status);
    expect(typeof problem.detail).toBe('string');
    return;
  }
  if (status === 304 || method === 'HEAD') {
    expect(body).toBe('');
    return;
  }
  if (method === 'OPTIONS') {
    // What the path takes, without a body (CORS is off in this app).
    expect(status).toBe(204);
    expect(response.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(body).toBe('');
    return;
  }
  if (type === 'application/json; charset=utf-8') {
    expect(() => JSON.parse(body)).not.toThrow();
  } else {
    expect(type).toBe('text/csv; charset=utf-8');
    // datamine: one section per measure (its name, then a table), a blank line between; or,
    // with layout=long, one table.
    const tables =
      path === '/api/datamine' && !/^(from|date),/.test(body)
        ? body.split('\n\n').map((section) => section.slice(section.indexOf('\n') + 1))
        : [body];
    for (const table of tables) {
      const rows = parseCsv(
        table.endsWith('\n') ? table : `${table}\n`,
        path === '/api/messages' ? '\t' : ',',
        { strict: true },
      );
      const width = rows[0]?.length ?? 0;
      expect(width).toBeGreaterThan(0);
      for (const row of rows) expect(row).toHaveLength(width);
    }
  }
}

describe('fuzzing every operation', () => {
  it('has a valid query of every operation the app registers to start from', () => {
    expect(Object.keys(VALID).sort()).toEqual(Object.keys(PATHS).sort());
  });

  for (const path of Object.keys(PATHS)) {
    it(`${path}: never a 5xx, always well-formed`, async () => {
      const statuses = new Set<number>();
      await fc.assert(
        fc.asyncProperty(requestArb(path), async (request) => {
          const headers: Record<string, string> = {};
          const auth = authorization(request.key);
          if (auth !== undefined) headers.authorization = auth;
          if (request.accept !== undefined) headers.accept = request.accept;
          if (request.acceptEncoding !== undefined) headers['accept-encoding'] = request.acceptEncoding;
          if (request.ifNoneMatch !== undefined) headers['if-none-match'] = request.ifNoneMatch;
          const url = request.query === undefined ? request.path : `${request.path}?${request.query}`;
          const response = await app.inject({
            method: request.method as 'GET',
            url,
            headers,
          });
          expectWellFormed(path, request.method, response);
          statuses.add(response.statusCode);
        }),
        { numRuns: RUNS_PER_PATH },
      );
      // The generators must keep reaching the queries, not only the validation in front of them.
      for (const status of [200, 400, 401, 404]) expect([...statuses]).toContain(status);
    });
  }

  it('changed nothing in the store', async () => {
    expect(await snapshot()).toEqual(before);
  });
});
