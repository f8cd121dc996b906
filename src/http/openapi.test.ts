import { gunzipSync } from 'node:zlib';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, expectProblem, type Harness } from '../../test/api-harness.js';
import type { FeedEvent } from '../feed/events.js';
import { ingestEvents } from '../ingest/ingest-events.js';
import { ROUTES } from './app.js';
import { exampleValuesOf, STATIC_EXAMPLE_VALUES } from './examples.js';
import { buildOpenApiDocument, examplePlaceholders, type JsonObject, OPENAPI_PATH } from './openapi.js';
import type { ParamDef } from './params.js';
import { problemSchema } from './response-schemas.js';

interface ParameterObject {
  name?: string;
  $ref?: string;
  in?: string;
  required?: boolean;
  description?: string;
  schema?: { type: string; pattern?: string; enum?: string[] };
  examples?: Record<string, { summary: string; value?: string }>;
}

interface OperationObject {
  operationId: string;
  summary: string;
  description: string;
  parameters: ParameterObject[];
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: JsonObject }> }>;
  'x-gridquote-exactly-one': string[][];
  'x-gridquote-examples': { name: string; url: string }[];
}

interface Document {
  openapi: string;
  paths: Record<string, { get: OperationObject }>;
  components: {
    securitySchemes: Record<string, JsonObject>;
    responses: Record<string, { content: Record<string, unknown> }>;
    parameters: Record<string, ParameterObject>;
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
      const params = operation.parameters.filter((parameter) => parameter.name !== undefined);
      expect(params.map((parameter) => parameter.name)).toEqual(Object.keys(route.spec.params));
      expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/format' });
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
      for (const status of ['200', '304', '400', '401', '404', '406', '429', '503']) {
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
          expect(def?.parse(example.value), label).toHaveProperty('value');
          if (parameter.schema?.pattern)
            expect(example.value, label).toMatch(new RegExp(parameter.schema.pattern));
          if (parameter.schema?.enum) expect(parameter.schema.enum, label).toContain(example.value);
        }
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
