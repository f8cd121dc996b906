import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOneLineError, runGridquote } from '../../test/cli-in-process.js';
import { seededStore } from '../../test/fixtures.js';
import { createApiKey } from '../http/api-keys.js';
import { registerServe, startServer } from './serve.js';

let dir: string;
let db: string;
let key: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gridquote-serve-'));
  db = join(dir, 'market.db');
  const { store } = seededStore({ days: 1, path: db });
  const created = createApiKey({ level: 'historical', now: new Date() });
  await store.keys.insertKey(created.record);
  key = created.key;
  await store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `gridquote serve ...` in process; only its refusals return. */
function runServe(args: readonly string[]) {
  return runGridquote(args, { commands: [registerServe] });
}

describe('serve', () => {
  it('serves a store file over HTTP', async () => {
    const server = await startServer({ db, port: 0, host: '127.0.0.1', logLevel: false });
    try {
      const response = await fetch(`${server.url}/api/epi?format=csv`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect((await response.text()).startsWith('date,year,epi\n20250228,')).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('lets the pages of the configured origins call it (CORS), over a real socket', async () => {
    const server = await startServer({
      db,
      port: 0,
      host: '127.0.0.1',
      logLevel: false,
      corsOrigins: ['http://localhost:8888'],
    });
    try {
      const preflight = await fetch(`${server.url}/api/epi`, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://localhost:8888',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:8888');
      const answer = await fetch(`${server.url}/api/epi`, {
        headers: { authorization: `Bearer ${key}`, origin: 'http://localhost:8888' },
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBe('http://localhost:8888');
      const stranger = await fetch(`${server.url}/api/epi`, {
        headers: { authorization: `Bearer ${key}`, origin: 'http://localhost:9999' },
      });
      expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await server.close();
    }
  });

  it('refuses a missing store file or a bad port with one clear line', async () => {
    for (const [args, message] of [
      [['serve', '--db', join(dir, 'nope.db')], /no store at/],
      [['serve', '--db', db, '--port', 'http'], /--port must be a port number/],
    ] as const) {
      const result = await runServe(args);
      expect(result.code).toBe(1);
      expectOneLineError(result, message);
    }
  });
});

describe('serve configuration', () => {
  it('reports every problem at once, one line each, the store included', async () => {
    const { code, stderr } = await runServe([
      'serve',
      '--port',
      'http',
      '--request-timeout-ms',
      '10s',
      '--cors-origins',
      'dash.example.com',
    ]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      [
        'gridquote: config: --port must be a port number 0..65535, got "http"',
        'gridquote: config: --request-timeout-ms must be milliseconds 100..3600000, got "10s"',
        'gridquote: config: --cors-origins must be origins such as https://dash.example.com (scheme, host, optional port; no path), got "dash.example.com"',
        'gridquote: config: serve needs a store: pass --db FILE or set GRIDQUOTE_DB',
        '',
      ].join('\n'),
    );
  });
});
