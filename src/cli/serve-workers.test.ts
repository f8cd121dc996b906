import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seededStore } from '../../test/fixtures.js';
import { waitFor } from '../../test/wait-for.js';
import { nextTradingDay } from '../domain/calendar.js';
import type { Simulator } from '../feed/simulator/simulator.js';
import { createApiKey } from '../http/api-keys.js';
import { ingestEvents } from '../ingest/ingest-events.js';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.js';

/**
 * `gridquote serve --workers 2` as a real process tree (the CLI run from the sources, as in
 * shutdown.test.ts, which also drains two workers on SIGTERM): both workers answer on the one
 * port, a key's rate limit holds across them, and a commit by another process reaches the
 * answers of each. A request log line carries the pid of the process that answered it, which
 * tells the workers apart without a header of their own.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LOADER = new URL('../../test/typescript-loader.mjs', import.meta.url).href;
const UNTIL = '20250227';

let dir: string;
let db: string;
let simulator: Simulator;
/** Without limits. */
let openKey: string;
/** 6 requests a minute, no per-second limit: a burst cannot straddle a window. */
let limitedKey: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gridquote-workers-'));
  db = join(dir, 'market.db');
  const seeded = seededStore({ days: 2, until: UNTIL, path: db });
  simulator = seeded.simulator;
  const open = createApiKey({ level: 'historical', now: new Date(), perSecond: 0, perMinute: 0 });
  const limited = createApiKey({ level: 'historical', now: new Date(), perSecond: 0, perMinute: 6 });
  await seeded.store.keys.insertKey(open.record);
  await seeded.store.keys.insertKey(limited.record);
  openKey = open.key;
  limitedKey = limited.key;
  await seeded.store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Serve {
  readonly child: ChildProcess;
  readonly base: string;
  /** The pids of the request log lines so far, in order. */
  pids(): number[];
  stderr(): string;
}

const running: ChildProcess[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});

async function serveWorkers(workers: number): Promise<Serve> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      LOADER,
      join(ROOT, 'src', 'cli', 'main.ts'),
      'serve',
      '--db',
      db,
      '--port',
      '0',
      '--workers',
      String(workers),
    ],
    { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const base = await waitFor('the start line', () => /at (http:\/\/127\.0\.0\.1:\d+) with/.exec(stderr)?.[1]);
  return {
    child,
    base,
    stderr: () => stderr,
    pids: () =>
      stdout
        .split('\n')
        .filter((line) => line.includes('"msg":"request"'))
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
  };
}

/** One GET on a connection of its own, so that the primary hands each to the next worker. */
function get(base: string, path: string, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { agent: false, headers: { authorization: `Bearer ${key}` } });
    req.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Asks on new connections until both workers have answered: the primary hands connections to
 * the workers in turn, but a worker still busy with the last one may be passed over, so two in
 * a row can reach the same worker. The answers, in order.
 */
async function fromBothWorkers(
  serve: Serve,
  path: string,
  key: string,
): Promise<{ status: number; body: string }[]> {
  const start = serve.pids().length;
  const answers: { status: number; body: string }[] = [];
  while (answers.length < 20) {
    answers.push(await get(serve.base, path, key));
    const pids = (await loggedPids(serve, start + answers.length)).slice(start);
    if (new Set(pids).size === 2) return answers;
  }
  throw new Error(`one worker answered ${answers.length} connections in a row`);
}

/** The status of a stream request; the stream itself is closed at once. */
function streamStatus(base: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { agent: false });
    req.on('response', (response) => {
      resolve(response.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', reject);
    req.end();
  });
}

/** Waits until the log holds `count` request lines and returns their pids. */
function loggedPids(serve: Serve, count: number): Promise<number[]> {
  return waitFor(`${count} request log lines`, () => serve.pids().length >= count && serve.pids());
}

