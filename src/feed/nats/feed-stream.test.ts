import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasNatsServer, type PrivateNats, startPrivateNats } from '../../../test/private-nats.js';
import { connectNats, natsCredentials, natsCredentialsApart } from './feed-stream.js';

describe('NATS credentials', () => {
  it('are taken out of a URL, percent-decoded, up to the last @ before the host', () => {
    expect(natsCredentialsApart('nats://gq:p%40ss@n1:4222')).toEqual({
      url: 'nats://n1:4222',
      env: { GRIDQUOTE_NATS_USER: 'gq', GRIDQUOTE_NATS_PASSWORD: 'p@ss' },
    });
    expect(natsCredentialsApart('nats://gq:p@ss@n1:4222').env).toEqual({
      GRIDQUOTE_NATS_USER: 'gq',
      GRIDQUOTE_NATS_PASSWORD: 'p@ss',
    });
    expect(natsCredentialsApart('nats://s3cret@n1:4222, nats://s3cret@n2:4222')).toEqual({
      url: 'nats://n1:4222,nats://n2:4222',
      env: { GRIDQUOTE_NATS_TOKEN: 's3cret' },
    });
    expect(natsCredentialsApart('nats://127.0.0.1:4222')).toEqual({ url: 'nats://127.0.0.1:4222', env: {} });
  });

  it('are read from the environment: a user and password, else a token', () => {
    expect(natsCredentials({ GRIDQUOTE_NATS_USER: 'gq', GRIDQUOTE_NATS_PASSWORD: 'pw' })).toEqual({
      user: 'gq',
      pass: 'pw',
    });
    expect(natsCredentials({ GRIDQUOTE_NATS_TOKEN: 't' })).toEqual({ token: 't' });
    expect(natsCredentials({})).toEqual({});
  });
});

if (!hasNatsServer())
  console.log('feed-stream.test.ts: a NATS server asking for a password skipped, no nats-server');

describe.skipIf(!hasNatsServer())('connectNats to a server that asks for a user and password', () => {
  const auth = { user: 'gq', pass: 'p@ss:word' };
  let server: PrivateNats | undefined;
  const saved = { ...process.env };

  beforeAll(async () => {
    server = await startPrivateNats({ auth });
  });

  afterAll(async () => {
    process.env = saved;
    await server?.close();
  });

  it('connects with them in the URL or in the environment, and without them says why, never showing them', async () => {
    const url = server?.url ?? '';
    const withUrl = url.replace('//', `//${auth.user}:${encodeURIComponent(auth.pass)}@`);
    await (await connectNats(withUrl, 'test')).close();

    process.env.GRIDQUOTE_NATS_USER = auth.user;
    process.env.GRIDQUOTE_NATS_PASSWORD = auth.pass;
    await (await connectNats(url, 'test')).close();

    process.env.GRIDQUOTE_NATS_PASSWORD = 'not-it';
    const refused = connectNats(url.replace('//', '//gq:wrong-one@'), 'test');
    await expect(refused).rejects.toThrow(`cannot reach NATS at ${url}: Authorization Violation`);
    await expect(refused).rejects.not.toThrow(/wrong-one/);
  });
});
