import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait-for.js';

/**
 * `gridquote` as a real child process, run from the sources (typescript-loader.mjs: no build, so
 * a test never runs a stale dist/), with only PATH from the environment (no GRIDQUOTE_* setting
 * of the developer's shell leaks in). Fault tests kill, restart and poll these.
 */

const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const LOADER = new URL('./typescript-loader.mjs', import.meta.url).href;

export interface CliProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** What it wrote to stderr so far. */
  stderr(): string;
  /** Resolves with its exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** Whether it is still running. */
  running(): boolean;
  /** SIGTERM (the command's own graceful stop), resolving when it has exited; nothing if it already has. */
  stop(): Promise<number | null>;
  /** kill -9, resolving when it is gone. */
  kill(): Promise<void>;
}

/** `cwd`: where it runs (what it writes to relative paths, such as ./data, lands there); default this process's. */
export function spawnCli(
  args: readonly string[],
  env: Record<string, string> = {},
  cwd?: string,
): CliProcess {
  const child = spawn(process.execPath, ['--import', LOADER, MAIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  child.stderr?.on('data', (chunk) => {
    text += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    pid: child.pid ?? 0,
    stderr: () => text,
    exited,
    running,
    async stop() {
      if (running()) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (running()) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** `gridquote ...args` (spawnCli) run to its end: its exit code and all it wrote to stderr. */
export async function runCliToEnd(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  const cli = spawnCli(args, env);
  const code = await cli.exited;
  return { code, stderr: cli.stderr() };
}

export interface ServeProcess extends CliProcess {
  /** http://127.0.0.1:port it listens on. */
  readonly base: string;
}

/** `gridquote serve --port 0 ...args`, once it prints where it listens (warn-level log: no request lines). */
export async function startServe(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ServeProcess> {
  const serve = spawnCli(['serve', '--port', '0', '--host', '127.0.0.1', ...args], {
    LOG_LEVEL: 'warn',
    ...env,
  });
  try {
    const base = await waitFor(
      'serve to listen',
      () => {
        if (!serve.running()) throw new Error(`serve exited: ${serve.stderr()}`);
        return / at (http:\/\/127\.0\.0\.1:\d+)/.exec(serve.stderr())?.[1];
      },
      // Generous: under the whole suite on two cores, start-up has been seen to take over 30 s.
      { timeoutMs: 90_000, intervalMs: 20 },
    );
    return { ...serve, base };
  } catch (error) {
    await serve.kill();
    throw error;
  }
}

/** `count` serve processes with the same arguments, started together; none left running if one fails. */
export async function startServes(count: number, args: readonly string[]): Promise<ServeProcess[]> {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startServe(args)));
  const running = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed !== undefined) {
    for (const serve of running) await serve.kill();
    throw failed.reason;
  }
  return running;
}

/**
 * The time limit of a test driving real processes. They take 15-40 s on a two-core machine
 * with some load; this only stops a hung one: on a shared machine at load 15 and more, process
 * start-up alone (Node, Fastify, the store) is five times slower.
 */
export const PROCESS_TEST_TIMEOUT_MS = 120_000;
