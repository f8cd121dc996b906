import { parseCsv } from '@gridquote/client';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { createApiKey } from '../src/http/api-keys.js';
import { type AppOptions, buildApp, ROUTES } from '../src/http/app.js';
import { fillExamples, STATIC_EXAMPLE_VALUES } from '../src/http/examples.js';
import type { AccessLevel } from '../src/query/context.js';
import { type SeededStore, type SeededStoreOptions, seededTestStore } from './fixtures.js';

/**
 * The API over a seeded store, called in process: SQLite in memory, or PostgreSQL when the
 * suites run over it (GRIDQUOTE_TEST_STORE=postgres, see vitest.config.ts). Dates of the default history:
 * 20250226, 20250227, 20250228 (a Friday); the pinned clock is a week later, so the current
 * day is not "today" unless a test moves the clock.
 */
export interface Harness extends SeededStore {
  readonly app: FastifyInstance;
  readonly keys: Readonly<Record<AccessLevel, string>>;
  /** The clock the app reads; tests may move it. */
  now: Date;
  get(
    url: string,
    options?: {
      key?: AccessLevel | string | null;
      accept?: string;
      method?: 'GET' | 'HEAD';
      /** Further request headers (If-None-Match, Accept-Encoding, ...). */
      headers?: Readonly<Record<string, string>>;
    },
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export const DEFAULT_NOW = new Date('2025-03-07T01:00:00Z');

/** App options a test may set; rate limits are off unless it sets them (tests send bursts). */
export type HarnessAppOptions = Omit<AppOptions, 'reader' | 'keys' | 'clock' | 'onAppend'>;

const UNLIMITED = { perSecond: 0, perMinute: 0 };

export async function createHarness(
  options: SeededStoreOptions & { readonly app?: HarnessAppOptions } = {},
): Promise<Harness> {
  const seeded = await seededTestStore(options);
  const keys = {} as Record<AccessLevel, string>;
  for (const level of ['historical', 'end_of_day'] as const) {
    const created = createApiKey({ level, name: `test ${level}`, now: DEFAULT_NOW });
    await seeded.store.keys.insertKey(created.record);
    keys[level] = created.key;
  }
  const harness: Harness = {
    ...seeded,
    keys,
    now: DEFAULT_NOW,
    app: buildApp({
      rateLimits: { historical: UNLIMITED, end_of_day: UNLIMITED },
      ...options.app,
      reader: seeded.store.reader,
      keys: seeded.store.keys,
      onAppend: (listener) => seeded.store.onAppend(listener),
      clock: () => harness.now,
    }),
    get(url, { key = 'historical', accept, method = 'GET', headers: extra } = {}) {
      const headers: Record<string, string> = { ...extra };
      if (key !== null) {
        const resolved = key === 'historical' || key === 'end_of_day' ? keys[key] : key;
        headers.authorization = `Bearer ${resolved}`;
      }
      if (accept !== undefined) headers.accept = accept;
      return harness.app.inject({ method, url, headers });
    },
    async close() {
      await harness.app.close();
      await seeded.store.close();
    },
  };
  await harness.app.ready();
  return harness;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: { parameter: string; message: string }[];
  nearestDate?: string;
}

/** Asserts a problem+json answer and returns its body. */
export function expectProblem(
  response: LightMyRequestResponse,
  status: number,
  parameter?: string,
): ProblemBody {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = response.json() as ProblemBody;
  expect(body.status).toBe(status);
  expect(body.type).toMatch(/^tag:gridquote,2025:problems\//);
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  if (parameter !== undefined) expect(body.errors?.map((error) => error.parameter)).toContain(parameter);
  return body;
}

export function expectJson(response: LightMyRequestResponse): Record<string, unknown> {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  return response.json() as Record<string, unknown>;
}

export function expectCsv(response: LightMyRequestResponse): string[][] {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
  return parseCsv(response.body, ',', { strict: true });
}

type JsonRecord = Record<string, unknown>;

/**
 * The JSON records and the CSV rows of one request carry the same values: the CSV header is
 * `columns`, every JSON field appears as a column, and each cell equals the JSON value (null,
 * absent -> empty; booleans -> 0/1).
 */
export function expectSameRecords(
  records: readonly JsonRecord[],
  csv: string[][],
  columns: readonly string[],
): void {
  const [header, ...rows] = csv;
  expect(header).toEqual(columns);
  const fields = new Set(records.flatMap((record) => Object.keys(record)));
  for (const field of fields) expect(columns, `JSON field ${field}`).toContain(field);
  const expected = records.map((record) =>
    columns.map((column) => {
      const value = record[column];
      if (value === undefined || value === null) return '';
      return typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
    }),
  );
  expect(rows).toEqual(expected);
}

/** JSON put/call arrays as the CSV's one list ordered by code. */
export function flattenPutCall(data: unknown): JsonRecord[] {
  const { put, call } = data as { put: JsonRecord[]; call: JsonRecord[] };
  return [...put, ...call].sort((a, b) => (String(a.code) < String(b.code) ? -1 : 1));
}

/**
 * A valid request of each operation over the default seeded history, in the order the app
 * registers them: each route's first documented example (examples.ts).
 */
export const OPERATION_URLS: readonly string[] = ROUTES.map((route) => {
  const [query = ''] = Object.values(fillExamples(route.docs.examples, STATIC_EXAMPLE_VALUES));
  return query === '' ? route.path : `${route.path}?${query}`;
});
