import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on the module `name` beside the module `here` (its import.meta.url):
 * the compiled `name.js` in a build, the TypeScript source `name.ts` through the sources' own
 * loader when `here` is a source file (tests). The ingest thread and the WAL checkpoint thread
 * start this way.
 */
export function startWorker(here: string, name: string, workerData: unknown): Worker {
  if (!here.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, here), { workerData });
  const loader = new URL('../../test/typescript-loader.mjs', import.meta.url).href;
  const script = new URL(`./${name}.ts`, here).href;
  return new Worker(`import(${JSON.stringify(loader)}).then(() => import(${JSON.stringify(script)}))`, {
    eval: true,
    workerData,
  });
}
