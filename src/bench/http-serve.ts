import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `gridquote serve` as the HTTP benchmark runs it: the shipped program (dist/cli/main.js, built
 * by `npm run bench`), a process of its own with an empty environment (every setting at its
 * default, the request log included) but for --workers and `env`, its request log written to a file.
 */

const MAIN = join(fileURLToPath(new URL('../../', import.meta.url)), 'dist', 'cli', 'main.js');

export interface ServeProcess {
  readonly url: string;
  /** The primary's pid: its children are the workers. */
  readonly pid: number;
  /** SIGTERM (the drain), then waits for the exit. */
  stop(): Promise<void>;
}

export interface ServeOptions {
  readonly db: string;
  readonly workers: number;
  /** Where its stdout (the request log) goes. */
  readonly logPath: string;
  /** Node flags, e.g. --cpu-prof. */
  readonly execArgv?: readonly string[];
  /** More serve flags (the cluster benchmark: --redis, --replay-clock). */
  readonly args?: readonly string[];
  /** Settings that have no flag (the stream benchmark's streams per key). */
  readonly env?: Readonly<Record<string, string>>;
}

export async function startServe(options: ServeOptions): Promise<ServeProcess> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build`);
  const log = openSync(options.logPath, 'w');
  const child = spawn(
    process.execPath,
    [
      ...(options.execArgv ?? []),
      MAIN,
      'serve',
      '--db',
      options.db,
      '--port',
      '0',
      '--workers',
      String(options.workers),
      ...(options.args ?? []),
    ],
    { env: { ...options.env }, stdio: ['ignore', log, 'pipe'] },
  );
  // The child holds its own copy of the descriptor.
  closeSync(log);
  const url = await startLine(child);
  return {
    url,
    pid: child.pid ?? 0,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The URL of serve's start line ("serving ... at http://..."); rejects if it exits first. */
function startLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      text += chunk;
      const url = / at (http:\/\/[^\s]+)/.exec(text)?.[1];
      if (url !== undefined) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`gridquote serve exited (code ${code}): ${text.trim()}`)));
  });
}
