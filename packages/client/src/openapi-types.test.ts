import { describe, expect, it } from 'vitest';
import { createHarness } from '../../../test/api-harness.js';
import { openApiToTypeScript } from '../scripts/openapi-to-typescript.js';
import { OPERATIONS } from './openapi-types.js';

describe('the client types against the server', () => {
  it('openapi-types.ts is exactly what the served OpenAPI document generates', async () => {
    const harness = await createHarness();
    try {
      const response = await harness.get('/api/openapi.json', { key: null });
      expect(response.statusCode).toBe(200);
      const generated = openApiToTypeScript(response.json());
      // Fails on any drift; `vitest run <this file> -u` rewrites the file after an API change.
      await expect(generated).toMatchFileSnapshot('./openapi-types.ts');
    } finally {
      await harness.close();
    }
  });

  it('names every operation the app serves, with the parameters it accepts', async () => {
    const harness = await createHarness();
    try {
      const document = (await harness.get('/api/openapi.json', { key: null })).json() as {
        paths: Record<string, { get: { parameters: { name?: string; $ref?: string }[] } }>;
      };
      const jsonPaths = Object.values(OPERATIONS).map((operation) => operation.path);
      for (const path of jsonPaths) expect(Object.keys(document.paths)).toContain(path);
      for (const operation of Object.values(OPERATIONS)) {
        const names = document.paths[operation.path]?.get.parameters.map((parameter) =>
          parameter.$ref === undefined ? parameter.name : parameter.$ref.split('/').pop(),
        );
        expect(names).toEqual([...operation.parameters]);
      }
      expect(Object.keys(OPERATIONS)).toEqual([
        'ticker',
        'epi',
        'npi',
        'tradelog',
        'messages',
        'trades',
        'data',
        'intraday',
        'datamine',
      ]);
    } finally {
      await harness.close();
    }
  });
});
