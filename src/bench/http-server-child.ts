import { Writable } from 'node:stream';
import { PROCESS_IO } from '../cli/cli-io.js';
import { startDemo } from '../cli/demo.js';
import { seedStore } from '../cli/seed.js';
import type { FeedEvent } from '../feed/events.js';
import { createApiKey } from '../http/api-keys.js';
import { buildApp } from '../http/app.js';
import type { StoredBatch } from '../ingest/ingest-thread.js';
import { openStore } from '../store/open-store.js';
import type { MarketStore } from '../store/store.js';
import { FanOutRecorder } from './fan-out-recorder.js';
import {
  BENCH_RATE_LIMIT,
  type CommitMessage,
  type ParentMessage,
  type ServerChildConfig,
  sendReady,
  serveParent,
} from './http-child.js';

/**
 * A gridquote server in its own process for the HTTP benchmark (http-bench.ts): argv[2] is a
 * ServerChildConfig as JSON: the servers `gridquote serve` cannot be (the answer cache off, the
 * demo's live exchange); the cached cases run `gridquote serve` itself. It adds an API key of its
 * own (BENCH_RATE_LIMIT), reports `ready` over IPC and stops when told to.
 */

const HOST = '127.0.0.1';

const config = JSON.parse(process.argv[2] ?? '{}') as ServerChildConfig;
const fanOut = config.mode === 'live' && config.traceFanOut === true ? traceFanOut() : undefined;

interface Started {
  readonly url: string;
  readonly store: MarketStore;
  close(): Promise<void>;
}

async function start(): Promise<Started> {
  switch (config.mode) {
    case 'no-cache': {
      // startServer has no cache setting: the same composition as its own, with cacheBytes 0.
      const store = await openStore(config.db, { access: 'write' });
      const app = buildApp({
        reader: store.reader,
        keys: store.keys,
        logger: config.logLevel === false ? false : { level: config.logLevel },
        onAppend: (listener) => store.onAppend(listener),
        changeNotices: () => store.changeNotices(),
        cacheBytes: 0,
      });
      const url = await app.listen({ port: 0, host: HOST });
      return {
        url,
        store,
        close: async () => {
          await app.close();
          await store.close();
        },
      };
    }
    case 'live': {
      // The demo's own path (seed if needed, serve, replay the next trading days live); the
      // history ends on a fixed past day so the live day is never today and is always replayed.
      const quiet = { ...PROCESS_IO, stderr: discard() };
      await seedStore(quiet, {
        db: config.db,
        days: config.historyDays,
        until: config.until,
        seed: config.seed,
      });
      const demo = await startDemo(
        { ...PROCESS_IO, stdout: discard() },
        {
          db: config.db,
          port: 0,
          host: HOST,
          days: config.historyDays,
          seed: config.seed,
          speed: config.speed,
          ...(config.ingest === undefined ? {} : { ingest: config.ingest }),
          ...(config.tickMs === undefined ? {} : { tickMs: config.tickMs }),
          ...(config.streamsPerKey === undefined ? {} : { streams: { perKey: config.streamsPerKey } }),
          ...(config.reportCommits === true
            ? {
                onCommit: (batch: StoredBatch, events: readonly FeedEvent[]) => {
                  const last = events.at(-1);
                  if (last !== undefined) {
                    fanOut?.committed({ date: last.date, seq: last.seq, atNs: batch.committedAtNs });
                  }
                  process.send?.({
                    type: 'commit',
                    version: batch.version,
                    atNs: String(batch.committedAtNs),
                    noticedNs: String(process.hrtime.bigint()),
                    lastDate: last?.date ?? '',
                    lastSeq: last?.seq ?? 0,
                  } satisfies CommitMessage);
                },
              }
            : {}),
        },
      );
      return {
        url: demo.server.url,
        store: demo.server.store,
        close: async () => {
          await demo.stop();
        },
      };
    }
  }
}

/** The stream hub's writes, timed on the parent's `fan-out` messages. */
function traceFanOut(): FanOutRecorder {
  const recorder = new FanOutRecorder();
  process.on('message', (message: ParentMessage) => {
    if (message.type !== 'fan-out') return;
    if (message.action === 'start') recorder.start();
    else process.send?.(recorder.stop());
  });
  return recorder;
}

function discard(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

const started = await start();
const key = createApiKey({
  level: 'historical',
  name: 'bench http',
  ...BENCH_RATE_LIMIT,
  now: new Date(),
});
await started.store.keys.insertKey(key.record);
serveParent(
  () => started.close(),
  () => started.store.reader.version(),
);
sendReady({ type: 'ready', url: started.url, key: key.key, dates: await started.store.reader.dates() });
