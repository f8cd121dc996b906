import { Writable } from 'node:stream';
import { PROCESS_IO } from '../cli/cli-io.js';
import { startDemo } from '../cli/demo.js';
import { seedStore } from '../cli/seed.js';
import { startServer } from '../cli/serve.js';
import { createApiKey } from '../http/api-keys.js';
import { buildApp } from '../http/app.js';
import { openStore } from '../store/open-store.js';
import type { MarketStore } from '../store/store.js';
import { type ServerChildConfig, sendReady, serveParent } from './http-child.js';

/**
 * A gridquote server in its own process for the HTTP benchmark (http-bench.ts): argv[2] is a
 * ServerChildConfig as JSON. It adds an API key of its own (historical, with rate limits far
 * above any load the bench can make, but not 0, so the limiter still counts every request),
 * reports `ready` over IPC and stops when told to.
 */

/** High enough never to refuse, low enough that the limiter still runs (0 would skip it). */
const BENCH_LIMIT = 1_000_000_000;
const HOST = '127.0.0.1';

const config = JSON.parse(process.argv[2] ?? '{}') as ServerChildConfig;

interface Started {
  readonly url: string;
  readonly store: MarketStore;
  close(): Promise<void>;
}

async function start(): Promise<Started> {
  switch (config.mode) {
    case 'serve': {
      // Writable as on main before read-only serving: the child inserts its own key below.
      const server = await startServer({
        db: config.db,
        writable: true,
        port: 0,
        host: HOST,
        logLevel: config.logLevel,
      });
      return {
        url: server.url,
        store: server.store,
        close: async () => {
          await server.close();
        },
      };
    }
    case 'no-cache': {
      // startServer has no cache setting: the same composition as its own, with cacheBytes 0.
      const store = await openStore(config.db, { access: 'write' });
      const app = buildApp({
        reader: store.reader,
        keys: store.keys,
        logger: config.logLevel === false ? false : { level: config.logLevel },
        onAppend: (listener) => store.onAppend(listener),
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

function discard(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

const started = await start();
const key = createApiKey({
  level: 'historical',
  name: 'bench http',
  perSecond: BENCH_LIMIT,
  perMinute: BENCH_LIMIT,
  now: new Date(),
});
await started.store.keys.insertKey(key.record);
serveParent(
  () => started.close(),
  () => started.store.reader.version(),
);
sendReady({ type: 'ready', url: started.url, key: key.key, dates: await started.store.reader.dates() });
