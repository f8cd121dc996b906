import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const hasOpenssl = (): boolean => existsSync('/usr/bin/openssl');

/** Files made by makeCertificates, absolute paths. */
export interface Certificates {
  /** The CA that signed the server's and the client's certificates. */
  readonly ca: string;
  /** A CA that signed neither. */
  readonly otherCa: string;
  /** The server's certificate, for 127.0.0.1 (CN localhost), and its key. */
  readonly serverCert: string;
  readonly serverKey: string;
  /** A client certificate (CN `clientName`) and its key. */
  readonly clientCert: string;
  readonly clientKey: string;
}

/**
 * A CA, the server's certificate for 127.0.0.1 signed by it, a client certificate signed by it,
 * and a second CA, made with openssl in `dir` (created), valid for two days.
 */
export async function makeCertificates(dir: string, clientName: string): Promise<Certificates> {
  mkdirSync(dir);
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  const newKey = (name: string, subject: string) => [
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${subject}`,
    '-keyout',
    `${name}.key`,
  ];
  const authority = (name: string) =>
    openssl('req', '-x509', ...newKey(name, name), '-days', '2', '-out', `${name}.crt`);
  const signed = async (name: string, subject: string, extensions?: string) => {
    await openssl('req', ...newKey(name, subject), '-out', `${name}.csr`);
    if (extensions !== undefined) writeFileSync(at(`${name}.ext`), extensions);
    await openssl(
      ...['x509', '-req', '-days', '2', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key'],
      ...['-CAcreateserial', '-out', `${name}.crt`],
      ...(extensions === undefined ? [] : ['-extfile', `${name}.ext`]),
    );
  };
  await authority('ca');
  await authority('other-ca');
  await signed('server', 'localhost', 'subjectAltName=IP:127.0.0.1\n');
  await signed('client', clientName);
  return {
    ca: at('ca.crt'),
    otherCa: at('other-ca.crt'),
    serverCert: at('server.crt'),
    serverKey: at('server.key'),
    clientCert: at('client.crt'),
    clientKey: at('client.key'),
  };
}
