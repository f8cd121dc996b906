import { nkeys } from '@nats-io/transport-node';

/**
 * A NATS operator of the test's own, as `nsc` would make it: an operator, one account and one
 * user, each an nkey, their JWTs signed by the one above; the server's configuration (the
 * operator's JWT, the account's preloaded) and the user's credentials file. Made here, with the
 * client's own nkeys, because `nsc` is not a Debian package.
 */
export interface NatsOperator {
  /** Lines for nats-server's configuration file. */
  readonly serverConfig: string;
  /** The user's credentials file: its JWT and its nkey seed. */
  readonly userCreds: string;
  /** The user's nkey seed alone (which an operator-mode server refuses without the JWT). */
  readonly userSeed: string;
}

export function makeNatsOperator(): NatsOperator {
  const operator = nkeys.createOperator();
  const account = nkeys.createAccount();
  const user = nkeys.createUser();
  const operatorJwt = jwt(operator, operator, 'operator', { type: 'operator', version: 2 });
  const accountJwt = jwt(operator, account, 'account', {
    limits: {
      subs: -1,
      data: -1,
      payload: -1,
      imports: -1,
      exports: -1,
      wildcards: true,
      conn: -1,
      leaf: -1,
    },
    default_permissions: { pub: {}, sub: {} },
    type: 'account',
    version: 2,
  });
  const userJwt = jwt(account, user, 'user', {
    pub: {},
    sub: {},
    subs: -1,
    data: -1,
    payload: -1,
    type: 'user',
    version: 2,
  });
  const seed = new TextDecoder().decode(user.getSeed());
  return {
    serverConfig: [
      `operator: "${operatorJwt}"`,
      'resolver: MEMORY',
      `resolver_preload: { ${account.getPublicKey()}: "${accountJwt}" }`,
      '',
    ].join('\n'),
    userCreds: [
      '-----BEGIN NATS USER JWT-----',
      userJwt,
      '------END NATS USER JWT------',
      '',
      '************************* IMPORTANT *************************',
      'NKEY Seed printed below can be used to sign and prove identity.',
      '',
      '-----BEGIN USER NKEY SEED-----',
      seed,
      '------END USER NKEY SEED------',
      '',
    ].join('\n'),
    userSeed: seed,
  };
}

/** A NATS JWT (header, claims, ed25519 signature by the issuer), as nats-server checks it. */
function jwt(issuer: nkeys.KeyPair, subject: nkeys.KeyPair, name: string, claims: object): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = {
    jti: Buffer.from(subject.getPublicKey()).toString('hex').slice(0, 52).toUpperCase(),
    iat: Math.floor(Date.now() / 1000),
    iss: issuer.getPublicKey(),
    name,
    sub: subject.getPublicKey(),
    nats: claims,
  };
  const signed = `${part({ typ: 'JWT', alg: 'ed25519-nkey' })}.${part(body)}`;
  const signature = Buffer.from(issuer.sign(new TextEncoder().encode(signed))).toString('base64url');
  return `${signed}.${signature}`;
}
