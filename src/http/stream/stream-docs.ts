import { FORMAT_PARAMETER, headerRefs, type JsonObject } from '../openapi.js';
import type { ParamDef } from '../params.js';
import { STREAM_PATH, STREAM_SPEC, STREAM_TOKEN_PATH } from './stream-route.js';

/**
 * The stream's entries in the OpenAPI document (and so on the reference page): its parameters
 * come from the spec that validates them (stream-route.ts); the events are described in prose,
 * as OpenAPI has no vocabulary for a server-sent event stream.
 */

const EXACTLY_ONE = (STREAM_SPEC.exactlyOne?.[0] ?? []).map((name) => `\`${name}\``).join(', ');

const DESCRIPTION = `Server-sent events (\`text/event-stream\`) of the current trading day: first what the day
already holds (after \`Last-Event-ID\`, or from \`from\`), then each event as it is committed. Every event
has \`id: yyyyMMdd-nnnnnn\` (its trading date and sequence), \`event:\` its kind and \`data:\` one JSON record:
\`book\`, \`trade\`, \`settle\` as the ticker's records; \`message_board\`, \`registered_trades\`,
\`custom_market\` as the messages records; \`publication\` (with \`publications=1\`): \`date\`, \`market\`
(not for epi / npi), \`published\` (\`settlement\`, \`open_interest\`, \`epi\`, \`npi\`) and \`operations\` whose
answers it completes. Heartbeat comments every 15 s. Reconnect with \`Last-Event-ID\` for exactly the
events after it; an id the stream cannot resume from ends it with \`event: error\` (a problem object).
Exactly one of ${EXACTLY_ONE}. \`end_of_day\` keys may stream publications only (403 otherwise). One
key holds at most 5 streams (429 over it, configurable); a client that leaves too much unread gets
\`event: error\` (\`slow-consumer\`) and the stream ends. The stream is \`text/event-stream\` only: an
\`Accept\` that does not allow it, or any \`format\`, is a 406. Browsers: get a token from
\`${STREAM_TOKEN_PATH}\` and send it as \`token\` (EventSource cannot send headers).`;

function parameter(name: string, def: ParamDef<unknown>): JsonObject {
  return {
    name,
    in: 'query',
    required: false,
    description: def.description,
    schema: { type: 'string', ...def.schema },
  };
}

/** On every answer, as on the operations' (app.ts). */
const EVERY_ANSWER = ['API-Version', 'X-Request-Id'];
/** The key is counted (rate-limit.ts admit) before parameters are read: on every later refusal. */
const RATE_LIMIT = ['RateLimit-Policy', 'RateLimit'];

/**
 * Headers of each refusal before the stream starts, besides EVERY_ANSWER: the stream sets no
 * Ignored-Parameters, and its 429 (rate limit or the per-key cap) and 503 carry Retry-After.
 */
const PROBLEM_HEADERS: Readonly<Record<string, readonly string[]>> = {
  '400': RATE_LIMIT,
  '401': ['WWW-Authenticate'],
  '403': RATE_LIMIT,
  '404': RATE_LIMIT,
  '406': RATE_LIMIT,
  '414': [],
  '429': ['Retry-After', ...RATE_LIMIT],
  '503': ['Retry-After', ...RATE_LIMIT],
};

const problems = (statuses: readonly string[]): JsonObject =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description:
          status === '414'
            ? 'A request target over 4 KiB (`uri-too-long`)'
            : 'A refusal before the stream starts',
        headers: headerRefs([...EVERY_ANSWER, ...(PROBLEM_HEADERS[status] ?? [])]),
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      },
    ]),
  );

/**
 * The 200's own Cache-Control: neither the events nor a token may be kept by any cache, unlike
 * the operations' answers (their Cache-Control component).
 */
const NO_STORE: JsonObject = {
  description: '`no-store`: nothing of this answer may be cached.',
  schema: { type: 'string', enum: ['no-store'] },
};

function okHeaders(extra: Readonly<Record<string, JsonObject>> = {}): JsonObject {
  return { ...headerRefs([...EVERY_ANSWER, ...RATE_LIMIT]), 'Cache-Control': NO_STORE, ...extra };
}

/**
 * The token operation reads its query like every operation (stream-route.ts issueToken): no
 * parameter of its own, `format` validated, anything else a 400. It writes JSON whatever is asked.
 */
const TOKEN_FORMAT: JsonObject = {
  ...FORMAT_PARAMETER,
  description:
    'Accepted and validated as on every operation (`json` or `csv`; any other value is a 400), but without ' +
    'effect: the token is always JSON, also with `format=csv` or `Accept: text/csv`.',
};

export const STREAM_SECURITY_SCHEMES: Readonly<Record<string, JsonObject>> = {
  streamToken: {
    type: 'apiKey',
    in: 'query',
    name: 'token',
    description: `A short-lived token from ${STREAM_TOKEN_PATH}, for ${STREAM_PATH} only (browsers' EventSource).`,
  },
};

export const STREAM_PATHS: Readonly<Record<string, JsonObject>> = {
  [STREAM_PATH]: {
    get: {
      operationId: 'stream',
      summary: 'Live events: market data as it is committed, or end-of-day publications',
      description: DESCRIPTION,
      tags: ['stream'],
      security: [{ apiKey: [] }, { streamToken: [] }],
      parameters: [
        ...Object.entries(STREAM_SPEC.params).map(([name, def]) => parameter(name, def as ParamDef<unknown>)),
        {
          name: 'Last-Event-ID',
          in: 'header',
          required: false,
          description: 'Resume after this event id (what EventSource sends when it reconnects).',
          schema: { type: 'string', pattern: '^\\d{8}-\\d{6,}$' },
        },
      ],
      responses: {
        '200': {
          description: 'The event stream.',
          headers: okHeaders({
            'X-Accel-Buffering': {
              description: '`no`: proxies (nginx) pass each event on at once instead of buffering.',
              schema: { type: 'string', enum: ['no'] },
            },
          }),
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        ...problems(['400', '401', '403', '404', '406', '414', '429', '503']),
      },
      'x-gridquote-exactly-one': STREAM_SPEC.exactlyOne ?? [],
    },
  },
  [STREAM_TOKEN_PATH]: {
    get: {
      operationId: 'stream-token',
      summary: `A short-lived token that opens ${STREAM_PATH} without the Authorization header`,
      description:
        'Send the API key as `Authorization: Bearer`; the answer is `{"token", "expires" (Unix seconds), ' +
        '"expires_in" (seconds)}`. The token opens streams until it expires and dies with its key (revoked, ' +
        'expired). It is not an API key: the operations refuse it.',
      tags: ['stream'],
      parameters: [TOKEN_FORMAT],
      responses: {
        '200': {
          description: 'The token.',
          headers: okHeaders(),
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['token', 'expires', 'expires_in'],
                properties: {
                  token: { type: 'string', pattern: '^gqs_' },
                  expires: { type: 'string' },
                  expires_in: { type: 'string' },
                },
              },
            },
          },
        },
        ...problems(['400', '401', '414', '429', '503']),
      },
    },
  },
};
