import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api-harness.js';
import { ASSET_FILES, DOCS_PATH, PAGE_CSP } from './reference-page.js';

let api: Harness;

beforeAll(async () => {
  api = await createHarness({ days: 1 });
});
afterAll(() => api?.close());

/** Every URL the HTML refers to (src, href). */
function references(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');
}

describe('the reference page', () => {
  it('is served without an API key, under a policy that allows this origin only', async () => {
    const response = await api.get(DOCS_PATH, { key: null });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(PAGE_CSP).toContain("default-src 'none'");
    expect(PAGE_CSP).not.toMatch(/https?:|\*/);
    // No other host: no absolute URL at all, every reference is a path on this server.
    expect(response.body).not.toMatch(/https?:\/\//);
    const refs = references(response.body);
    expect(refs.length).toBeGreaterThanOrEqual(4);
    for (const ref of refs) expect(ref).toMatch(/^\/(docs|api)\//);
    expect((await api.get(`${DOCS_PATH}/`, { key: null })).statusCode).toBe(200);
  });

  it('serves every asset the page refers to from this server', async () => {
    const page = await api.get(DOCS_PATH, { key: null });
    for (const ref of references(page.body)) {
      const response = await api.get(ref, { key: null });
      expect(response.statusCode, ref).toBe(200);
      expect(response.rawPayload.length, ref).toBeGreaterThan(0);
    }
  });

  it('serves the Swagger UI bundle and stylesheet from swagger-ui-dist, gzipped when accepted', async () => {
    const bundle = await api.get(`${DOCS_PATH}/assets/swagger-ui-bundle.js`, { key: null });
    expect(bundle.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(bundle.body).toContain('SwaggerUIBundle');
    const zipped = await api.app.inject({
      url: `${DOCS_PATH}/assets/swagger-ui.css`,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(gunzipSync(zipped.rawPayload).toString()).toContain('.swagger-ui');
    expect(ASSET_FILES).toContain('swagger-ui.css');
  });

  it("starts Swagger UI on this server's document, with no online validator", async () => {
    const init = await api.get(`${DOCS_PATH}/init.js`, { key: null });
    expect(init.statusCode).toBe(200);
    expect(init.body).toContain("url: '/api/openapi.json'");
    expect(init.body).toContain('validatorUrl: null');
    expect(init.body).not.toMatch(/https?:\/\//);
  });

  it('reaches nothing else of node_modules', async () => {
    for (const url of [
      `${DOCS_PATH}/assets/package.json`,
      `${DOCS_PATH}/assets/../package.json`,
      `${DOCS_PATH}/assets/swagger-ui-bundle.js.map`,
    ]) {
      expect((await api.get(url, { key: null })).statusCode, url).toBe(404);
    }
  });
});
