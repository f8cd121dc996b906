import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FanOutReport } from './fan-out-recorder.js';

/**
 * The parent's side of the HTTP benchmark's child processes. Each server runs in its own
 * process so that the load generator (this process) never shares its event loop; they talk
 * over the IPC channel: the child reports `ready` with its URL, answers `stats` requests and
 * exits cleanly on `stop` (a clean exit is what makes --cpu-prof write its profile).
 */

/** What a server child is told to run (argv[2] of http-server-child.js, as JSON). */
export type ServerChildConfig =
  | {
      /** The composition of startServer, but with the answer cache off: every answer is cold. */
      readonly mode: 'no-cache';
      readonly db: string;
      readonly logLevel: string | false;
    }
  | {
      /** `startDemo` on a small fresh history: the live exchange replays and ingests in-process. */
      readonly mode: 'live';
      readonly db: string;
      readonly historyDays: number;
      readonly until: string;
      readonly seed: number;
      readonly speed: number;
      /** Where the live exchange writes (the demo's default: in process, on the serving thread). */
      readonly ingest?: 'thread' | 'in-process';
      /** How often the live exchange releases a batch, ms (the demo's default when omitted). */
      readonly tickMs?: number;
      /** Send a CommitMessage to the parent after each live batch commits. */
      readonly reportCommits?: boolean;
      /** Streams one key may hold open (the stream benchmark opens a thousand with its one key). */
      readonly streamsPerKey?: number;
      /** Time the stream hub's writes between `fan-out` start and stop messages (fan-out-recorder.ts). */
      readonly traceFanOut?: boolean;
    };

/** A live server child's batch committed: its version and when, on process.hrtime's clock (ns, decimal). */
export interface CommitMessage {
  readonly type: 'commit';
  readonly version: number;
  readonly atNs: string;
  /** When the serving thread learnt of the commit (its store notified), on the same clock. */
  readonly noticedNs: string;
  /** The batch's last event (date, seq): the stream's event id of the last event it committed. */
  readonly lastDate: string;
  readonly lastSeq: number;
}

/** What the baseline child serves: one fixed answer, byte for byte. */
export interface BaselineConfig {
  readonly status: number;
  /** Name/value pairs in the order received (Node's rawHeaders), without the ones Node adds itself. */
  readonly headers: readonly string[];
  readonly bodyBase64: string;
  readonly keepAliveTimeoutMs: number;
  /**
   * The live benchmark's floor: the ETag's version moves every N ms, each move reported as
   * a CommitMessage, and a request naming the current ETag in If-None-Match gets a 304.
   */
  readonly versionEveryMs?: number;
}

export interface ReadyMessage {
  readonly type: 'ready';
  readonly url: string;
  /** A historical API key with rate limits the load stays under (BENCH_RATE_LIMIT), for server children. */
  readonly key?: string;
  /** Server children: the trading days the store holds, ascending. */
  readonly dates?: readonly string[];
}

export interface ChildStats {
  readonly type: 'stats';
  /** CPU time of the process so far, user + system, all threads: µs. */
  readonly cpuMicros: number;
  /** The system (kernel) part of it: socket writes and reads, wake-ups. */
  readonly systemMicros: number;
  readonly rssBytes: number;
  /** Peak RSS of the process so far. */
  readonly maxRssBytes: number;
  /** Linux only (/proc/self/status): anonymous memory vs file pages (SQLite's mmap). */
  readonly anonBytes: number | undefined;
  readonly fileBytes: number | undefined;
  readonly heapUsedBytes: number;
  /** Server children: the store's data version (the last event sequence), to count ingest. */
  readonly storeVersion: number | undefined;
}

/**
 * The bench's API keys: rate-limited (so the limiter counts every request), at limits well above
 * what this machine can serve, so that it never refuses one.
 */
export const BENCH_RATE_LIMIT = { perSecond: 1_000_000, perMinute: 60_000_000 } as const;

export type ParentMessage = { readonly type: 'stats' } | { readonly type: 'stop' } | FanOutRequest;

/** To a live server child with traceFanOut: start timing the hub's writes, or stop and answer a FanOutReport. */
export interface FanOutRequest {
  readonly type: 'fan-out';
  readonly action: 'start' | 'stop';
}

export interface ChildOptions {
  /** Where the child's stdout goes: a file descriptor opened by the caller, or 'ignore'. */
  readonly stdout: number | 'ignore';
  /** Node flags of the child, e.g. --cpu-prof. */
  readonly execArgv?: readonly string[];
  /** Every message of the child (besides the replies this module waits for itself), e.g. CommitMessages. */
  readonly onMessage?: (message: unknown) => void;
}

export interface Child {
  readonly ready: ReadyMessage;
  readonly pid: number;
  /** CPU time, memory and the store's version, now. */
  stats(): Promise<ChildStats>;
  /** Asks the child to close and waits for it to exit. */
  stop(): Promise<void>;
  /** A live server child with traceFanOut: starts timing the stream hub's writes. */
  startFanOut(): void;
  /** ... stops timing them and answers what it timed. */
  stopFanOut(): Promise<FanOutReport>;
}

