import { type ExampleValues, fillExamples, placeholdersOf, STATIC_EXAMPLE_VALUES } from './examples.js';
import { CONTENT_TYPES } from './negotiation.js';
import type { OperationDocs } from './operation-docs.js';
import type { ParamDef, ParamDefs } from './params.js';
import { PROBLEMS } from './problems.js';
import { problemSchema } from './response-schemas.js';

/**
 * The OpenAPI 3.1 document, generated from the routes themselves: each parameter's schema and
 * wording come from the ParamDef that validates it, the required and exactly-one rules from the
 * OperationSpec that enforces them, the problem responses from the error catalogue. Only the
 * prose, examples and response shapes are written by hand (the route's `docs`).
 */

/** What the generator reads of a route (a Route<S, R> is one; `run` and the writers are not read). */
export interface DocumentedOperation {
  readonly path: string;
  readonly spec: {
    readonly params: ParamDefs;
    readonly required?: readonly string[];
    readonly exactlyOne?: readonly (readonly string[])[];
    readonly disregard?: { readonly when: string; readonly names: readonly string[] };
  };
  readonly docs: OperationDocs<ParamDefs>;
}

export type JsonObject = { readonly [key: string]: unknown };

export const OPENAPI_PATH = '/api/openapi.json';
export const OPENAPI_VERSION = '3.1.0';

