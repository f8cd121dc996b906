import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { nkeys } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Certificates, hasOpenssl, makeCertificates } from '../../../test/certificates.js';
import { consumerDrained } from '../../../test/jetstream-consumer.js';
import { makeNatsOperator } from '../../../test/nats-operator.js';
import { hasNatsServer, type PrivateNats, startPrivateNats } from '../../../test/private-nats.js';
import { waitFor } from '../../../test/wait-for.js';
import { ingestEvents } from '../../ingest/ingest-events.js';
import { runNatsIngest } from '../../ingest/nats/nats-ingest.js';
import { openSqliteStore } from '../../store/sqlite/open-sqlite-store.js';
import { collect } from '../../store/store-contract.js';
import { createSimulator } from '../simulator/simulator.js';
import { validateFeedEvent } from '../validate.js';
import { connectNats, natsCredentials, natsCredentialsApart, natsTls } from './nats-connection.js';
import { publishFeed } from './publish-feed.js';
import { tlsRefusal } from './tls-refusal.js';

/** Every variable connectNats reads, so that each test starts from none of them. */
const VARIABLES = [
  'GRIDQUOTE_NATS_USER',
  'GRIDQUOTE_NATS_PASSWORD',
  'GRIDQUOTE_NATS_TOKEN',
  'GRIDQUOTE_NATS_NKEY',
  'GRIDQUOTE_NATS_CREDS',
  'GRIDQUOTE_NATS_TLS_CA',
  'GRIDQUOTE_NATS_TLS_CERT',
  'GRIDQUOTE_NATS_TLS_KEY',
];
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
const setEnv = (values: Record<string, string>) => {
  for (const name of VARIABLES) delete process.env[name];
  Object.assign(process.env, values);
};
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const dir = mkdtempSync(join(tmpdir(), 'gq-nats-connection-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};
const NOWHERE = join(dir, 'no-such-file');
/** Each way the environment can say who connects, emptied: what natsCredentialsApart adds to a URL's own. */
const NO_OTHER_WAY = {
  GRIDQUOTE_NATS_USER: '',
  GRIDQUOTE_NATS_TOKEN: '',
  GRIDQUOTE_NATS_NKEY: '',
  GRIDQUOTE_NATS_CREDS: '',
};

describe('NATS credentials', () => {
  it('are taken out of a URL, percent-decoded, up to the last @ before the host, and win over the environment', () => {
    expect(natsCredentialsApart('nats://gq:p%40ss@n1:4222')).toEqual({
      url: 'nats://n1:4222',
      env: { ...NO_OTHER_WAY, GRIDQUOTE_NATS_USER: 'gq', GRIDQUOTE_NATS_PASSWORD: 'p@ss' },
    });
    expect(natsCredentialsApart('tls://gq:p@ss@n1:4222')).toEqual({
      url: 'tls://n1:4222',
      env: { ...NO_OTHER_WAY, GRIDQUOTE_NATS_USER: 'gq', GRIDQUOTE_NATS_PASSWORD: 'p@ss' },
    });
    expect(natsCredentialsApart('nats://s3cret@n1:4222, nats://s3cret@n2:4222')).toEqual({
      url: 'nats://n1:4222,nats://n2:4222',
      env: { ...NO_OTHER_WAY, GRIDQUOTE_NATS_TOKEN: 's3cret' },
    });
    expect(natsCredentialsApart('nats://127.0.0.1:4222')).toEqual({ url: 'nats://127.0.0.1:4222', env: {} });
    // The URL's user over the environment's nkey: the one way natsCredentials then sees.
    const apart = natsCredentialsApart('nats://gq:pw@n1:4222');
    expect(natsCredentials({ GRIDQUOTE_NATS_NKEY: NOWHERE, ...apart.env })).toEqual({
      user: 'gq',
      pass: 'pw',
    });
  });

  it('are read from the environment: a user and password, a token, an nkey seed file or a credentials file', () => {
    expect(natsCredentials({ GRIDQUOTE_NATS_USER: 'gq', GRIDQUOTE_NATS_PASSWORD: 'pw' })).toEqual({
      user: 'gq',
      pass: 'pw',
    });
    expect(natsCredentials({ GRIDQUOTE_NATS_TOKEN: 't' })).toEqual({ token: 't' });
    expect(natsCredentials({})).toEqual({});
    const seed = file('user.nk', `${new TextDecoder().decode(nkeys.createUser().getSeed())}\n`);
    expect(natsCredentials({ GRIDQUOTE_NATS_NKEY: seed })).toEqual({ authenticator: expect.any(Function) });
    const creds = file('user.creds', makeNatsOperator().userCreds);
    expect(natsCredentials({ GRIDQUOTE_NATS_CREDS: creds })).toEqual({ authenticator: expect.any(Function) });
  });

  it('refuse two ways at once, and a file that cannot be read, naming the variables and the path', () => {
    expect(() => natsCredentials({ GRIDQUOTE_NATS_USER: 'gq', GRIDQUOTE_NATS_TOKEN: 't' })).toThrow(
      'NATS: set one way to authenticate, not GRIDQUOTE_NATS_USER and GRIDQUOTE_NATS_TOKEN',
    );
    expect(() => natsCredentials({ GRIDQUOTE_NATS_NKEY: 'a', GRIDQUOTE_NATS_CREDS: 'b' })).toThrow(
      'not GRIDQUOTE_NATS_NKEY and GRIDQUOTE_NATS_CREDS',
    );
    expect(() => natsCredentials({ GRIDQUOTE_NATS_CREDS: NOWHERE })).toThrow(
      `NATS: GRIDQUOTE_NATS_CREDS names ${NOWHERE}, which cannot be read (ENOENT)`,
    );
    expect(() => natsCredentials({ GRIDQUOTE_NATS_NKEY: NOWHERE })).toThrow(/GRIDQUOTE_NATS_NKEY names/);
  });
});

describe('NATS TLS settings', () => {
  it('are the server’s choice unless a tls:// server, a CA or a client certificate asks for TLS', () => {
    const ca = file('ca.pem', 'not read here');
    const cert = file('client.pem', 'not read here');
    const key = file('client.key', 'not read here');
    expect(natsTls('nats://n1:4222', {})).toBeUndefined();
    expect(natsTls('nats://n1:4222, tls://n2:4222', {})).toEqual({});
    expect(natsTls('nats://n1:4222', { GRIDQUOTE_NATS_TLS_CA: ca })).toEqual({ caFile: ca });
    expect(
      natsTls('tls://n1:4222', {
        GRIDQUOTE_NATS_TLS_CERT: cert,
        GRIDQUOTE_NATS_TLS_KEY: key,
        GRIDQUOTE_NATS_TLS_CA: ca,
      }),
    ).toEqual({ caFile: ca, certFile: cert, keyFile: key });
  });

  it('refuse a certificate without its key, and a file that cannot be read', () => {
    const cert = file('lone.pem', 'not read here');
    expect(() => natsTls('tls://n1:4222', { GRIDQUOTE_NATS_TLS_CERT: cert })).toThrow(
      'NATS: GRIDQUOTE_NATS_TLS_CERT and GRIDQUOTE_NATS_TLS_KEY go together',
    );
    expect(() => natsTls('nats://n1:4222', { GRIDQUOTE_NATS_TLS_KEY: cert })).toThrow(/go together/);
    expect(() => natsTls('nats://n1:4222', { GRIDQUOTE_NATS_TLS_CA: NOWHERE })).toThrow(
      `NATS: GRIDQUOTE_NATS_TLS_CA names ${NOWHERE}, which cannot be read (ENOENT)`,
    );
  });
});

if (!hasNatsServer()) console.log('nats-connection.test.ts: private NATS servers skipped, no nats-server');

describe.skipIf(!hasNatsServer())('connectNats to a server that asks for a user and password', () => {
  const auth = { user: 'gq', pass: 'p@ss:word' };
  let server: PrivateNats | undefined;

  beforeAll(async () => {
    server = await startPrivateNats({ auth });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('connects with them in the URL or in the environment, and without them says why, never showing them', async () => {
    const url = server?.url ?? '';
    const withUrl = url.replace('//', `//${auth.user}:${encodeURIComponent(auth.pass)}@`);
    await (await connectNats(withUrl, 'test')).close();

    setEnv({ GRIDQUOTE_NATS_USER: auth.user, GRIDQUOTE_NATS_PASSWORD: auth.pass });
    await (await connectNats(url, 'test')).close();

    process.env.GRIDQUOTE_NATS_PASSWORD = 'not-it';
    const refused = connectNats(url.replace('//', '//gq:wrong-one@'), 'test');
    await expect(refused).rejects.toThrow(`cannot reach NATS at ${url}: Authorization Violation`);
    await expect(refused).rejects.not.toThrow(/wrong-one/);
  });
});

describe.skipIf(!hasNatsServer())('connectNats to a server that knows its users by nkey', () => {
  const user = nkeys.createUser();
  const seedOf = (pair: nkeys.KeyPair) => new TextDecoder().decode(pair.getSeed());
  let server: PrivateNats | undefined;

  beforeAll(async () => {
    server = await startPrivateNats({
      config: `authorization { users = [ { nkey: "${user.getPublicKey()}" } ] }\n`,
      jetstream: false,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('connects with the seed file GRIDQUOTE_NATS_NKEY names, and is refused with another seed or none', async () => {
    const url = server?.url ?? '';
    setEnv({ GRIDQUOTE_NATS_NKEY: file('known.nk', `${seedOf(user)}\n`) });
    await (await connectNats(url, 'test')).close();

    setEnv({ GRIDQUOTE_NATS_NKEY: file('stranger.nk', seedOf(nkeys.createUser())) });
    await expect(connectNats(url, 'test')).rejects.toThrow(
      `cannot reach NATS at ${url}: Authorization Violation`,
    );
    setEnv({});
    await expect(connectNats(url, 'test')).rejects.toThrow(/Authorization Violation/);
  });
});

describe.skipIf(!hasNatsServer())('connectNats to a server run by an operator (JWT accounts)', () => {
  const operator = makeNatsOperator();
  let server: PrivateNats | undefined;

  beforeAll(async () => {
    server = await startPrivateNats({ config: operator.serverConfig, jetstream: false });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('connects with the credentials file GRIDQUOTE_NATS_CREDS names, and is refused with the seed alone or nothing', async () => {
    const url = server?.url ?? '';
    setEnv({ GRIDQUOTE_NATS_CREDS: file('user.creds', operator.userCreds) });
    const nc = await connectNats(url, 'test');
    // The connection works, not only opens: a request to itself comes back.
    const sub = nc.subscribe('ping', {
      max: 1,
      callback: (_error, message) => {
        message.respond('pong');
      },
    });
    expect((await nc.request('ping', '', { timeout: 5_000 })).string()).toBe('pong');
    sub.unsubscribe();
    await nc.close();

    setEnv({ GRIDQUOTE_NATS_NKEY: file('seed-only.nk', operator.userSeed) });
    await expect(connectNats(url, 'test')).rejects.toThrow(/Authorization Violation/);
    setEnv({});
    await expect(connectNats(url, 'test')).rejects.toThrow(/Authorization Violation/);
  });
});

const whyNoTls = !hasNatsServer() ? 'no nats-server' : !hasOpenssl() ? 'no openssl' : undefined;
if (whyNoTls !== undefined) console.log(`nats-connection.test.ts: NATS over TLS skipped, ${whyNoTls}`);

describe.skipIf(whyNoTls !== undefined)(
  'the feed through a NATS server that takes only TLS with a client certificate',
  () => {
    let files: Certificates;
    let tlsServer: PrivateNats | undefined;
    let plainServer: PrivateNats | undefined;
    const tlsUrl = () => (tlsServer?.url ?? '').replace('nats://', 'tls://');
    const trusted = () => ({
      GRIDQUOTE_NATS_TLS_CA: files.ca,
      GRIDQUOTE_NATS_TLS_CERT: files.clientCert,
      GRIDQUOTE_NATS_TLS_KEY: files.clientKey,
    });

    beforeAll(async () => {
      files = await makeCertificates(join(dir, 'tls'), 'gridquote');
      tlsServer = await startPrivateNats({
        config: `tls { cert_file: "${files.serverCert}", key_file: "${files.serverKey}", ca_file: "${files.ca}", verify: true }\n`,
      });
      plainServer = await startPrivateNats({ jetstream: false });
    }, 60_000);
    afterAll(async () => {
      await tlsServer?.close();
      await plainServer?.close();
    });

    it('publishes and ingests a day over TLS: the store equals a direct ingest of the same events', async () => {
      setEnv(trusted());
      const day = createSimulator({ seed: 3 }).simulateDay('20260302').slice(0, 300);
      const stream = 'gqtls';
      const result = await publishFeed(
        { url: tlsUrl(), stream },
        day.map((event) => {
          const checked = validateFeedEvent(event);
          if (!checked.ok) throw new Error(checked.reason);
          return checked;
        }),
      );
      expect(result).toEqual({ published: day.length, duplicates: 0 });

      const fromStream = openSqliteStore(':memory:');
      const direct = openSqliteStore(':memory:');
      const nc = await connectNats(tlsUrl(), 'test');
      try {
        const controller = new AbortController();
        const run = runNatsIngest(fromStream.writer, {
          url: tlsUrl(),
          stream,
          durable: 'worker',
          log: () => {},
          signal: controller.signal,
        });
        await waitFor(
          'the stream to be consumed',
          async () => consumerDrained(await jetstreamManager(nc), stream, 'worker'),
          {
            timeoutMs: 30_000,
            intervalMs: 25,
          },
        );
        controller.abort();
        expect(await run).toEqual({ added: day.length, skipped: 0, refused: 0 });
        await ingestEvents(direct.writer, day);
        expect(await collect(fromStream.events.lines())).toEqual(await collect(direct.events.lines()));
      } finally {
        await nc.close();
        await fromStream.close();
        await direct.close();
      }
    });

    it('is refused without the client certificate, against another CA, and never falls back to clear text', async () => {
      // The server ends the handshake with an alert, which the client alone would miss (it
      // would time out after 20 s): the probe beside it hears the alert and says so.
      setEnv({ GRIDQUOTE_NATS_TLS_CA: files.ca });
      // The alert's name depends on the server's TLS library (Go's: bad certificate; OpenSSL's: certificate required).
      const refusal = (url: string) =>
        new RegExp(
          `^cannot reach NATS at ${url}: the server ended the TLS handshake with the alert "(bad certificate|certificate required)": it refused the client certificate or got none \\(GRIDQUOTE_NATS_TLS_CERT, GRIDQUOTE_NATS_TLS_KEY\\)$`,
        );
      await expect(connectNats(tlsUrl(), 'test')).rejects.toThrow(refusal(tlsUrl()));
      // A client certificate its CA did not sign (the server's own CA-less certificate as the client's).
      setEnv({
        GRIDQUOTE_NATS_TLS_CA: files.ca,
        GRIDQUOTE_NATS_TLS_CERT: files.otherCa,
        GRIDQUOTE_NATS_TLS_KEY: files.otherCa.replace(/\.crt$/, '.key'),
      });
      await expect(connectNats(tlsUrl(), 'test')).rejects.toThrow(
        /the server ended the TLS handshake with the alert "[a-z ]+": it refused the client certificate or got none/,
      );
      setEnv({ ...trusted(), GRIDQUOTE_NATS_TLS_CA: files.otherCa });
      await expect(connectNats(tlsUrl(), 'test')).rejects.toThrow(
        `cannot reach NATS at ${tlsUrl()}: unable to verify the first certificate`,
      );
      // The probe alone: nothing to report for a trusted client, or a server without TLS.
      expect(
        await tlsRefusal(tlsUrl(), {
          caFile: files.ca,
          certFile: files.clientCert,
          keyFile: files.clientKey,
        }),
      ).toBe(undefined);
      expect(await tlsRefusal(plainServer?.url ?? '', { caFile: files.ca })).toBe(undefined);
      expect(await tlsRefusal(tlsUrl(), { caFile: files.ca })).toMatch(
        /^(bad certificate|certificate required)$/,
      );
      // A server without TLS: a tls:// URL, or a CA given, refuses to go on in clear.
      const plain = plainServer?.url ?? '';
      setEnv({});
      await expect(connectNats(plain.replace('nats://', 'tls://'), 'test')).rejects.toThrow(
        /server does not support 'tls'/,
      );
      setEnv({ GRIDQUOTE_NATS_TLS_CA: files.ca });
      await expect(connectNats(plain, 'test')).rejects.toThrow(/server does not support 'tls'/);
    });
  },
);
