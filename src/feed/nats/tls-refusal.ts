import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { TlsOptions } from '@nats-io/transport-node';
import { readPemFiles, tlsAlertOf } from '../../tls.js';

/** How long a probe waits for the server's INFO, and then for an alert after its handshake. */
const INFO_MS = 5_000;
const ALERT_MS = 2_000;
/** INFO is one line of JSON; a server that sends more before a line end is not NATS. */
const MAX_INFO_BYTES = 64 * 1024;

/**
 * The TLS alert with which a NATS server refuses this client's certificate, or its lack of one
 * (`certificate required`, `unknown ca`, ...); undefined when the handshake stands, the server
 * does not speak TLS, or nothing can be told in time. The NATS client misses that refusal: with
 * TLS 1.3 the server's alert comes after the client considers the handshake done, the connection
 * closes, and the client's first connection goes on waiting for an answer to its CONNECT for its
 * whole timeout (20 s), then reports only a timeout. connectNats asks this beside it, so that an
 * operator learns at once what is wrong. `server`: host:port, with or without a scheme.
 */
export function tlsRefusal(server: string, tls: TlsOptions): Promise<string | undefined> {
  const { hostname, port } = new URL(server.includes('://') ? server : `nats://${server}`);
  const host = hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    let settled = false;
    const sockets: Socket[] = [];
    const finish = (alert: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      resolve(alert);
    };
    // Nothing of the probe keeps a process alive: a command done before it still exits at once.
    let timer = setTimeout(() => finish(undefined), INFO_MS).unref();
    const plain = netConnect({ host, port: Number(port || 4222) }).unref();
    sockets.push(plain);
    let handshaking = false;
    // Once the handshake is under way, the secure socket reports (a reset may come after the alert).
    plain.on('error', () => {
      if (!handshaking) finish(undefined);
    });
    let received = '';
    const onInfo = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n');
      if (end < 0) {
        if (received.length > MAX_INFO_BYTES) finish(undefined);
        return;
      }
      plain.off('data', onInfo);
      const info = /^INFO\s+(\{.*\})\s*$/.exec(received.slice(0, end));
      let offered = false;
      try {
        const parsed = JSON.parse(info?.[1] ?? 'null') as { tls_required?: unknown; tls_available?: unknown };
        offered = parsed?.tls_required === true || parsed?.tls_available === true;
      } catch {
        // not NATS's INFO: the client will say so
      }
      if (!offered) {
        finish(undefined);
        return;
      }
      handshake();
    };
    plain.on('data', onInfo);

    const handshake = () => {
      handshaking = true;
      const secure = tlsConnect({
        socket: plain,
        ...(isIP(host) === 0 ? { servername: host } : {}),
        ...readPemFiles({ ca: tls.caFile, cert: tls.certFile, key: tls.keyFile }),
      });
      sockets.push(secure);
      // A certificate of the server's that does not verify is the client's to report (it does, at once).
      secure.on('error', (error) => finish(tlsAlertOf(error.message)));
      secure.on('close', () => finish(undefined));
      secure.on('secureConnect', () => {
        // Read on: the alert is only seen by a socket that reads.
        secure.resume();
        clearTimeout(timer);
        // The server's verdict on the client's certificate follows within a round trip.
        timer = setTimeout(() => finish(undefined), ALERT_MS).unref();
      });
    };
  });
}