/** A live server child's settings, but for the commits it always reports here. */
export type LiveChildConfig = Omit<Extract<ServerChildConfig, { mode: 'live' }>, 'mode' | 'reportCommits'>;

/**
 * The live demo in a process of its own (http-server-child.ts), reporting each commit: they
 * arrive in `commits` as they come, for the benches that time commit to answer or to receipt.
 */
export async function startLiveChild(
  config: LiveChildConfig,
): Promise<{ readonly child: Child; readonly commits: CommitMessage[] }> {
  const commits: CommitMessage[] = [];
  const full: ServerChildConfig = { ...config, mode: 'live', reportCommits: true };
  const child = await startChild('./http-server-child.js', [JSON.stringify(full)], {
    stdout: 'ignore',
    onMessage: (message) => {
      if (isCommit(message)) commits.push(message);
    },
  });
  return { child, commits };
}

export function isCommit(message: unknown): message is CommitMessage {
  return typeof message === 'object' && message !== null && 'type' in message && message.type === 'commit';
}

/** Forks a sibling script (e.g. './http-server-child.js'; a .ts one with the TypeScript loader in execArgv) and waits for its `ready`. */
export async function startChild(
  script: string,
  args: readonly string[],
  options: ChildOptions,
): Promise<Child> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  const child = fork(path, [...args], {
    // Not the parent's --expose-gc: the server runs with the flags production would.
    execArgv: [...(options.execArgv ?? [])],
    stdio: ['ignore', options.stdout, 'inherit', 'ipc'],
  });
  if (options.onMessage !== undefined) child.on('message', options.onMessage);
  const ready = await firstMessage(child, (message): message is ReadyMessage => isType(message, 'ready'));
  return {
    ready,
    pid: child.pid ?? 0,
    async stats() {
      child.send({ type: 'stats' } satisfies ParentMessage);
      return firstMessage(child, (message): message is ChildStats => isType(message, 'stats'));
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.send({ type: 'stop' } satisfies ParentMessage);
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
    startFanOut() {
      child.send({ type: 'fan-out', action: 'start' } satisfies ParentMessage);
    },
    async stopFanOut() {
      child.send({ type: 'fan-out', action: 'stop' } satisfies ParentMessage);
      return firstMessage(child, (message): message is FanOutReport => isType(message, 'fan-out'));
    },
  };
}

function isType(message: unknown, type: string): boolean {
  return typeof message === 'object' && message !== null && 'type' in message && message.type === type;
}

/** The next message of the given type; rejects if the child exits first. */
export function messageOfType<T>(child: ChildProcess, type: string): Promise<T> {
  return firstMessage(child, (message): message is T => isType(message, type));
}

/** The next message that passes the guard; rejects if the child exits first. */
function firstMessage<T>(child: ChildProcess, guard: (message: unknown) => message is T): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if (!guard(message)) return;
      cleanup();
      resolve(message);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      cleanup();
      reject(new Error(`bench child exited (code ${code}, signal ${signal}) before answering`));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** The child's side: answers stats requests, and on stop runs `close` and exits. */
export function serveParent(close: () => Promise<void>, storeVersion?: () => Promise<number>): void {
  process.on('message', (message: unknown) => {
    if (isType(message, 'stats')) {
      void (storeVersion?.() ?? Promise.resolve(undefined)).then((version) =>
        process.send?.(childStats(version)),
      );
    } else if (isType(message, 'stop')) {
      close().then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`bench child: close failed: ${String(error)}\n`);
          process.exit(1);
        },
      );
    }
  });
  // Orphaned (the parent died): do not linger as a server nobody stops.
  process.on('disconnect', () => process.exit(0));
}

function childStats(storeVersion: number | undefined): ChildStats {
  const status = procStatus();
  const cpu = process.cpuUsage();
  return {
    type: 'stats',
    cpuMicros: cpu.user + cpu.system,
    systemMicros: cpu.system,
    rssBytes: process.memoryUsage().rss,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    anonBytes: status.get('RssAnon'),
    fileBytes: status.get('RssFile'),
    heapUsedBytes: process.memoryUsage().heapUsed,
    storeVersion,
  };
}

/** kB fields of /proc/self/status as bytes; empty off Linux. */
function procStatus(): Map<string, number> {
  const fields = new Map<string, number>();
  try {
    // Synchronous on purpose: asked for between load runs, when the server is idle.
    const text = readFileSync('/proc/self/status', 'utf8');
    for (const line of text.split('\n')) {
      const match = /^(\w+):\s+(\d+) kB$/.exec(line);
      if (match?.[1] !== undefined && match[2] !== undefined) fields.set(match[1], Number(match[2]) * 1024);
    }
  } catch {
    // not Linux
  }
  return fields;
}

export function sendReady(message: ReadyMessage): void {
  process.send?.(message);
}
