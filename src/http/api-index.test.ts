import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api-harness.js';
import { ROUTES } from './app.js';

let api: Harness;
beforeAll(async () => {
  api = await createHarness({ days: 3 });
});
afterAll(() => api?.close());

interface Index {
  version: string;
  documentation: { openapi: string; reference: string };
  operations: { name: string; path: string; summary: string; parameters: string[]; example?: string }[];
}

describe('GET /api', () => {
  it.each(['/api', '/api/'])('%s lists the operations and the documentation, without a key', async (url) => {
    const response = await api.get(url, { key: null });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['api-version']).toBe('1');
    const index = response.json() as Index;
    expect(index.version).toBe('1');
    expect(index.operations.map((operation) => operation.path)).toEqual(ROUTES.map((route) => route.path));
    expect(index.operations.map((operation) => operation.parameters)).toEqual(
      ROUTES.map((route) => Object.keys(route.spec.params)),
    );
    for (const link of Object.values(index.documentation)) {
      expect((await api.get(link, { key: null })).statusCode, link).toBe(200);
    }
  });

  it('gives each operation an example that answers on this store', async () => {
    const index = (await api.get('/api', { key: null })).json() as Index;
    for (const operation of index.operations) {
      expect(operation.example, operation.name).toBeDefined();
      const response = await api.get(operation.example ?? '');
      expect(response.statusCode, `${operation.example}: ${response.body}`).toBe(200);
    }
  });
});
