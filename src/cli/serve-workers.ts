import cluster, { type Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { startClusterRateLimitCounters } from '../http/rate-limit-cluster.js';
import { ReportedElsewhere } from './run-cli.js';
import {
  type DrainReport,
  runUntilSignal,
  SHUTDOWN_SIGNALS,
  type ShutdownSignal,
  type SignalSource,
} from './shutdown.js';

/**
 * `gridquote serve --workers N` (N > 1): the primary process forks N workers (node:cluster),
 * which share one listening port; each opens the store itself (commits of other processes reach
 * every worker through the store's own change notices) and asks the primary to count its rate
 * limits (http/rate-limit-cluster.ts), so a key's limit holds across the workers. The primary
 * alone reacts to SIGTERM / SIGINT: it tells every worker to drain and exits once all have.
 */

/** Worker -> primary: the worker listens (its URL is the shared one). */
interface ListeningMessage {
  readonly type: 'gridquote-listening';
  readonly url: string;
}

/** Worker -> primary: the worker has drained; forced if it had to cut connections. */
interface StoppedMessage {
  readonly type: 'gridquote-stopped';
  readonly forced: boolean;
}

/** Worker -> primary: the worker could not start, for this reason (it then exits 1). */
interface FailedMessage {
  readonly type: 'gridquote-failed';
  readonly reason: string;
}

/** Primary -> worker: drain now (sent again: hurry, cut the connections). */
interface StopMessage {
  readonly type: 'gridquote-stop';
}

export interface PrimaryOptions {
  readonly workers: number;
  /**
   * Environment variables the workers get besides the primary's: settings they must share and
   * would otherwise each draw for themselves (the stream token secret).
   */
  readonly shared: Readonly<Record<string, string>>;
  /** What is served, for the start line ("serving <this> at <url> ..."). */
  readonly describe: string;
  readonly graceMs: number;
  readonly log: (line: string) => void;
}

/** The primary: forks the workers, waits until they all listen, then until a signal stops them. */
export async function runPrimary(options: PrimaryOptions): Promise<void> {
  startClusterRateLimitCounters();
  const pool = new WorkerPool(options.log, options.shared);
  // A signal while the workers start (a probe may have seen the first one ready) is kept, not
  // left to Node's default, which would end the primary at once and leave no drain.
  const early = new EarlySignal();
  let url: string;
  try {
    url = await pool.start(options.workers);
  } finally {
    early.stopListening();
  }
  options.log(`serving ${options.describe} at ${url} with ${options.workers} workers`);
  await runUntilSignal({ stop: (hurry) => pool.stop(hurry) }, options.log, options.graceMs, early.replayed());
}

/** Remembers the first shutdown signal until the service can stop, then hands it on at once. */
export class EarlySignal {
  #received: ShutdownSignal | undefined;
  readonly #handlers = SHUTDOWN_SIGNALS.map((name) => {
    const handler = () => {
      this.#received ??= name;
    };
    process.on(name, handler);
    return [name, handler] as const;
  });

  stopListening(): void {
    for (const [name, handler] of this.#handlers) process.off(name, handler);
  }

  /** The process's signals, the one received early first. */
  replayed(): SignalSource {
    const signal = this.#received;
    if (signal === undefined) return process;
    let pending: ShutdownSignal | undefined = signal;
    return {
      on(name, listener) {
        process.on(name, listener);
        if (name === pending) {
          pending = undefined;
          queueMicrotask(listener);
        }
      },
      off: (name, listener) => process.off(name, listener),
    };
  }
}

class WorkerPool {
  private readonly workers = new Set<Worker>();
  private stopping = false;
  private forced = false;

  constructor(
    private readonly log: (line: string) => void,
    private readonly env: Readonly<Record<string, string>>,
  ) {}

