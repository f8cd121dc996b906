import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, describe, expect, it } from 'vitest';
import { expectOneLineError, runGridquote } from '../../test/cli-in-process.js';
import { testNatsUrl } from '../config.js';
import { formatFeedEvent } from '../feed/ndjson.js';
import { createSimulator } from '../feed/simulator/simulator.js';
import { registerFeed } from './feed.js';
import { registerIngest } from './ingest.js';

const NATS_URL = testNatsUrl();
if (!NATS_URL) console.log('feed.test.ts: publishing skipped, GRIDQUOTE_TEST_NATS_URL is not set');

const directory = mkdtempSync(join(tmpdir(), 'gridquote-feed-'));
const streams: string[] = [];

afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
  if (NATS_URL && streams.length > 0) {
    const nc = await connect({ servers: NATS_URL });
    const jsm = await jetstreamManager(nc);
    for (const stream of streams) await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
  }
});

function gridquote(args: string[], stdin = '') {
  return runGridquote(args, {
    commands: [registerIngest, registerFeed],
    now: () => new Date('2026-03-03T08:00:00Z'),
    stdin,
  });
}

describe('gridquote feed publish and ingest --from: their arguments', () => {
  const nats = 'nats://127.0.0.1:1';

  it('need exactly one source', async () => {
    expectOneLineError(await gridquote(['feed', 'publish', '--nats', nats]), /exactly one source/);
    expectOneLineError(
      await gridquote(['feed', 'publish', '--nats', nats, '--simulate', 'x.ndjson']),
      /exactly one source/,
    );
    const db = join(directory, 'args.db');
    expectOneLineError(
      await gridquote(['ingest', '--db', db]),
      /needs a FEED file, - for standard input, or --from/,
    );
    expectOneLineError(await gridquote(['ingest', '--db', db, 'x.ndjson', '--from', nats]), /not both/);
  });

  it('refuse a server that is not a nats:// URL and a stream name that cannot be a subject prefix', async () => {
    expectOneLineError(
      await gridquote(['feed', 'publish', '--nats', 'http://127.0.0.1:4222', '--simulate']),
      /expected nats:\/\/host:port/,
    );
    // Not repeated: a URL may hold a password.
    const refused = await gridquote(['ingest', '--db', 'x.db', '--from', 'http://gq:hunter2@127.0.0.1:4222']);
    expectOneLineError(refused, /^gridquote: NATS: expected nats:\/\/host:port or tls:\/\/host:port/);
    expect(refused.stderr).not.toContain('hunter2');
    expectOneLineError(
      await gridquote(['feed', 'publish', '--nats', nats, '--simulate', '--stream', 'a.b']),
      /stream name must be 1\.\.64 letters/,
    );
    expectOneLineError(
      await gridquote(['feed', 'publish', '--nats', nats, '--simulate', '--replay-clock', '20260302,now,60']),
      /--replay-clock.*must be <trading day yyyyMMdd>/,
    );
    expectOneLineError(
      await gridquote([
        'feed',
        'publish',
        '--nats',
        nats,
        '--simulate',
        '--speed',
        '60',
        '--replay-clock',
        '20260302,2026-03-02T00:00:00Z,60',
      ]),
      /give it without --from and --speed/,
    );
    expectOneLineError(
      await gridquote(['ingest', '--db', join(directory, 'x.db'), '--from', nats, '--batch-size', '0']),
      /expected messages \(1\.\.65536\)/,
    );
  });
});

describe.skipIf(!NATS_URL)('gridquote feed publish against NATS', () => {
  const url = NATS_URL ?? '';
  const events = createSimulator({ seed: 2 }).simulateDay('20260302').slice(0, 50);
  const lines = events.map(formatFeedEvent);

  async function messagesIn(stream: string): Promise<number> {
    const nc = await connect({ servers: url });
    try {
      return (await (await jetstreamManager(nc)).streams.info(stream)).state.messages;
    } finally {
      await nc.close();
    }
  }

  const newStream = () => {
    const name = `gqtest_${randomBytes(6).toString('hex')}`;
    streams.push(name);
    return name;
  };

  it('publishes a file and standard input; publishing again adds nothing to the stream', async () => {
    const stream = newStream();
    const file = join(directory, 'day.ndjson');
    writeFileSync(file, `${lines.slice(0, 30).join('\n')}\n`);
    const first = await gridquote(['feed', 'publish', '--nats', url, '--stream', stream, file]);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/created stream/);
    expect(first.stderr).toMatch(/published 30 events to stream \S+ \(0 were already there\)/);
    const fromStdin = await gridquote(
      ['feed', 'publish', '--nats', url, '--stream', stream, '-'],
      `${lines.join('\n')}\n`,
    );
    expect(fromStdin.stderr).toMatch(/published 50 events to stream \S+ \(30 were already there\)/);
    expect(await messagesIn(stream)).toBe(50);
  });

  it('stops at the first invalid line of a file, naming it, after publishing the lines before it', async () => {
    const stream = newStream();
    const file = join(directory, 'broken.ndjson');
    writeFileSync(file, `${lines.slice(0, 3).join('\n')}\n{"type":"book"\n${lines[3]}\n`);
    const result = await gridquote(['feed', 'publish', '--nats', url, '--stream', stream, file]);
    expect(result.code).toBe(1);
    // After the note that the stream was created, the failure's one line.
    expect(result.stderr.split('\n').at(-2)).toMatch(
      /^gridquote: line 4: invalid JSON .*the lines before it were published/,
    );
    expect(await messagesIn(stream)).toBe(3);
  });
});
