import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededStore } from '../../test/fixtures.js';
import { createApiKey } from '../http/api-keys.js';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import type { CliIo } from './cli-io.js';
import { createProgram, runCli } from './run-cli.js';
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

/** Runs `gridquote serve ...` in process with captured output, as the commands' own tests do. */
async function runServe(args: readonly string[]): Promise<{ code: number; stderr: Capture }> {
  const stderr = new Capture();
  const stdout = new Capture();
  const io: CliIo = {
    stdout,
    stderr,
    stdin: new PassThrough().end(),
    now: () => new Date(),
    openStore: openSqliteStore,
  };
  const program = createProgram({ stdout, stderr });
  registerServe(program, io);
  const code = await runCli(program, ['node', 'gridquote', ...args], stderr);
  return { code, stderr };
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

  it('refuses a missing store file or a bad port with one clear line', async () => {
    for (const [args, message] of [
      [['serve', '--db', join(dir, 'nope.db')], /no store at/],
      [['serve', '--db', db, '--port', 'http'], /--port must be a port number/],
    ] as const) {
      const { code, stderr } = await runServe(args);
      expect(code).toBe(1);
      expect(stderr.text).toMatch(/^gridquote: [^\n]+\n$/);
      expect(stderr.text).toMatch(message);
    }
  });
});

describe('serve configuration', () => {
  it('reports every problem at once, one line each, the store included', async () => {
    const { code, stderr } = await runServe(['serve', '--port', 'http', '--request-timeout-ms', '10s']);
    expect(code).toBe(1);
    expect(stderr.text).toBe(
      [
        'gridquote: config: --port must be a port number 0..65535, got "http"',
        'gridquote: config: --request-timeout-ms must be milliseconds 100..3600000, got "10s"',
        'gridquote: config: serve needs a store: pass --db FILE or set GRIDQUOTE_DB',
        '',
      ].join('\n'),
    );
  });
});

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}