  /** Resolves with the shared URL once every worker listens; if one fails first, stops the rest and throws. */
  async start(count: number): Promise<string> {
    const ready = Array.from({ length: count }, () => this.fork());
    const settled = await Promise.allSettled(ready);
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed !== undefined) {
      // The others may not listen for a stop message yet; they hold nothing worth draining.
      this.stopping = true;
      const exits = [...this.workers].map((worker) => this.exited(worker));
      for (const worker of this.workers) worker.process.kill('SIGKILL');
      await Promise.all(exits);
      throw failed.reason;
    }
    const first = settled[0];
    return first?.status === 'fulfilled' ? first.value : '';
  }

  /** Tells every worker to drain (again when `hurry` aborts) and resolves when all have exited. */
  async stop(hurry: AbortSignal): Promise<DrainReport> {
    this.stopping = true;
    const exits = [...this.workers].map((worker) => this.exited(worker));
    const tell = () => {
      for (const worker of this.workers) {
        if (worker.isConnected()) worker.send({ type: 'gridquote-stop' } satisfies StopMessage);
      }
    };
    tell();
    if (hurry.aborted) tell();
    else hurry.addEventListener('abort', tell, { once: true });
    await Promise.all(exits);
    hurry.removeEventListener('abort', tell);
    return { forced: this.forced };
  }

  private exited(worker: Worker): Promise<void> {
    return new Promise((resolve) => (worker.isDead() ? resolve() : worker.once('exit', () => resolve())));
  }

  /** Forks one worker; resolves with its URL once it listens, rejects if it exits before. */
  private fork(): Promise<string> {
    const worker = cluster.fork(this.env);
    this.workers.add(worker);
    let listening = false;
    let failure: string | undefined;
    return new Promise<string>((resolve, reject) => {
      worker.on(
        'message',
        (message: ListeningMessage | StoppedMessage | FailedMessage | { type?: unknown }) => {
          if (message.type === 'gridquote-listening' && 'url' in message) {
            listening = true;
            resolve(message.url);
          } else if (message.type === 'gridquote-failed' && 'reason' in message) {
            failure = message.reason;
          } else if (message.type === 'gridquote-stopped' && 'forced' in message && message.forced) {
            this.forced = true;
          }
        },
      );
      worker.on('exit', (code, signal) => {
        this.workers.delete(worker);
        const how = signal === null ? `code ${code}` : `signal ${signal}`;
        if (!listening) {
          // Every worker fails alike (the store, the port): the first reason is the one line said.
          reject(new Error(failure ?? `a server worker exited (${how}) before it was listening`));
        } else if (!this.stopping) {
          // A crash of one worker must not leave the service a worker short for good.
          this.log(`worker ${worker.process.pid} exited (${how}); starting another`);
          this.fork().catch((error: unknown) => this.log(String(error)));
        } else if (code !== 0) {
          this.forced = true;
        }
      });
    });
  }
}

/** True in a process forked by runPrimary. */
export function isServeWorker(): boolean {
  return cluster.isWorker;
}

/**
 * A worker that failed to start gives its reason to the primary, which says it once for all the
 * workers (each would otherwise print the same line), and lets go of the channel to the primary,
 * which would otherwise keep it alive: it exits 1 without a word, which tells the primary.
 */
export async function releasePrimary(error: unknown): Promise<never> {
  const send = process.send?.bind(process);
  if (send === undefined) throw error;
  const reason = error instanceof Error ? error.message : String(error);
  await new Promise<void>((resolve) => {
    send({ type: 'gridquote-failed', reason } satisfies FailedMessage, undefined, undefined, () => resolve());
  });
  process.channel?.unref();
  throw new ReportedElsewhere(reason);
}

/** A worker tells the primary it listens. */
export function reportListening(url: string): void {
  process.send?.({ type: 'gridquote-listening', url } satisfies ListeningMessage);
}

/**
 * A worker's shutdown signals come from the primary only: SIGINT from a terminal reaches the
 * whole process group, and a worker acting on it by itself would count the primary's stop
 * message as a second signal and cut its connections at once.
 */
export function primarySignals(): SignalSource {
  const signals = new EventEmitter();
  for (const name of SHUTDOWN_SIGNALS) process.on(name, () => {});
  process.on('message', (message: { type?: unknown }) => {
    if (message.type === 'gridquote-stop') signals.emit('SIGTERM');
  });
  return signals;
}

/** A worker reports how its drain went, then lets go of the primary so that it can exit. */
export function reportStopped(report: DrainReport): Promise<void> {
  return new Promise((resolve) => {
    const disconnect = () => {
      process.disconnect?.();
      resolve();
    };
    if (process.send === undefined) resolve();
    else
      process.send({ type: 'gridquote-stopped', forced: report.forced } satisfies StoppedMessage, disconnect);
  });
}
