import { gunzipSync } from 'node:zlib';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, DEFAULT_NOW, expectProblem, type Harness } from '../../test/api-harness.js';
import { liveApp, liveDayStore } from '../../test/live-day.js';
import type { FeedEvent } from '../feed/events.js';
import { ingestEvents } from '../ingest/ingest-events.js';
import type { MarketReader, MarketStore } from '../store/store.js';
import { createApiKey } from './api-keys.js';
import { buildApp, ROUTES } from './app.js';
import { exampleValuesOf, STATIC_EXAMPLE_VALUES } from './examples.js';
import {
  buildOpenApiDocument,
  examplePlaceholders,
  FORMAT_PARAMETER,
  type JsonObject,
  OPENAPI_PATH,
} from './openapi.js';
import type { ParamDef } from './params.js';
import { problemSchema } from './response-schemas.js';
import { STREAM_PATH, STREAM_TOKEN_PATH } from './stream/stream-route.js';

interface ParameterObject {
  name?: string;
  $ref?: string;
  in?: string;
  required?: boolean;
  description?: string;
  schema?: { type: string; pattern?: string; enum?: string[] };
  examples?: Record<string, { summary: string; value?: string }>;
}

interface HeaderObject {
  $ref?: string;
  description?: string;
  required?: boolean;
  schema?: JsonObject;
}

interface ResponseObject {
  $ref?: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema: JsonObject }>;
}

interface OperationObject {
  operationId: string;
  summary: string;
  description: string;
  parameters: ParameterObject[];
  responses: Record<string, ResponseObject>;
  'x-gridquote-exactly-one': string[][];
  'x-gridquote-examples': { name: string; url: string }[];
}

interface Document {
  openapi: string;
  paths: Record<string, { get: OperationObject }>;
  components: {
    securitySchemes: Record<string, JsonObject>;
    responses: Record<string, ResponseObject>;
    headers: Record<string, HeaderObject>;
  };
  servers: { url: string }[];
  security: JsonObject[];
}

let api: Harness;
let document: Document;

beforeAll(async () => {
  api = await createHarness({ days: 3 });
  const response = await api.get(OPENAPI_PATH, { key: null });
  expect(response.statusCode).toBe(200);
  document = response.json() as Document;
});
afterAll(() => api?.close());

function operationOf(path: string): OperationObject {
  const operation = document.paths[path]?.get;
  if (operation === undefined) throw new Error(`no operation at ${path}`);
  return operation;
}

