import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { claimHolders, cutClaim } from '../../test/pg-exchange-claim.js';
import { waitFor } from '../../test/wait-for.js';
import { testNatsUrl, testPostgresUrl, testRedisUrl } from '../config.js';
import { openStore } from '../store/open-store.js';
import { dropSchemas } from '../store/postgres/drop-schemas.js';
import { schemaUrl } from '../store/postgres/schema-url.js';
import { registerCluster, withoutCredentials } from './cluster.js';
import { createProgram, runCli } from './run-cli.js';

/**
 * `gridquote cluster` as an operator runs it: a real process with its children, on the test
 * PostgreSQL, NATS and Redis, isolated under a name of its own (schema, stream, key prefix),
 * all removed afterwards.
 */
const PG_URL = testPostgresUrl();
const NATS_URL = testNatsUrl();
const REDIS_URL = testRedisUrl();
const ready = PG_URL !== undefined && NATS_URL !== undefined && REDIS_URL !== undefined;
if (!ready) {
  console.log(
    'cluster.test.ts: skipped, it needs GRIDQUOTE_TEST_PG_URL, GRIDQUOTE_TEST_NATS_URL and GRIDQUOTE_TEST_REDIS_URL',
  );
}

const ROOT = join(import.meta.dirname, '..', '..');
const LOADER = new URL('../../test/typescript-loader.mjs', import.meta.url).href;
const NAME = `gq_test_cluster_${randomBytes(4).toString('hex')}`;
const workdir = mkdtempSync(join(tmpdir(), 'gq-cluster-'));
let cluster: ChildProcess | undefined;

afterAll(async () => {
  if (cluster && cluster.exitCode === null && cluster.signalCode === null) cluster.kill('SIGKILL');
  rmSync(workdir, { recursive: true, force: true });
  if (!ready) return;
  await dropSchemas(PG_URL, [NAME]);
  const nc = await connect({ servers: NATS_URL });
  try {
    await (await jetstreamManager(nc)).streams.delete(NAME).catch(() => undefined);
  } finally {
    await nc.close();
  }
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${NAME}:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
});

/** A GET on a connection of its own (no keep-alive), so the front picks a replica for each. */
function fetchFresh(url: string, key?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = get(
      url,
      { agent: false, headers: key ? { authorization: `Bearer ${key}` } : {} },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
  });
}

