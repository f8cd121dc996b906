import { type ChildProcess, spawn } from 'node:child_process';
import { basename } from 'node:path';
import { accepts } from './free-port.js';
import { waitFor } from './wait-for.js';

/** A server process of a test's own (private-nats.ts, private-redis.ts). */
export interface ListeningProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  /** kill -9, resolved once it has exited. */
  kill(): Promise<void>;
}

/**
 * Starts `command` and resolves once it accepts connections on 127.0.0.1:`port`; a process that
 * exits or never listens within 20 s fails the start (and is killed).
 */
export async function startListening(
  command: string,
  args: readonly string[],
  port: number,
  options: { readonly cwd?: string } = {},
): Promise<ListeningProcess> {
  const child = spawn(command, [...args], {
    stdio: 'ignore',
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  const name = basename(command);
  try {
    await waitFor(
      `${name} on port ${port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
        return accepts(port);
      },
      { timeoutMs: 20_000, intervalMs: 20 },
    );
  } catch (error) {
    await kill();
    throw error;
  }
  return { child, exited, kill };
}
