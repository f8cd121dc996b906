import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { Redis } from 'ioredis';
import type { Certificates } from './certificates.js';
import { freePort } from './free-port.js';
import { type ListeningProcess, startListening } from './listening-process.js';
import { waitFor } from './wait-for.js';

/**
 * Redis with Sentinel, of the test's own: a master, its replica and one sentinel watching them
 * (quorum 1, the master down after 500 ms without an answer), so that a test can kill the master
 * and see the replica promoted within seconds. The shared Redis on 6379 is never touched. Needs
 * Debian's redis-server (which is also the sentinel); tests skip, saying so, without it.
 */

export const REDIS_SERVER = '/usr/bin/redis-server';
export const hasRedisServer = (): boolean => existsSync(REDIS_SERVER);

export interface PrivateSentinel {
  /** redis+sentinel://127.0.0.1:<sentinel>/<name> */
  readonly url: string;
  readonly masterPort: number;
  readonly replicaPort: number;
  /** kill -9 the master. */
  killMaster(): Promise<void>;
  /** The port of the master the sentinel names now. */
  masterNamed(): Promise<number>;
  /** A client of the server on this port (the caller disconnects it). */
  client(port: number): Redis;
  close(): Promise<void>;
}

/**
 * Redis's TLS settings for a server of these certificates that asks clients for theirs
 * (tls-auth-clients, on by default), listening on `port` over TLS only; its replication and a
 * sentinel's connections to it go over TLS too, with the same certificate as the client's.
 */
export function tlsArgs(port: number, certificates: Certificates): string[] {
  return [
    ...['--port', '0', '--tls-port', String(port)],
    ...['--tls-cert-file', certificates.serverCert, '--tls-key-file', certificates.serverKey],
    ...['--tls-ca-cert-file', certificates.ca, '--tls-replication', 'yes'],
  ];
}

/** Node's TLS options for a test's own client of such a server: its CA and the client certificate. */
export function clientTls(certificates: Certificates): ConnectionOptions {
  return {
    ca: readFileSync(certificates.ca),
    cert: readFileSync(certificates.clientCert),
    key: readFileSync(certificates.clientKey),
  };
}

/** A Redis of the test's own on a free port, over TLS only (tlsArgs); kill -9 on close. */
export async function startPrivateTlsRedis(
  certificates: Certificates,
): Promise<{ readonly port: number; client(): Redis; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'gq-private-redis-'));
  const port = await freePort();
  const server = await startListening(
    REDIS_SERVER,
    [...tlsArgs(port, certificates), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    port,
    { cwd: dir },
  );
  return {
    port,
    client: () =>
      new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, tls: clientTls(certificates) }),
    async close() {
      await server.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startPrivateSentinel(
  name: string,
  options: {
    /** Sentinel's own requirepass: the sentinel answers no client without it. */
    readonly sentinelPassword?: string;
    /** The master, its replica and the sentinel over TLS only, with these certificates (tlsArgs). */
    readonly tls?: Certificates;
  } = {},
): Promise<PrivateSentinel> {
  const { tls } = options;
  const dir = mkdtempSync(join(tmpdir(), 'gq-private-redis-'));
  const [masterPort, replicaPort, sentinelPort] = [await freePort(), await freePort(), await freePort()];
  const children: ListeningProcess[] = [];
  const start = async (port: number, args: string[]) => {
    const started = await startListening(REDIS_SERVER, args, port, { cwd: dir });
    children.push(started);
    return started;
  };
  const server = (port: number) => [
    ...(tls === undefined ? ['--port', String(port)] : tlsArgs(port, tls)),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
  ];
  const master = await start(masterPort, server(masterPort));
  await start(replicaPort, [...server(replicaPort), '--replicaof', '127.0.0.1', String(masterPort)]);
  // The sentinel rewrites its configuration file as it learns: a file of its own.
  const config = join(dir, 'sentinel.conf');
  writeFileSync(
    config,
    [
      ...(tls === undefined
        ? [`port ${sentinelPort}`]
        : [
            'port 0',
            `tls-port ${sentinelPort}`,
            `tls-cert-file ${tls.serverCert}`,
            `tls-key-file ${tls.serverKey}`,
            `tls-ca-cert-file ${tls.ca}`,
            'tls-replication yes',
          ]),
      'bind 127.0.0.1',
      `sentinel monitor ${name} 127.0.0.1 ${masterPort} 1`,
      `sentinel down-after-milliseconds ${name} 500`,
      `sentinel failover-timeout ${name} 2000`,
      ...(options.sentinelPassword === undefined ? [] : [`requirepass ${options.sentinelPassword}`]),
      '',
    ].join('\n'),
  );
  await start(sentinelPort, [config, '--sentinel']);

  const client = (port: number, password?: string) =>
    new Redis({
      host: '127.0.0.1',
      port,
      lazyConnect: false,
      maxRetriesPerRequest: 1,
      ...(password === undefined ? {} : { password }),
      ...(tls === undefined ? {} : { tls: clientTls(tls) }),
    });
  const sentinel = client(sentinelPort, options.sentinelPassword);
  // Ready once the replica has synchronised and the sentinel knows it: only then can it fail over.
  await waitFor(
    'the replica known to the sentinel, in sync',
    async () => {
      const replicas = (await sentinel.call('SENTINEL', 'REPLICAS', name)) as string[][];
      const [fields = []] = replicas;
      const field = (key: string) => fields[fields.indexOf(key) + 1];
      return replicas.length === 1 && field('flags') === 'slave' && field('master-link-status') === 'ok';
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );

  return {
    url: `${tls === undefined ? 'redis' : 'rediss'}+sentinel://127.0.0.1:${sentinelPort}/${name}`,
    masterPort,
    replicaPort,
    killMaster: () => master.kill(),
    async masterNamed() {
      const [, port] = (await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name)) as [string, string];
      return Number(port);
    },
    client: (port) => client(port),
    async close() {
      sentinel.disconnect();
      for (const child of children) await child.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