/** The first event of an event stream opened through the front, then the stream is closed. */
function firstStreamEvent(url: string, key: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent: false, headers: { authorization: `Bearer ${key}` } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        const event = /^id: .*\nevent: .*\ndata: .*\n/m.exec(text);
        if (event) {
          request.destroy();
          resolve(event[0]);
        }
      });
    });
    request.on('error', (error) => {
      if (!request.destroyed) reject(error);
    });
    request.setTimeout(20_000, () => request.destroy(new Error('no stream event within 20 s')));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('gridquote cluster: its banner', () => {
  it('prints Redis and NATS URLs without their credentials', () => {
    expect(withoutCredentials('redis://:s3cret@cache:6379/0')).toBe('redis://***@cache:6379/0');
    expect(withoutCredentials('rediss://gq:s3cret@cache:6380')).toBe('rediss://***@cache:6380');
    expect(withoutCredentials('nats://token@n1:4222,nats://u:p@n2:4222')).toBe(
      'nats://***@n1:4222,nats://***@n2:4222',
    );
    expect(withoutCredentials('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
    expect(withoutCredentials('redis://:p@ss@cache:6379')).toBe('redis://***@cache:6379');
  });
});

describe('gridquote cluster: its arguments', () => {
  async function cluster(args: string[]): Promise<{ code: number; stderr: string }> {
    let stderr = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        stderr += String(chunk);
        done();
      },
    });
    const program = createProgram({ stdout: sink, stderr: sink });
    registerCluster(program);
    const code = await runCli(program, ['node', 'gridquote', 'cluster', ...args], sink);
    return { code, stderr };
  }

  it('refuses a name that could not be a schema, stream and prefix, a SQLite store, a Redis location of no form, and an unreachable NATS', async () => {
    expect(await cluster(['--name', 'Bad-Name'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/--name.*lower-case letters/),
    });
    expect(await cluster(['--db', 'market.db'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^gridquote: cluster needs a postgres:\/\/ store, got market\.db\n$/),
    });
    const refusedRedis = await cluster(['--redis', 'redis+sentinel://:hunter2@s1/m']);
    expect(refusedRedis).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/--redis.*must name each sentinel as host:port/),
    });
    expect(refusedRedis.stderr).not.toContain('hunter2');
    expect(await cluster(['--nats', 'nats://127.0.0.1:1'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^gridquote: cannot reach NATS at nats:\/\/127\.0\.0\.1:1: /),
    });
  });

  it.skipIf(!ready)('refuses a schema whose exchange another cluster or demo runs', async () => {
    const name = `${NAME}_held`;
    const holder = await openStore(await schemaUrl(PG_URL ?? '', name), { access: 'write', create: true });
    try {
      expect(await holder.claimExchange()).toBeDefined();
      const args = ['--db', PG_URL ?? '', '--nats', NATS_URL ?? '', '--redis', REDIS_URL ?? ''];
      expect(await cluster([...args, '--name', name, '--port', '0'])).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(
          /^gridquote: another cluster or demo is running the exchange on .*: stop it, or give this one a --name of its own\n$/,
        ),
      });
    } finally {
      await holder.close();
      await dropSchemas(PG_URL ?? '', [name]);
    }
  });
});