describe('the OpenAPI document', () => {
  it('is served without an API key, as JSON, and is what the generator makes of the store', async () => {
    const response = await api.get(OPENAPI_PATH, { key: null });
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const values = await exampleValuesOf(api.store.reader, examplePlaceholders(ROUTES));
    expect(response.json()).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(ROUTES, values))));
    const zipped = await api.get(OPENAPI_PATH, { key: null, headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(zipped.rawPayload).toString())).toEqual(response.json());
  });

  it('carries an ETag that a revalidation answers with 304 until the document changes', async () => {
    const response = await api.get(OPENAPI_PATH, { key: null });
    const etag = response.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{16}"$/);
    const again = await api.get(OPENAPI_PATH, { key: null, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    const other = await api.get(OPENAPI_PATH, { key: null, headers: { 'if-none-match': '"other"' } });
    expect(other.statusCode).toBe(200);
    expect(other.headers.etag).toBe(etag);
  });

  it('is a valid OpenAPI 3.1 document, served and static (without a store)', async () => {
    for (const candidate of [document, buildOpenApiDocument(ROUTES)]) {
      const validator = new Validator();
      const result = await validator.validate(candidate as unknown as Record<string, unknown>);
      expect(result.errors).toBeUndefined();
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
    }
  });

  it('fills every placeholder of the examples, statically and from the store', async () => {
    const placeholders = examplePlaceholders(ROUTES);
    expect([...placeholders].sort()).toEqual(Object.keys(STATIC_EXAMPLE_VALUES).sort());
    expect(JSON.stringify(document)).not.toMatch(/\{[a-zA-Z]+(:[A-Z]{3})?\}/);
    expect(JSON.stringify(buildOpenApiDocument(ROUTES))).not.toMatch(/\{[a-zA-Z]+(:[A-Z]{3})?\}/);
  });

  it('describes exactly the nine operations, under a relative server and bearer security', () => {
    expect(Object.keys(document.paths).sort()).toEqual(ROUTES.map((route) => route.path).sort());
    expect(document.servers).toEqual([{ url: '/', description: 'this server' }]);
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.security).toEqual([{ apiKey: [] }]);
  });

  it.each(ROUTES.map((route) => [route.path, route] as const))(
    '%s: documents every parameter the route accepts, with its rules',
    (path, route) => {
      const operation = operationOf(path);
      expect(operation.operationId).toBe(path.slice('/api/'.length));
      expect(operation.summary).toBe(route.docs.summary);
      const params = operation.parameters.filter((parameter) => parameter.name !== FORMAT_PARAMETER.name);
      expect(params.map((parameter) => parameter.name)).toEqual(Object.keys(route.spec.params));
      // Written out, not referenced: it carries the operation's examples (openapi.ts FORMAT_PARAMETER).
      expect(operation.parameters.at(-1)).toMatchObject(FORMAT_PARAMETER);
      const spec = route.spec as {
        required?: readonly string[];
        exactlyOne?: readonly (readonly string[])[];
      };
      for (const parameter of params) {
        const name = parameter.name ?? '';
        expect(parameter.in).toBe('query');
        expect(parameter.required).toBe(spec.required?.includes(name) ?? false);
        expect(parameter.schema?.type).toBe('string');
        expect(parameter.schema?.pattern ?? parameter.schema?.enum, name).toBeDefined();
        const group = spec.exactlyOne?.find((names) => names.includes(name));
        if (group)
          expect(parameter.description).toContain(
            `Exactly one of ${group.map((n) => `\`${n}\``).join(', ')}`,
          );
        const def = (route.spec.params as Record<string, ParamDef<unknown>>)[name];
        if (def?.dateLike) expect(parameter.description).toContain('end_of_day');
      }
      expect(operation['x-gridquote-exactly-one']).toEqual(spec.exactlyOne ?? []);
      for (const status of ['200', '304', '400', '401', '404', '406', '414', '429', '503']) {
        expect(operation.responses[status], status).toBeDefined();
      }
      expect(Object.keys(operation.responses['200']?.content ?? {})).toEqual([
        'application/json',
        'text/csv',
      ]);
    },
  );

  it('answers problems as application/problem+json with the Problem schema', () => {
    for (const response of Object.values(document.components.responses)) {
      expect(response.content).toEqual({
        'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
      });
    }
  });

  it('gives every parameter example a value its own parser accepts and its schema allows', () => {
    for (const route of ROUTES) {
      for (const parameter of operationOf(route.path).parameters) {
        const def = (route.spec.params as Record<string, ParamDef<unknown>>)[parameter.name ?? ''];
        for (const [name, example] of Object.entries(parameter.examples ?? {})) {
          const label = `${route.path} ${parameter.name} ${name}`;
          if (example.value === undefined) {
            // The lead example does not send this parameter: a field left empty.
            expect(name, label).toBe(Object.keys(route.docs.examples)[0]);
            continue;
          }
          // `format` has no ParamDef of the route: its enum below is its whole rule.
          if (parameter.name !== FORMAT_PARAMETER.name)
            expect(def?.parse(example.value), label).toHaveProperty('value');
          if (parameter.schema?.pattern)
            expect(example.value, label).toMatch(new RegExp(parameter.schema.pattern));
          if (parameter.schema?.enum) expect(parameter.schema.enum, label).toContain(example.value);
        }
      }
    }
  });
});

describe('the named examples as parameter examples', () => {
  it.each(ROUTES.map((route) => [route.path] as const))(
    "%s: the parameters' examples of each name rebuild exactly that example's query",
    (path) => {
      const operation = operationOf(path);
      for (const example of operation['x-gridquote-examples']) {
        // What a reference page fills in when this example is chosen: every field that has it.
        const filled = operation.parameters.flatMap((parameter) => {
          const value = parameter.examples?.[example.name]?.value;
          return value === undefined ? [] : [[parameter.name ?? '', value] as const];
        });
        const sent = [...new URL(example.url, 'http://localhost').searchParams];
        const sorted = (pairs: readonly (readonly [string, string])[]) =>
          pairs.map(([name, value]) => `${name}=${value}`).sort();
        expect(sorted(filled), `${path} ${example.name}`).toEqual(sorted(sent));
      }
    },
  );

  it('keeps format=csv in the examples that send it', () => {
    const csv = ROUTES.flatMap((route) =>
      operationOf(route.path)
        ['x-gridquote-examples'].filter((example) => example.url.includes('format=csv'))
        .map((example) => `${route.path} ${example.name}`),
    );
    expect(csv).toEqual(
      expect.arrayContaining(['/api/datamine au-oi-long-csv', '/api/npi a-day-csv', '/api/tradelog gas']),
    );
    for (const route of ROUTES) {
      const format = operationOf(route.path).parameters.find((p) => p.name === FORMAT_PARAMETER.name);
      for (const example of operationOf(route.path)['x-gridquote-examples']) {
        if (example.url.includes('format=csv'))
          expect(format?.examples?.[example.name]?.value, `${route.path} ${example.name}`).toBe('csv');
      }
    }
  });
});

describe('the examples of the document', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });

  it('has examples for every operation', () => {
    for (const route of ROUTES)
      expect(operationOf(route.path)['x-gridquote-examples'].length).toBeGreaterThan(1);
  });

  it.each(ROUTES.map((route) => [route.path] as const))(
    '%s: every example answers 200 over the seeded store, in the documented shape',
    async (path) => {
      const operation = operationOf(path);
      const validate = ajv.compile(operation.responses['200']?.content?.['application/json']?.schema ?? {});
      for (const example of operation['x-gridquote-examples']) {
        const response = await api.get(example.url);
        expect(response.statusCode, `${example.url}: ${response.body}`).toBe(200);
        if (example.url.includes('format=csv')) {
          expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
          const csv = await api.get(example.url.replace('format=csv', 'format=json'));
          expect(csv.statusCode).toBe(200);
          expect(validate(csv.json()), JSON.stringify(validate.errors)).toBe(true);
        } else {
          expect(validate(response.json()), `${example.url}: ${JSON.stringify(validate.errors)}`).toBe(true);
          const csv = await api.get(example.url, { accept: 'text/csv' });
          expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
        }
      }
    },
  );

  it('describes the problems the API answers', async () => {
    const validate = ajv.compile(problemSchema);
    for (const [url, status] of [
      ['/api/data?futures=BNH&dat=20250227', 400],
      ['/api/data?futures=BNH&date=20250301', 404],
      ['/api/data?futures=BNH2031', 404],
    ] as const) {
      const body = expectProblem(await api.get(url), status);
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    }
    const unauthorized = await api.get('/api/epi', { key: null });
    expect(validate(expectProblem(unauthorized, 401))).toBe(true);
  });
});

/** Examples of the served document, as request URLs. */
function exampleUrls(served: Document): string[] {
  return Object.values(served.paths).flatMap((item) =>
    item.get['x-gridquote-examples'].map((example) => example.url),
  );
}

describe('the examples on a freshly seeded demo store', () => {
  // What `npm start` serves: the demo's seed (1) over recent days, then a live day in progress.
  let demo: Harness;
  let live: FeedEvent[];
  beforeAll(async () => {
    demo = await createHarness({ seed: 1, days: 3, until: '20261120' });
    live = demo.simulator.simulateDay('20261123');
    await ingestEvents(
      demo.store.writer,
      live.filter((event) => event.time < '113000'),
    );
    demo.now = new Date('2026-11-23T00:30:00Z');
  });
  afterAll(() => demo?.close());

  it('names the days and contracts that store holds, and every example answers 2xx', async () => {
    const served = (await demo.get(OPENAPI_PATH, { key: null })).json() as Document;
    const urls = exampleUrls(served);
    expect(urls.length).toBe(exampleUrls(document).length);
    expect(urls.join(' ')).not.toContain('2025');
    expect(urls.join(' ')).toContain('date=20261120');
    for (const url of urls) {
      const response = await demo.get(url);
      expect(response.statusCode, `${url}: ${response.body}`).toBeGreaterThanOrEqual(200);
      expect(response.statusCode, `${url}: ${response.body}`).toBeLessThan(300);
    }
  });

  it('follows the store: a new day moves the examples', async () => {
    const first = await demo.get(OPENAPI_PATH, { key: null });
    const before = exampleUrls(first.json() as Document);
    // The live day closes and the next one opens.
    await ingestEvents(
      demo.store.writer,
      live.filter((event) => event.time >= '113000'),
    );
    await ingestEvents(demo.store.writer, demo.simulator.simulateDay('20261124'));
    // A page holding the old document revalidates it and gets the new one.
    const revalidated = await demo.get(OPENAPI_PATH, {
      key: null,
      headers: { 'if-none-match': first.headers.etag as string },
    });
    expect(revalidated.statusCode).toBe(200);
    expect(revalidated.headers.etag).not.toBe(first.headers.etag);
    const after = exampleUrls(revalidated.json() as Document);
    expect(before.join(' ')).not.toContain('20261123&');
    expect(after.join(' ')).toContain('date=20261123');
    for (const url of after) expect((await demo.get(url)).statusCode, url).toBe(200);
  });
});

/** Headers of any HTTP answer that the document leaves to HTTP itself (representation, caches, connection). */
const TRANSPORT_HEADERS = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'vary',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

// The formats a consumer's validator checks: a declared `format: uuid` must hold too.
const headerAjv = new Ajv2020({
  strict: false,
  allErrors: true,
  formats: { uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i },
});

/** Follows a `#/components/...` reference of the document, if the object is one. */
function resolved<T extends { $ref?: string }>(served: Document, object: T): T {
  if (object.$ref === undefined) return object;
  const [, , kind, name] = object.$ref.split('/');
  const target = (served.components as unknown as Record<string, Record<string, T>>)[kind ?? '']?.[
    name ?? ''
  ];
  if (target === undefined) throw new Error(`unresolved ${object.$ref}`);
  return resolved(served, target);
}

/** A header's text against its declared schema (integers are sent as digits). */
function headerMatches(schema: JsonObject, text: string): boolean {
  const value = schema.type === 'integer' && /^-?\d+$/.test(text) ? Number(text) : text;
  return headerAjv.validate(schema, value);
}

/**
 * Asserts that the document declares the answer's status for the operation at `path`, and every
 * header it carries (but HTTP's own) under that status, with a schema its value meets: what a
 * consumer validating real answers against the document checks.
 */
function expectDeclared(served: Document, path: string, response: LightMyRequestResponse): void {
  const status = String(response.statusCode);
  const label = `GET ${path} ${status}`;
  const operation = served.paths[path]?.get;
  const declared = operation?.responses[status];
  expect(declared, `${label}: status not declared`).toBeDefined();
  const headers = new Map(
    Object.entries(resolved(served, declared ?? {}).headers ?? {}).map(([name, header]) => [
      name.toLowerCase(),
      resolved(served, header),
    ]),
  );
  for (const [name, value] of Object.entries(response.headers)) {
    if (TRANSPORT_HEADERS.has(name)) continue;
    const header = headers.get(name);
    expect(header, `${label}: ${name} not declared`).toBeDefined();
    expect(headerMatches(header?.schema ?? {}, String(value)), `${label}: ${name}: ${value}`).toBe(true);
  }
  for (const [name, header] of headers) {
    if (header.required) expect(response.headers[name], `${label}: ${name} required`).toBeDefined();
  }
}

/** Limits high enough never to refuse a test, so that every answer to a key carries the headers. */
const LIMITED = { perSecond: 1_000, perMinute: 100_000 };
const RATE_LIMITS = { historical: LIMITED, end_of_day: LIMITED };

/** The reader with every method failing, like a store whose disk fails (guard-store.ts makes it a 503). */
function failingReader(reader: MarketReader): MarketReader {
  const failing: Record<string, unknown> = {};
  for (let layer: object | null = reader; layer !== null && layer !== Object.prototype; ) {
    for (const name of Object.getOwnPropertyNames(layer)) {
      if (name !== 'constructor' && typeof Reflect.get(reader, name) === 'function')
        failing[name] = () => Promise.reject(new Error('SQLITE_IOERR: disk I/O error'));
    }
    layer = Object.getPrototypeOf(layer);
  }
  return failing as unknown as MarketReader;
}

describe('the headers of real answers, as the document declares them', () => {
  // A key with limits, so that every answer to it carries the rate-limit headers.
  let limited: Harness;
  let served: Document;
  beforeAll(async () => {
    limited = await createHarness({ days: 3, app: { rateLimits: RATE_LIMITS } });
    served = (await limited.get(OPENAPI_PATH, { key: null })).json() as Document;
  });
  afterAll(() => limited?.close());

  /** A data request whose date an end_of_day key ignores (Ignored-Parameters: date). */
  const IGNORED_DATE = '/api/data?futures=BNH&date=20250227';

  it('describes the request id as what the server sends: 22 base64url characters', async () => {
    expect(served.components.headers['X-Request-Id']?.schema).toEqual({
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{22}$',
    });
    expectDeclared(served, '/api/epi', await limited.get('/api/epi'));
  });

  it('200 and 304: with the rate-limit headers and Ignored-Parameters', async () => {
    for (const format of ['json', 'csv']) {
      const ok = await limited.get(`${IGNORED_DATE}&format=${format}`, { key: 'end_of_day' });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['ignored-parameters']).toBe('date');
      expectDeclared(served, '/api/data', ok);
      const again = await limited.get(`${IGNORED_DATE}&format=${format}`, {
        key: 'end_of_day',
        headers: { 'if-none-match': ok.headers.etag as string },
      });
      expect(again.statusCode).toBe(304);
      expect(again.headers.ratelimit).toBeDefined();
      expect(again.headers['ignored-parameters']).toBe('date');
      expectDeclared(served, '/api/data', again);
    }
  });

  it('400, 404 and 406: with the rate-limit headers, and Ignored-Parameters where parameters were read', async () => {
    const bad = await limited.get('/api/data?futures=BNH&dat=20250227', { key: 'end_of_day' });
    expectProblem(bad, 400, 'dat');
    expect(bad.headers['ratelimit-policy']).toBeDefined();
    expectDeclared(served, '/api/data', bad);
    const unknown = await limited.get('/api/data?futures=BNH2031&date=20250227', { key: 'end_of_day' });
    expectProblem(unknown, 404);
    expect(unknown.headers['ignored-parameters']).toBe('date');
    expectDeclared(served, '/api/data', unknown);
    const noData = await limited.get('/api/data?futures=BNH&date=20250301');
    expectProblem(noData, 404);
    expectDeclared(served, '/api/data', noData);
    const xml = await limited.get(IGNORED_DATE, { key: 'end_of_day', accept: 'application/xml' });
    expectProblem(xml, 406);
    expect(xml.headers['ignored-parameters']).toBe('date');
    expectDeclared(served, '/api/data', xml);
  });

  it('401 with WWW-Authenticate, 429 with Retry-After and the rate-limit headers', async () => {
    for (const key of [null, 'gq_000000000000_nothing']) {
      const refused = await limited.get('/api/epi', { key });
      expectProblem(refused, 401);
      expect(refused.headers['www-authenticate']).toBeDefined();
      expectDeclared(served, '/api/epi', refused);
    }
    // One request a minute: the second is refused, whenever the window started.
    const { key, record } = createApiKey({
      level: 'historical',
      perSecond: 0,
      perMinute: 1,
      now: DEFAULT_NOW,
    });
    await limited.store.keys.insertKey(record);
    expectDeclared(served, '/api/epi', await limited.get('/api/epi', { key }));
    const over = await limited.get('/api/epi', { key });
    expectProblem(over, 429);
    expect(over.headers['retry-after']).toBeDefined();
    expectDeclared(served, '/api/epi', over);
  });

  it.each(ROUTES.map((route) => [route.path] as const))(
    '%s: 414 for a request target over 4 KiB, declared on the operation',
    async (path) => {
      const response = await limited.get(`${path}?futures=${'A'.repeat(4_100)}`);
      expectProblem(response, 414);
      expectDeclared(served, path, response);
    },
  );

  it('503 with Retry-After (and what the request met before the store failed)', async () => {
    const app = buildApp({
      reader: failingReader(limited.store.reader),
      keys: limited.store.keys,
      clock: () => DEFAULT_NOW,
      rateLimits: RATE_LIMITS,
    });
    try {
      const response = await app.inject({
        url: IGNORED_DATE,
        headers: { authorization: `Bearer ${limited.keys.end_of_day}` },
      });
      expectProblem(response, 503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.headers['ignored-parameters']).toBe('date');
      expect(response.headers.ratelimit).toBeDefined();
      expectDeclared(served, '/api/data', response);
    } finally {
      await app.close();
    }
  });
});

describe('the answers of the event stream and its token, as the document declares them', () => {
  let store: MarketStore;
  let app: FastifyInstance;
  let served: Document;
  let key: string;
  beforeAll(async () => {
    ({ store } = await liveDayStore());
    const created = createApiKey({ level: 'historical', now: DEFAULT_NOW });
    await store.keys.insertKey(created.record);
    key = created.key;
    app = liveApp(store, { rateLimits: RATE_LIMITS });
    served = (await app.inject({ url: OPENAPI_PATH })).json() as Document;
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
  });

  const get = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    app.inject({ method, url, headers: { authorization: `Bearer ${key}`, ...headers } });

  it('is a valid OpenAPI 3.1 document with the stream in it', async () => {
    expect(Object.keys(served.paths)).toEqual(expect.arrayContaining([STREAM_PATH, STREAM_TOKEN_PATH]));
    const result = await new Validator().validate(served as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
  });

  it('the stream: its 200 (HEAD, the same headers) and its refusals', async () => {
    const ok = await get(`${STREAM_PATH}?futures=au_electricity`, {}, 'HEAD');
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
    expectDeclared(served, STREAM_PATH, ok);
    const unauthorized = await app.inject({ url: `${STREAM_PATH}?futures=au_electricity` });
    expectProblem(unauthorized, 401);
    expectDeclared(served, STREAM_PATH, unauthorized);
    for (const [url, status] of [
      [`${STREAM_PATH}?futures=au_electricity&format=json`, 406],
      [`${STREAM_PATH}?futures=au_electricity&format=xml`, 400],
      [`${STREAM_PATH}?futures=BNH2031`, 404],
      [`${STREAM_PATH}?futures=${'A'.repeat(4_100)}`, 414],
    ] as const) {
      const refused = await get(url);
      expectProblem(refused, status);
      expectDeclared(served, STREAM_PATH, refused);
    }
  });

  it('the token: always JSON, format validated, other parameters refused', async () => {
    const token = served.paths[STREAM_TOKEN_PATH]?.get;
    expect(token?.parameters.map((parameter) => parameter.name)).toEqual(['format']);
    expect(token?.parameters[0]?.description).toContain('always JSON');
    for (const [query, headers] of [
      ['', {}],
      ['?format=json', {}],
      ['?format=csv', {}],
      ['', { accept: 'text/csv' }],
    ] as const) {
      const issued = await get(`${STREAM_TOKEN_PATH}${query}`, headers);
      expect(issued.statusCode, query).toBe(200);
      expect(issued.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(issued.json()).toHaveProperty('token');
      expectDeclared(served, STREAM_TOKEN_PATH, issued);
    }
    for (const query of ['?format=xml', '?x=1']) {
      const refused = await get(`${STREAM_TOKEN_PATH}${query}`);
      expectProblem(refused, 400);
      expectDeclared(served, STREAM_TOKEN_PATH, refused);
    }
    const unauthorized = await app.inject({ url: STREAM_TOKEN_PATH });
    expectProblem(unauthorized, 401);
    expectDeclared(served, STREAM_TOKEN_PATH, unauthorized);
  });
});