describe('gridquote serve --workers 2', () => {
  it('answers from both workers on one port, none from the primary', async () => {
    const serve = await serveWorkers(2);
    expect(serve.stderr()).toMatch(/^serving .* at http:\/\/127\.0\.0\.1:\d+ with 2 workers\n$/);
    for (let i = 0; i < 8; i++)
      expect((await get(serve.base, '/api/epi?format=csv', openKey)).status).toBe(200);
    const pids = new Set(await loggedPids(serve, 8));
    expect(pids.size).toBe(2);
    expect(pids.has(serve.child.pid ?? -1)).toBe(false);
  });

  it("holds a key to its limit across the workers: a burst gets 429 past the single process's limit", async () => {
    const serve = await serveWorkers(2);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => get(serve.base, '/api/epi?format=csv', limitedKey)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(6);
    expect(statuses.filter((status) => status === 429)).toHaveLength(14);
    // Both workers took part in the burst, so each counted against the one shared limit.
    expect(new Set(await loggedPids(serve, 20)).size).toBe(2);
  });

  it('accepts a stream token fetched from one worker at every worker (one secret for all)', async () => {
    const serve = await serveWorkers(2);
    const fetched = await get(serve.base, '/api/stream/token', openKey);
    expect(fetched.status).toBe(200);
    const { token } = JSON.parse(fetched.body) as { token: string };
    const statuses = [];
    // Consecutive connections go to the workers in turn (the first tests show it by the log's
    // pids; an aborted stream logs no line): with a secret per worker, every other one is a 401.
    for (let i = 0; i < 6; i++) {
      statuses.push(await streamStatus(serve.base, `/api/stream?futures=au_electricity&token=${token}`));
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it('replaces a worker that dies, and goes on answering from two', async () => {
    const serve = await serveWorkers(2);
    for (let i = 0; i < 4; i++)
      expect((await get(serve.base, '/api/epi?format=csv', openKey)).status).toBe(200);
    const [victim = 0] = await loggedPids(serve, 4);
    process.kill(victim, 'SIGKILL');
    await waitFor('the replacement', () =>
      serve.stderr().includes(`worker ${victim} exited (signal SIGKILL); starting another`),
    );
    const before = serve.pids().length;
    await waitFor('answers from two live workers', async () => {
      for (let i = 0; i < 4; i++) {
        if ((await get(serve.base, '/api/epi?format=csv', openKey).catch(() => undefined))?.status !== 200) {
          return false;
        }
      }
      const pids = new Set(serve.pids().slice(before));
      return pids.size === 2 && !pids.has(victim);
    });
  });

  /** `serve --workers 2` expected not to start: its exit code and everything it said. */
  async function failedStart(args: string[]): Promise<{ code: number | null; stderr: string }> {
    const main = join(ROOT, 'src', 'cli', 'main.ts');
    const child = spawn(process.execPath, ['--import', LOADER, main, 'serve', ...args, '--workers', '2'], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    running.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    return { code, stderr };
  }

  it('exits 1 with one line when a worker cannot listen', async () => {
    const taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    try {
      const { port } = taken.address() as AddressInfo;
      const { code, stderr } = await failedStart(['--db', db, '--port', String(port)]);
      expect(code).toBe(1);
      // the workers' reason, said once by the primary: not once per worker and a line of its own
      // (the primary binds for the workers: Node words it "bind EADDRINUSE 127.0.0.1:<port>")
      expect(stderr).toMatch(new RegExp(`^gridquote: [^\n]*EADDRINUSE[^\n]*127\\.0\\.0\\.1:${port}\n$`));
    } finally {
      taken.close();
    }
  });

  it('exits 1 with one line when the workers cannot open the store', async () => {
    const { code, stderr } = await failedStart([
      '--db',
      'postgres://gq:secret@127.0.0.1:1/market',
      '--port',
      '0',
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^gridquote: cannot reach PostgreSQL at 127\.0\.0\.1:1\/market: [^\n]+\n$/);
    expect(stderr).not.toContain('secret');
  });

  it('shows a commit by another process in the answers of every worker', async () => {
    const serve = await serveWorkers(2);
    const newDay = nextTradingDay(UNTIL);
    // Both workers answer (and cache) the history before the commit.
    for (const answer of await fromBothWorkers(serve, '/api/epi?format=csv', openKey)) {
      expect(answer.body).not.toContain(`\n${newDay},`);
    }

    const writer = openSqliteStore(db);
    try {
      await ingestEvents(writer.writer, simulator.simulateDay(newDay));
    } finally {
      await writer.close();
    }
    // A worker still serving its stale cached answer would keep some of every round from
    // showing the new day.
    await waitFor('every worker to answer with the new day', async () => {
      const round = await Promise.all(
        Array.from({ length: 4 }, () => get(serve.base, '/api/epi?format=csv', openKey)),
      );
      return round.every((answer) => answer.status === 200 && answer.body.includes(`\n${newDay},`));
    });
    for (const answer of await fromBothWorkers(serve, '/api/epi?format=csv', openKey)) {
      expect(answer.body).toContain(`\n${newDay},`);
    }
  });
});