describe.skipIf(!ready)('gridquote cluster', () => {
  it('serves through one port from both replicas, live, restarts a child that dies, and stops every process on SIGINT', {
    timeout: 60_000,
  }, async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        LOADER,
        join(ROOT, 'src', 'cli', 'main.ts'),
        'cluster',
        '--db',
        PG_URL ?? '',
        '--nats',
        NATS_URL ?? '',
        '--redis',
        REDIS_URL ?? '',
        '--name',
        NAME,
        '--port',
        '0',
        '--days',
        '1',
        '--speed',
        '600',
      ],
      // Its keys file goes to ./data of the working directory: a temporary one.
      { cwd: workdir, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    cluster = child;
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

    const banner = await waitFor(
      'the banner',
      () =>
        child.exitCode !== null
          ? Promise.reject(new Error(`cluster exited: ${stderr}`))
          : stdout.includes('Ctrl-C stops') && stdout,
      { timeoutMs: 40_000, intervalMs: 50 },
    );
    const front = /gridquote cluster serving (http:\/\/\S+)/.exec(banner)?.[1] ?? '';
    const key = /historical key: +(\S+)/.exec(banner)?.[1] ?? '';
    const replicas = [...banner.matchAll(/^ {2}api-\d +(\d+) +(http:\/\/\S+)\/healthz/gm)].map((m) => ({
      pid: Number(m[1]),
      url: m[2] ?? '',
    }));
    const pids = [...banner.matchAll(/^ {2}(?:feed|ingest|api-\d) +(\d+)/gm)].map((m) => Number(m[1]));
    expect(replicas).toHaveLength(2);
    expect(pids).toHaveLength(4);
    for (const pid of pids) expect(alive(pid)).toBe(true);
    // The store's and Redis's URLs (which may hold passwords) reach the children in their
    // environment, not on command lines that every user of the machine can read.
    for (const pid of pids) {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      expect(commandLine).toMatch(/ (serve|ingest|feed publish) /);
      expect(commandLine).not.toMatch(/postgres(ql)?:\/\/|rediss?:\/\//);
    }

    // Every process's health: the replicas' probes, the worker's metrics.
    for (const replica of replicas) {
      expect((await fetchFresh(`${replica.url}/healthz`)).status).toBe(200);
      expect((await fetchFresh(`${replica.url}/readyz`)).status).toBe(200);
    }
    const ingestUrl = /^ {2}ingest +\d+ +(http:\/\/\S+)\/healthz/m.exec(banner)?.[1] ?? '';
    expect((await fetchFresh(`${ingestUrl}/metrics`)).body).toContain('gridquote_ingest_consumer_pending');

    // Live: the intraday answer through the front moves as the feed goes through NATS and the worker.
    const intraday = `${front}/api/intraday?futures=au_electricity`;
    const first = await fetchFresh(intraday, key);
    expect(first.status).toBe(200);
    await waitFor(
      'the intraday answer to move',
      async () => (await fetchFresh(intraday, key)).body !== first.body,
      // A poll a second: with the requests in a row below, the banner's key (10 a second, 60 a
      // minute) is never refused. At 250 ms a fast machine spent its second's 10 and got a 429.
      { timeoutMs: 30_000, intervalMs: 1_000 },
    );

    // Both replicas answered requests made through the one port (each counts its own).
    for (let i = 0; i < 6; i += 1) expect((await fetchFresh(intraday, key)).status).toBe(200);
    for (const replica of replicas) {
      const metrics = (await fetchFresh(`${replica.url}/metrics`)).body;
      const served = /^gridquote_http_requests_total\{operation="intraday",status="200"\} (\d+)/m.exec(
        metrics,
      );
      expect(Number(served?.[1] ?? 0), `${replica.url} served none`).toBeGreaterThan(0);
    }

    // An event stream flows through the front.
    expect(await firstStreamEvent(`${front}/api/stream?futures=BNZ&type=trade`, key)).toMatch(
      /^id: \d{8}-\d+/,
    );

    // A child that dies is restarted: the worker killed outright comes back and the market moves on;
    // a replica killed outright leaves the other serving through the front, and comes back too.
    const ingestPid = /^ {2}ingest +(\d+)/m.exec(banner)?.[1];
    process.kill(Number(ingestPid), 'SIGKILL');
    await waitFor('the worker restarted', () => /cluster: ingest is back \(pid (\d+)/.exec(stderr)?.[1], {
      timeoutMs: 20_000,
    });
    expect(stderr).toContain('cluster: ingest exited unexpectedly (SIGKILL); restarting it in 1 s');
    const afterRestart = (await fetchFresh(intraday, key)).body;
    await waitFor(
      'the intraday answer to move after the restart',
      async () => (await fetchFresh(intraday, key)).body !== afterRestart,
      { timeoutMs: 30_000, intervalMs: 1_000 },
    );
    process.kill(replicas[0]?.pid ?? 0, 'SIGKILL');
    // Once it is gone (a connection it accepted before dying would be cut, as behind any balancer):
    await waitFor('the replica gone', () => stderr.includes('cluster: api-1 exited unexpectedly'), {
      timeoutMs: 10_000,
    });
    for (let i = 0; i < 4; i += 1) expect((await fetchFresh(intraday, key)).status).toBe(200);
    const back = await waitFor(
      'the replica restarted',
      () => /cluster: api-1 is back \(pid (\d+)/.exec(stderr)?.[1],
      {
        timeoutMs: 20_000,
      },
    );
    pids.push(Number(back), Number(/cluster: ingest is back \(pid (\d+)/.exec(stderr)?.[1]));

    // The exchange claim's connection cut (a PostgreSQL restart, an administrator): the cluster
    // claims its exchange again on a new connection and runs on.
    const cut = await cutClaim(PG_URL ?? '', NAME);
    await waitFor(
      'the exchange claimed again',
      async () => {
        const holders = await claimHolders(PG_URL ?? '', NAME);
        return holders.length === 1 && holders[0] !== cut;
      },
      { timeoutMs: 10_000 },
    );
    expect(child.exitCode).toBeNull();

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).toContain('cluster: stopped');
    for (const pid of pids) expect(alive(pid), `pid ${pid} still running`).toBe(false);
  });
});
