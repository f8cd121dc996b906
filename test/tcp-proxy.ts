import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy a test can cut and restore: stands in for a database server that goes away and
 * comes back, without touching the real one (other tests and processes use it). While cut, the
 * port refuses connections and every open connection is reset.
 */
export interface TcpProxy {
  readonly port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  const listen = async () => {
    const next = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    const address = next.address();
    if (address !== null && typeof address === 'object') port = address.port;
    server = next;
  };

  const stop = async () => {
    const current = server;
    server = undefined;
    for (const socket of sockets) socket.resetAndDestroy();
    sockets.clear();
    if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    cut: stop,
    restore: listen,
    close: stop,
  };
}

/**
 * A proxy in front of the server a URL names (at `defaultPort` when the URL has no port), and
 * that URL pointed at the proxy instead: what a client under test connects to.
 */
export async function proxyInFrontOf(
  url: string,
  defaultPort: number,
): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || defaultPort) });
  const viaProxy = new URL(target);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  return { proxy, url: viaProxy.href };
}
