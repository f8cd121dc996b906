import { accessSync, constants, readFileSync } from 'node:fs';
import {
  type Authenticator,
  connect,
  credsAuthenticator,
  type NatsConnection,
  nkeyAuthenticator,
  TimeoutError,
  type TlsOptions,
} from '@nats-io/transport-node';
import { handshakeRefusal } from '../../tls.js';
import { tlsRefusal } from './tls-refusal.js';

/**
 * How the publisher, the ingest worker and `gridquote cluster` reach NATS (docs/operations.md,
 * "A NATS server that asks who connects"): who they are, from the URL or the environment, never
 * from a command line's other arguments; and TLS, required as soon as anything asks for it.
 */

/** The environment's ways to say who connects: at most one of them may be set. */
const AUTHENTICATION = [
  'GRIDQUOTE_NATS_USER',
  'GRIDQUOTE_NATS_TOKEN',
  'GRIDQUOTE_NATS_NKEY',
  'GRIDQUOTE_NATS_CREDS',
];

export type NatsCredentials =
  | { user: string; pass: string }
  | { token: string }
  | { authenticator: Authenticator }
  | Record<string, never>;

/**
 * NATS credentials from the environment (rather than in the URL, which shows in process
 * listings): GRIDQUOTE_NATS_USER with GRIDQUOTE_NATS_PASSWORD, GRIDQUOTE_NATS_TOKEN, an nkey
 * seed file (GRIDQUOTE_NATS_NKEY) or a credentials file of a user JWT and its seed, as `nsc`
 * writes it (GRIDQUOTE_NATS_CREDS). The files are read at every connection, so a rotated file
 * is used from the next reconnect on. Two ways at once is refused: which one would win is not
 * for the operator to guess.
 */
export function natsCredentials(env: NodeJS.ProcessEnv = process.env): NatsCredentials {
  const given = AUTHENTICATION.filter((name) => (env[name] ?? '') !== '');
  if (given.length > 1) {
    throw new Error(`NATS: set one way to authenticate, not ${given.join(' and ')}`);
  }
  const {
    GRIDQUOTE_NATS_USER: user,
    GRIDQUOTE_NATS_PASSWORD: pass,
    GRIDQUOTE_NATS_TOKEN: token,
    GRIDQUOTE_NATS_NKEY: nkey,
    GRIDQUOTE_NATS_CREDS: creds,
  } = env;
  if (user !== undefined && user !== '') return { user, pass: pass ?? '' };
  if (token !== undefined && token !== '') return { token };
  if (nkey !== undefined && nkey !== '') {
    checkReadable('GRIDQUOTE_NATS_NKEY', nkey);
    // The seed's text, without the line end an editor leaves.
    return {
      authenticator: nkeyAuthenticator(() => new TextEncoder().encode(readFileSync(nkey, 'utf8').trim())),
    };
  }
  if (creds !== undefined && creds !== '') {
    checkReadable('GRIDQUOTE_NATS_CREDS', creds);
    return { authenticator: credsAuthenticator(() => readFileSync(creds)) };
  }
  return {};
}

/**
 * TLS settings from the URL and the environment, or undefined for the server's choice (a server
 * that requires TLS gets it, checked against the system's CAs). A `tls://` server, a CA
 * (GRIDQUOTE_NATS_TLS_CA) or a client certificate (GRIDQUOTE_NATS_TLS_CERT with
 * GRIDQUOTE_NATS_TLS_KEY) makes TLS required: the connection fails rather than go in clear.
 */
