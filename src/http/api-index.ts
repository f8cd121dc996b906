import type { FastifyInstance } from 'fastify';
import { type ExampleValues, fillExamples, STATIC_EXAMPLE_VALUES } from './examples.js';
import { type DocumentedOperation, OPENAPI_PATH, operationName } from './openapi.js';
import { DOCS_PATH } from './reference-page.js';

/**
 * `GET /api` (and `/api/`): where a newcomer lands first. Public like the documentation: it
 * lists the operations (name, path, summary, parameters, an example that answers on this store)
 * and where the documentation is, and holds no market data.
 */

export const API_INDEX_PATH = '/api';

export function apiIndex(
  operations: readonly DocumentedOperation[],
  values: ExampleValues = STATIC_EXAMPLE_VALUES,
): object {
  return {
    name: 'gridquote market data API',
    version: '1',
    authentication: 'Authorization: Bearer <API key> on every operation',
    documentation: { openapi: OPENAPI_PATH, reference: DOCS_PATH },
    operations: operations.map((operation) => {
      const [example] = Object.values(fillExamples(operation.docs.examples, values));
      return {
        name: operationName(operation.path),
        path: operation.path,
        summary: operation.docs.summary,
        parameters: Object.keys(operation.spec.params),
        ...(example === undefined
          ? {}
          : { example: example === '' ? operation.path : `${operation.path}?${example}` }),
      };
    }),
  };
}

/** Registers the index; returns its path. */
export function registerApiIndex(
  app: FastifyInstance,
  operations: readonly DocumentedOperation[],
  examples: () => Promise<ExampleValues | undefined>,
): string {
  app.get(API_INDEX_PATH, async (_request, reply) =>
    reply
      .header('cache-control', 'no-cache')
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(apiIndex(operations, await examples()))),
  );
  return API_INDEX_PATH;
}
