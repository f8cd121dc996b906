import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { accepts, freePort } from './free-port.js';
import { idOf } from './private-postgres.js';
import { waitFor } from './wait-for.js';

/**
 * A PgBouncer of the test's own (Debian's package `pgbouncer`), in front of a PostgreSQL server
 * on 127.0.0.1, pooling by session, trust authentication, its files in a temporary directory.
 * PgBouncer refuses to run as root, so as root it runs as the `postgres` user (runuser), as
 * private-postgres.ts runs PostgreSQL.
 */

const PGBOUNCER = '/usr/sbin/pgbouncer';
const run = promisify(execFile);

export interface PrivatePgBouncer {
  /** postgres://root@127.0.0.1:port/<database>, through the pooler. */
  url(database: string): string;
  close(): Promise<void>;
}

/** Why a private PgBouncer cannot be had here, or undefined when it can be tried. */
export function whyNoPgBouncer(): string | undefined {
  if (!existsSync(PGBOUNCER)) return `no ${PGBOUNCER} (Debian's package pgbouncer; .ci/run installs it)`;
  if (process.getuid?.() === 0 && !existsSync('/usr/sbin/runuser')) {
    return 'running as root without runuser to start PgBouncer as another user';
  }
  return undefined;
}

export async function startPrivatePgBouncer(serverPort: number): Promise<PrivatePgBouncer> {
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync('/tmp/gq-private-pgbouncer-');
  const port = await freePort();
  const config = join(dir, 'pgbouncer.ini');
  const pidfile = join(dir, 'pid');
  writeFileSync(join(dir, 'users.txt'), '"root" ""\n');
  writeFileSync(
    config,
    [
      '[databases]',
      `* = host=127.0.0.1 port=${serverPort}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = session',
      // every connection the test's processes open through it (2 workers x 10 reads, notices, writers)
      'default_pool_size = 60',
      'max_client_conn = 200',
      `logfile = ${join(dir, 'log')}`,
      `pidfile = ${pidfile}`,
      '',
    ].join('\n'),
  );
  if (asRoot) {
    for (const path of [dir, config, join(dir, 'users.txt')]) chownSync(path, idOf('-u'), idOf('-g'));
  }
  const daemon = ['-d', config];
  const stop = () => {
    const pid = existsSync(pidfile) ? Number(readFileSync(pidfile, 'utf8').trim()) : Number.NaN;
    if (Number.isSafeInteger(pid)) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (asRoot) await run('/usr/sbin/runuser', ['-u', 'postgres', '--', PGBOUNCER, ...daemon]);
    else await run(PGBOUNCER, daemon);
    await waitFor(`PgBouncer on port ${port}`, () => accepts(port), { timeoutMs: 20_000, intervalMs: 20 });
  } catch (error) {
    stop();
    throw error;
  }
  return {
    url: (database) => `postgres://root@127.0.0.1:${port}/${database}`,
    async close() {
      stop();
    },
  };
}