export function natsTls(url: string, env: NodeJS.ProcessEnv = process.env): TlsOptions | undefined {
  const ca = env.GRIDQUOTE_NATS_TLS_CA || undefined;
  const cert = env.GRIDQUOTE_NATS_TLS_CERT || undefined;
  const key = env.GRIDQUOTE_NATS_TLS_KEY || undefined;
  if ((cert === undefined) !== (key === undefined)) {
    throw new Error(
      'NATS: GRIDQUOTE_NATS_TLS_CERT and GRIDQUOTE_NATS_TLS_KEY go together (a client certificate and its key)',
    );
  }
  const schemeTls = url.split(',').some((server) => /^\s*tls:\/\//i.test(server));
  if (ca === undefined && cert === undefined && !schemeTls) return undefined;
  const tls: TlsOptions = {};
  if (ca !== undefined) tls.caFile = checkReadable('GRIDQUOTE_NATS_TLS_CA', ca);
  if (cert !== undefined && key !== undefined) {
    tls.certFile = checkReadable('GRIDQUOTE_NATS_TLS_CERT', cert);
    tls.keyFile = checkReadable('GRIDQUOTE_NATS_TLS_KEY', key);
  }
  return tls;
}

/** A file named by a variable, checked now so that a wrong path is named at start, not as a failed connection. */
function checkReadable(variable: string, path: string): string {
  try {
    accessSync(path, constants.R_OK);
  } catch (error) {
    throw new Error(
      `NATS: ${variable} names ${path}, which cannot be read (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  return path;
}

/**
 * A NATS URL's credentials (`nats://user:password@host`, `nats://token@host`, percent-encoded)
 * taken out of it, as the variables natsCredentials reads: the NATS client ignores credentials
 * in a URL, and a process given the bare URL on its command line and these in its environment
 * connects as given while showing no secret. Several servers share the first one's credentials.
 * The URL's credentials win over the environment's: the other ways are emptied.
 */
export function natsCredentialsApart(url: string): { url: string; env: Record<string, string> } {
  const servers = url.split(',').map((server) => server.trim());
  let env: Record<string, string> = {};
  const bare = servers.map((server) => {
    // up to the last @ before the host, as URL parsers read it
    const match = /^([a-z]+:\/\/)([^/]*)@([^/@]*(?:\/.*)?)$/i.exec(server);
    if (match === null) return server;
    const [, scheme, userinfo = '', rest] = match;
    if (Object.keys(env).length === 0) {
      const colon = userinfo.indexOf(':');
      env = Object.fromEntries(AUTHENTICATION.map((name) => [name, '']));
      if (colon === -1) env.GRIDQUOTE_NATS_TOKEN = decodeURIComponent(userinfo);
      else {
        env.GRIDQUOTE_NATS_USER = decodeURIComponent(userinfo.slice(0, colon));
        env.GRIDQUOTE_NATS_PASSWORD = decodeURIComponent(userinfo.slice(colon + 1));
      }
    }
    return `${scheme}${rest}`;
  });
  return { url: bare.join(','), env };
}

/**
 * Connects to the NATS server(s) of a URL (comma-separated for a cluster), with the URL's
 * credentials, else the environment's (natsCredentials), over TLS when natsTls asks for it.
 * The connection outlives server restarts; `log` gets one line when it is lost and one when it
 * is back.
 */
export async function connectNats(
  url: string,
  name: string,
  log?: (line: string) => void,
): Promise<NatsConnection> {
  const apart = natsCredentialsApart(url);
  const credentials = natsCredentials({ ...process.env, ...apart.env });
  const tls = natsTls(apart.url);
  const servers = apart.url.split(',');
  const connecting = connect({
    // The client drops the scheme: whether it was tls:// is in natsTls's answer.
    servers,
    name,
    ...credentials,
    ...(tls === undefined ? {} : { tls }),
    // Keep trying through a server restart: the publisher and the worker outlive the broker's outages.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    timeout: CONNECT_TIMEOUT_MS,
  });
  // A refused client certificate, which the client itself would only time out on (tls-refusal.ts).
  const refused =
    tls === undefined
      ? undefined
      : tlsRefusal(servers[0] ?? '', tls).then((alert) => {
          if (alert === undefined) return connecting;
          throw new Error(
            `${handshakeRefusal(alert)}: it refused the client certificate or got none (GRIDQUOTE_NATS_TLS_CERT, GRIDQUOTE_NATS_TLS_KEY)`,
          );
        });
  let nc: NatsConnection;
  try {
    nc = await (refused === undefined ? connecting : Promise.race([connecting, refused]));
  } catch (error) {
    // The client's own attempt, if still waiting, is let go: closed should it ever succeed.
    connecting.then(
      (late) => late.close(),
      () => undefined,
    );
    throw new Error(`cannot reach NATS at ${apart.url}: ${connectFailure(error)}`);
  }
  if (log !== undefined) void reportStatus(nc, log);
  return nc;
}

/** How long the first connection may take (the client's own default, named here for the message below). */
const CONNECT_TIMEOUT_MS = 20_000;

/**
 * The client's reason. A timeout alone names no cause; over TLS a server that wants a client
 * certificate closes the connection once encrypted, and the client, which hears nothing more,
 * only times out, unless tlsRefusal heard the server's alert first (docs/operations.md).
 */
function connectFailure(error: unknown): string {
  if (error instanceof TimeoutError) {
    return `timeout (no answer within ${CONNECT_TIMEOUT_MS / 1000} s: the server is unreachable or, over TLS, it refused the client certificate or got none)`;
  }
  return error instanceof Error ? error.message : String(error);
}

async function reportStatus(nc: NatsConnection, log: (line: string) => void): Promise<void> {
  for await (const status of nc.status()) {
    if (status.type === 'disconnect') log('NATS connection lost; reconnecting');
    else if (status.type === 'reconnect') log('NATS connection back');
  }
}
