import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { type ListeningProcess, startListening } from './listening-process.js';

/**
 * A NATS server of the test's own (JetStream on, its store in a temporary directory) that the
 * test may kill and start again on the same port and store: the shared server on 4222 is never
 * restarted. Needs the Debian nats-server binary; tests skip, saying so, without it.
 */

export const NATS_SERVER = '/usr/sbin/nats-server';
export const hasNatsServer = (): boolean => existsSync(NATS_SERVER);

export interface PrivateNats {
  readonly url: string;
  /** kill -9 the server (its JetStream store stays on disk). */
  kill(): Promise<void>;
  /** Starts it again on the same port and store; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes its store. */
  close(): Promise<void>;
}

/**
 * `auth`: the server takes only this user and password (nats-server --user --pass). `config`: a
 * configuration file's text (TLS, nkey users, an operator), given with `-c`; `jetstream: false`
 * leaves JetStream off (an operator's accounts would need it enabled each).
 */
export async function startPrivateNats(
  options: {
    readonly auth?: { readonly user: string; readonly pass: string };
    readonly config?: string;
    readonly jetstream?: boolean;
  } = {},
): Promise<PrivateNats> {
  const auth = options.auth === undefined ? [] : ['--user', options.auth.user, '--pass', options.auth.pass];
  const dir = mkdtempSync(join(tmpdir(), 'gq-private-nats-'));
  const config: string[] = [];
  if (options.config !== undefined) {
    writeFileSync(join(dir, 'nats.conf'), options.config);
    config.push('-c', join(dir, 'nats.conf'));
  }
  const jetstream = options.jetstream === false ? [] : ['-js', '-sd', dir];
  const port = await freePort();
  let server: ListeningProcess | undefined;

  const start = async () => {
    server = await startListening(
      NATS_SERVER,
      [...config, ...['-a', '127.0.0.1', '-p', String(port)], ...jetstream, ...auth],
      port,
    );
  };
  const kill = async () => {
    const current = server;
    server = undefined;
    await current?.kill();
  };

  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    kill,
    start,
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
