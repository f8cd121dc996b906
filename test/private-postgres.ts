import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { makeCertificates } from './certificates.js';
import { freePort } from './free-port.js';

/**
 * A PostgreSQL server of the test's own, in a temporary directory, that the test may stop
 * (`pg_ctl stop -m immediate`: as abrupt as a crash) and start again: the shared server is
 * never restarted. PostgreSQL refuses to run as root, so when the test runs as root the
 * server runs as the `postgres` user (runuser). Trust authentication on 127.0.0.1 only (or, on
 * request, a password or TLS with client certificates); fsync off (a test's data need not
 * survive the machine). Tests skip, saying so, when the binaries are missing or the server
 * cannot be set up here (whyNoPrivatePostgres).
 */

const BIN = '/usr/lib/postgresql/15/bin';
const run = promisify(execFile);

export interface PrivatePostgres {
  /** postgres://root@127.0.0.1:port/postgres */
  readonly url: string;
  /** The directory of its Unix socket (.s.PGSQL.<port>), and its port. */
  readonly socketDir: string;
  readonly port: number;
  /** Immediate shutdown: connections are cut, no checkpoint (recovery on the next start). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its files. */
  close(): Promise<void>;
  /**
   * A streaming replica of this server (a hot standby, as `pg_basebackup -R` makes one), on a
   * port and in a directory of its own; close it before this one.
   */
  startStandby(): Promise<PrivateStandby>;
  /** Its certificates, when started with TLS. */
  readonly tls?: PrivateTls;
}

/**
 * Certificates of a server started with TLS (startPrivatePostgres({ tls: true })): it accepts
 * only encrypted connections that present a client certificate its CA signed for the user
 * (`hostssl ... cert`), and its own certificate is for 127.0.0.1.
 */
export interface PrivateTls {
  /** The CA that signed the server's and the client's certificates. */
  readonly ca: string;
  /** The client certificate (CN root) and its key. */
  readonly cert: string;
  readonly key: string;
  /** A CA that signed neither. */
  readonly otherCa: string;
}

export interface PrivateStandby extends Omit<PrivatePostgres, 'startStandby' | 'tls'> {
  /** Makes it a primary of its own (`pg_ctl promote`), waiting until it accepts writes. */
  promote(): Promise<void>;
}

/** Why a private server cannot be had here, or undefined when it can be tried. */
export function whyNoPrivatePostgres(): string | undefined {
  if (!existsSync(join(BIN, 'initdb'))) return `no PostgreSQL binaries in ${BIN}`;
  if (process.getuid?.() === 0 && !existsSync('/usr/sbin/runuser')) {
    return 'running as root without runuser to start PostgreSQL as another user';
  }
  return undefined;
}

const asRoot = () => process.getuid?.() === 0;

const asServerUser = (program: string, args: string[]) =>
  asRoot()
    ? run('/usr/sbin/runuser', ['-u', 'postgres', '--', join(BIN, program), ...args])
    : run(join(BIN, program), args);

/**
 * `tls`: the server takes only TLS with a client certificate (PrivatePostgres.tls); `password`:
 * root's password, which the server asks for (SCRAM) from every connection; otherwise trust.
 */
export async function startPrivatePostgres(
  options: { readonly tls?: boolean; readonly password?: string } = {},
): Promise<PrivatePostgres> {
  const tlsSettings: string[] = [];
  const { dir, data, port, control } = await serverFiles(tlsSettings);
  let tls: PrivateTls | undefined;
  try {
    const passwordFile = join(dir, 'password');
    if (options.password !== undefined) {
      writeFileSync(passwordFile, `${options.password}\n`);
      if (asRoot()) chownSync(passwordFile, idOf('-u'), idOf('-g'));
    }
    const auth =
      options.password === undefined ? ['-A', 'trust'] : ['-A', 'scram-sha-256', `--pwfile=${passwordFile}`];
    // initdb's trust also lets 127.0.0.1 connect for replication (pg_basebackup)
    await asServerUser('initdb', ['-D', data, ...auth, '-U', 'root', '--no-sync', '-E', 'UTF8']);
    rmSync(passwordFile, { force: true });
    if (options.tls) {
      const files = await serverCertificates(join(dir, 'tls'));
      tls = files.client;
      tlsSettings.push(...files.serverSettings);
      writeFileSync(
        join(data, 'pg_hba.conf'),
        'local all all trust\nhostssl all all 127.0.0.1/32 cert\nhostnossl all all 127.0.0.1/32 reject\n',
      );
    }
    await control.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    ...control,
    ...(tls === undefined ? {} : { tls }),
    async startStandby() {
      const standby = await serverFiles();
      try {
        await asServerUser('pg_basebackup', [
          ...['-h', '127.0.0.1', '-p', String(port), '-U', 'root'],
          ...['-D', standby.data, '-R', '-X', 'stream', '--no-sync', '--checkpoint=fast'],
        ]);
        await standby.control.start();
      } catch (error) {
        rmSync(standby.dir, { recursive: true, force: true });
        throw error;
      }
      return {
        ...standby.control,
        async promote() {
          await asServerUser('pg_ctl', ['-D', standby.data, '-w', '-t', '30', 'promote']);
        },
      };
    },
  };
}

/**
 * The certificates of makeCertificates, the client's for the user root; the server's files are
 * the postgres user's (PostgreSQL refuses a key others can read).
 */
async function serverCertificates(dir: string): Promise<{ client: PrivateTls; serverSettings: string[] }> {
  const files = await makeCertificates(dir, 'root');
  chmodSync(files.serverKey, 0o600);
  if (asRoot()) {
    for (const name of [files.serverCert, files.serverKey, files.ca]) chownSync(name, idOf('-u'), idOf('-g'));
  }
  return {
    client: { ca: files.ca, cert: files.clientCert, key: files.clientKey, otherCa: files.otherCa },
    serverSettings: [
      '-c ssl=on',
      `-c ssl_cert_file=${files.serverCert}`,
      `-c ssl_key_file=${files.serverKey}`,
      `-c ssl_ca_file=${files.ca}`,
    ],
  };
}

/**
 * A new server's directory (its data directory not made yet), its port, and its control;
 * `settings` (-c name=value) are read at each start, so they may be added before the first.
 */
async function serverFiles(settings: readonly string[] = []): Promise<{
  dir: string;
  data: string;
  port: number;
  control: Omit<PrivatePostgres, 'startStandby'>;
}> {
  // Under /tmp, not os.tmpdir(): the socket path must stay short, and the postgres user must reach it.
  const dir = mkdtempSync('/tmp/gq-private-pg-');
  if (asRoot()) chownSync(dir, idOf('-u'), idOf('-g'));
  const data = join(dir, 'data');
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const start = async () => {
    await asServerUser('pg_ctl', [
      '-D',
      data,
      '-o',
      [options, ...settings].join(' '),
      '-l',
      join(dir, 'log'),
      '-w',
      '-t',
      '30',
      'start',
    ]);
  };
  const stop = async () => {
    await asServerUser('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  };
  return {
    dir,
    data,
    port,
    control: {
      url: `postgres://root@127.0.0.1:${port}/postgres`,
      socketDir: dir,
      port,
      stop,
      start,
      async close() {
        await stop().catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    },
  };
}

/** The postgres user's or group's id, as the system knows it (Debian's package creates the user). */
export function idOf(flag: '-u' | '-g'): number {
  return Number(String(execFileSync('id', [flag, 'postgres'])).trim());
}