/** Name of an operation (metrics label, operationId): its path without `/api/`. */
export function operationName(path: string): string {
  return path.startsWith('/api/') ? path.slice('/api/'.length) : path.replace(/^\//, '');
}

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

/**
 * On every answer to a key with limits, refusals included: the key is counted before its
 * parameters are read (operation.ts).
 */
const RATE_LIMIT_HEADERS = ['RateLimit-Policy', 'RateLimit'] as const;

/** A 304's headers: what its 200 carries but for the body's own (Content-Disposition). */
const NOT_MODIFIED_HEADERS = [
  'API-Version',
  'X-Request-Id',
  'Ignored-Parameters',
  'ETag',
  'Cache-Control',
  ...RATE_LIMIT_HEADERS,
] as const;

/**
 * Statuses every operation may answer with a problem, what brings each, and the headers it may
 * carry besides API-Version and X-Request-Id. The pipeline decides which (operation.ts): 414
 * before anything else, 401 before the key is counted, 429 before the parameters are read, and
 * Ignored-Parameters from the parameters on (404, 406, 503), never on the 400 that refuses them.
 */
const PROBLEM_RESPONSES: readonly (readonly [number, string, string, readonly string[]])[] = [
  [
    400,
    'BadRequest',
    'Bad or conflicting parameters; `errors` lists every one (up to 20)',
    RATE_LIMIT_HEADERS,
  ],
  [
    401,
    'Unauthorized',
    'No API key, or one that is malformed, unknown, revoked or expired',
    ['WWW-Authenticate'],
  ],
  [
    404,
    'NotFound',
    'A code that names no listed contract, or a date without data (`nearestDate`)',
    ['Ignored-Parameters', ...RATE_LIMIT_HEADERS],
  ],
  [
    406,
    'NotAcceptable',
    'The `Accept` header allows neither JSON nor CSV',
    ['Ignored-Parameters', ...RATE_LIMIT_HEADERS],
  ],
  [414, 'UriTooLong', 'The request target (path and query) is over 4 KiB; checked before anything else', []],
  [
    429,
    'TooManyRequests',
    "Over the key's rate limit; retry after `Retry-After` seconds",
    ['Retry-After', ...RATE_LIMIT_HEADERS],
  ],
  [
    503,
    'ServiceUnavailable',
    "The market data store (or a deployment's shared rate-limit counters) is unavailable; retry after " +
      '`Retry-After` seconds',
    ['Retry-After', 'Ignored-Parameters', ...RATE_LIMIT_HEADERS],
  ],
];

/**
 * Catalogue codes that travel in an `event: error` of a started stream (problems.ts), never as the
 * status of an answer: not listed among a response's problem types.
 */
const STREAM_EVENT_CODES: ReadonlySet<string> = new Set(['event-id-unavailable', 'slow-consumer']);

const HEADERS: Readonly<Record<string, JsonObject>> = {
  'API-Version': {
    description: 'The API version, `1` on every response; breaking changes would go under a new prefix.',
    schema: { type: 'string', enum: ['1'] },
  },
  'X-Request-Id': {
    description:
      'A fresh id per answer, 22 random base64url characters (a client-sent one is not trusted); quote it ' +
      'when reporting a problem.',
    // Not a UUID: request-id.ts cuts 132 random bits of base64url text.
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{22}$' },
  },
  'Ignored-Parameters': {
    description:
      'Comma-separated names of sent parameters that had no effect (date-like ones under `end_of_day` ' +
      'access, ticker `from`/`to` with `date`).',
    schema: { type: 'string' },
  },
  ETag: {
    description:
      'Strong validator of the representation; send it back in `If-None-Match` to get a 304 when unchanged.',
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description:
      '`private, no-cache` (revalidate with the ETag) for a past day the request names, `private, max-age=1` ' +
      'otherwise. No day is final: a late correction changes its answers and their ETag.',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description:
      'The key\'s limits (IETF RateLimit header fields draft), e.g. `"per-second";q=10;w=1`: on every answer ' +
      'to a valid key, refusals included, except a key unlimited in both windows.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'The limit closest to exhaustion: remaining requests `r` and seconds to reset `t`.',
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  'Content-Disposition': {
    description:
      'CSV answers only: `attachment; filename="<operation>-<selection>-<yyyyMMdd>.csv"`, e.g. ' +
      '`tradelog-au_electricity-20250228.csv`, so downloads keep answers apart.',
    schema: { type: 'string' },
  },
  'WWW-Authenticate': {
    description:
      '`Bearer realm="gridquote"`, with `error="invalid_token"` when a key was sent but is not valid.',
    schema: { type: 'string' },
  },
};

/** References to headers of the document's components (HEADERS), by name. */
export function headerRefs(names: readonly string[]): JsonObject {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

function problemResponse(status: number, summary: string, headers: readonly string[]): JsonObject {
  const codes = Object.entries(PROBLEMS)
    .filter(([code, kind]) => kind.status === status && !STREAM_EVENT_CODES.has(code))
    .map(([code, kind]) => `\`${code}\` (${kind.title})`);
  return {
    description: `${summary}. Problem types: ${codes.join(', ')}.`,
    headers: headerRefs(['API-Version', 'X-Request-Id', ...headers]),
    content: { 'application/problem+json': { schema: PROBLEM_REF } },
  };
}

/** The values a query string gives each parameter, by example name. */
function exampleValues(examples: Readonly<Record<string, string>>): Map<string, Map<string, string>> {
  const byParam = new Map<string, Map<string, string>>();
  for (const [name, query] of Object.entries(examples)) {
    for (const [param, value] of new URLSearchParams(query)) {
      let values = byParam.get(param);
      if (values === undefined) {
        values = new Map();
        byParam.set(param, values);
      }
      values.set(name, value);
    }
  }
  return byParam;
}

function url(path: string, query: string): string {
  return query === '' ? path : `${path}?${query}`;
}

function code(name: string): string {
  return `\`${name}\``;
}

function parameterDescription(name: string, def: ParamDef<unknown>, operation: DocumentedOperation): string {
  const { spec, docs } = operation;
  const parts = [docs.params?.[name] ?? def.description];
  for (const group of spec.exactlyOne ?? []) {
    if (group.includes(name)) parts.push(`Exactly one of ${group.map(code).join(', ')} is sent.`);
  }
  if (spec.disregard?.names.includes(name)) {
    parts.push(
      `Disregarded (not validated) when ${code(spec.disregard.when)} is sent, and then listed in \`Ignored-Parameters\`.`,
    );
  }
  if (def.dateLike) {
    parts.push('Ignored (not validated) under `end_of_day` access, and then listed in `Ignored-Parameters`.');
  }
  return parts.join(' ');
}

/**
 * A parameter's examples: one per named example that sends it, led by the operation's first
 * example, which has no value where that example does not send the parameter. Reference pages
 * (Swagger UI) fill each field with its first example: this way the fields together form the
 * first example request, never a conflicting mix (futures and options both filled).
 */
function parameterExamples(
  name: string,
  first: string | undefined,
  values: ReadonlyMap<string, string> | undefined,
): JsonObject | undefined {
  if (values === undefined) return undefined;
  const examples: Record<string, JsonObject> = {};
  if (first !== undefined && !values.has(first)) examples[first] = { summary: `${first}: ${name} not sent` };
  for (const [example, value] of values) examples[example] = { summary: example, value };
  return examples;
}

/**
 * `format`, which every operation accepts besides its spec's parameters (params.ts). Written out
 * in each operation rather than referenced from the components: a reference cannot carry the
 * operation's own examples, and without them an example that sends `format=csv` would lose it.
 */
export const FORMAT_PARAMETER = {
  name: 'format',
  in: 'query',
  required: false,
  description: 'Overrides the `Accept` header: `json` or `csv`.',
  schema: { type: 'string', enum: Object.keys(CONTENT_TYPES) },
} as const;

function parameters(operation: DocumentedOperation): JsonObject[] {
  const { spec } = operation;
  const examples = exampleValues(operation.docs.examples);
  const first = Object.keys(operation.docs.examples)[0];
  const withExamples = (parameter: JsonObject, name: string): JsonObject => {
    const named = parameterExamples(name, first, examples.get(name));
    return named ? { ...parameter, examples: named } : parameter;
  };
  const list: JsonObject[] = Object.entries(spec.params).map(([name, def]) =>
    withExamples(
      {
        name,
        in: 'query',
        required: spec.required?.includes(name) ?? false,
        description: parameterDescription(name, def, operation),
        schema: { type: 'string', ...def.schema },
      },
      name,
    ),
  );
  list.push(withExamples(FORMAT_PARAMETER, FORMAT_PARAMETER.name));
  return list;
}

function operationDescription(operation: DocumentedOperation): string {
  const { spec, docs, path } = operation;
  const rules: string[] = [];
  for (const name of spec.required ?? []) rules.push(`${code(name)} is required.`);
  for (const group of spec.exactlyOne ?? []) {
    rules.push(`Send exactly one of ${group.map(code).join(', ')}.`);
  }
  rules.push(
    'Any other parameter (a typo such as `dat`) or a parameter sent twice is a 400 naming it; `format` ' +
      'is accepted everywhere.',
  );
  const examples = Object.entries(docs.examples).map(
    ([name, query]) => `- ${name}: \`GET ${url(path, query)}\``,
  );
  return `${docs.description}\n\n**Parameters.** ${rules.join(' ')}\n\n**Examples**\n\n${examples.join('\n')}`;
}

function operationObject(operation: DocumentedOperation): JsonObject {
  const { docs, path } = operation;
  const problems = Object.fromEntries(
    PROBLEM_RESPONSES.map(([status, name]) => [String(status), { $ref: `#/components/responses/${name}` }]),
  );
  return {
    operationId: operationName(path),
    summary: docs.summary,
    description: operationDescription(operation),
    tags: [docs.tag],
    parameters: parameters(operation),
    responses: {
      '200': {
        description:
          `JSON by default; CSV with \`Accept: text/csv\` or \`format=csv\`. ${docs.csv} ` +
          'Compressed (br, gzip) when `Accept-Encoding` allows and the body is over 1 KiB.',
        headers: headerRefs([...NOT_MODIFIED_HEADERS, 'Content-Disposition']),
        content: {
          'application/json': { schema: docs.response },
          'text/csv': { schema: { type: 'string', description: docs.csv } },
        },
      },
      '304': {
        description: 'Not modified: `If-None-Match` names the current `ETag`; no body.',
        headers: headerRefs(NOT_MODIFIED_HEADERS),
      },
      ...problems,
    },
    // Machine-readable forms of the rules and examples above (OpenAPI cannot express exclusive
    // parameters); openapi.test.ts runs every example against the seeded store.
    'x-gridquote-exactly-one': operation.spec.exactlyOne ?? [],
    'x-gridquote-examples': Object.entries(docs.examples).map(([name, query]) => ({
      name,
      url: url(path, query),
    })),
  };
}

const INFO_DESCRIPTION = `Read-only market data of an AU/NZ energy derivatives exchange: futures and options
on electricity, gas and environmental products. Nine \`GET\` operations under \`/api/\`, each answering
JSON or CSV.

**Authentication.** Every operation needs \`Authorization: Bearer <API key>\` (a key is
\`gq_<id>_<secret>\`; the id is public). Authentication is decided before any parameter is looked at.
Keys have an access level: \`historical\` honours every date parameter; \`end_of_day\` ignores every
date-like parameter (\`date\`, datamine's \`from\`/\`to\`) and answers the latest data, naming what it ignored
in \`Ignored-Parameters\`.

**Representations.** JSON by default; \`Accept: text/csv\` (q-values honoured) or \`?format=csv\` selects
CSV, \`?format=json\` JSON. Every JSON value is a string except trades' \`block\` (boolean), datamine's
\`tradingDays\` (number) and intraday's absent values (null). Dates are \`yyyyMMdd\`, times \`HHmmss\`
(Sydney exchange time), bounds inclusive.

**Errors** are \`application/problem+json\` (RFC 9457), also when CSV was asked for: \`type\`
(\`tag:gridquote,2025:problems/<code>\`), \`title\`, \`status\`, \`detail\`, and \`errors\` listing every
bad parameter. Checks run in this order: 401, 429, 400, 406, 404; before them all, a request target (path
and query) over 4 KiB is a \`414\` on any path.

**Methods.** Every path of this document answers \`GET\` and \`HEAD\` (the same headers, no body). A plain
\`OPTIONS\` is a \`204\` with \`Allow: GET, HEAD, OPTIONS\` (a CORS preflight from an allowed origin: a
\`204\` with the CORS headers); any other method is a \`405\` problem (\`method-not-allowed\`) with that
\`Allow\`. Each path below describes its \`GET\` only.

**This document** is public (no API key) and generated by the server from the same parameter specs
that validate requests; its examples name days and contracts of the store this server holds. The
interactive reference page is at [/docs](/docs), an index of the operations at [/api](/api).`;

/** Paths that are not operations of the usual shape (the event stream), with their security schemes. */
export interface ExtraPaths {
  readonly paths: Readonly<Record<string, JsonObject>>;
  readonly securitySchemes: Readonly<Record<string, JsonObject>>;
  readonly tags: readonly string[];
}

/** Every placeholder the operations' examples use (examples.ts). */
export function examplePlaceholders(operations: readonly DocumentedOperation[]): Set<string> {
  return new Set(
    operations.flatMap((operation) => Object.values(operation.docs.examples).flatMap(placeholdersOf)),
  );
}

/** The operation with its examples filled from `values` (examples.ts); unfillable ones left out. */
export function withExamples(operation: DocumentedOperation, values: ExampleValues): DocumentedOperation {
  return {
    ...operation,
    docs: { ...operation.docs, examples: fillExamples(operation.docs.examples, values) },
  };
}

/**
 * The document, its examples filled from `values`: the served store's (reference-page.ts), or
 * by default those of the store docs/api.md's examples come from.
 */
export function buildOpenApiDocument(
  described: readonly DocumentedOperation[],
  values: ExampleValues = STATIC_EXAMPLE_VALUES,
  extra?: ExtraPaths,
): JsonObject {
  const operations = described.map((operation) => withExamples(operation, values));
  const tags = [...new Set([...operations.map((operation) => operation.docs.tag), ...(extra?.tags ?? [])])];
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'gridquote market data API',
      version: '1',
      summary: 'Market data of an AU/NZ energy derivatives exchange',
      description: INFO_DESCRIPTION,
    },
    // Relative: the document describes whichever host serves it.
    servers: [{ url: '/', description: 'this server' }],
    security: [{ apiKey: [] }],
    tags: tags.map((name) => ({ name })),
    paths: {
      ...Object.fromEntries(
        operations.map((operation) => [operation.path, { get: operationObject(operation) }]),
      ),
      ...extra?.paths,
    },
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'gq_<id>_<secret>',
          description: 'An API key issued with `gridquote keys create`.',
        },
        ...extra?.securitySchemes,
      },
      headers: HEADERS,
      schemas: { Problem: problemSchema },
      responses: Object.fromEntries(
        PROBLEM_RESPONSES.map(([status, name, summary, headers]) => [
          name,
          problemResponse(status, summary, headers),
        ]),
      ),
    },
  };
}
